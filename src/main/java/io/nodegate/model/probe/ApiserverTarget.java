package io.nodegate.model.probe;

/** One kube-apiserver as published in a default/kubernetes EndpointSlice: an address and that slice's port. */
public record ApiserverTarget(String address, int port) {

    /** {@code address:port}, IPv6 in brackets, as people and URLs write it. */
    public String hostPort() {
        return (address.contains(":") ? "[" + address + "]" : address) + ":" + port;
    }

    public String url(String scheme) {
        return scheme + "://" + hostPort();
    }
}
