package io.nodegate.model;

import java.util.List;

/**
 * What a Node's kubelet port answered to a TCP connect plus TLS handshake (nothing else is sent).
 *
 * @param issuer  the serving certificate's issuer DN; null without a certificate
 * @param subject the serving certificate's subject DN
 * @param sans    its subjectAltNames as "DNS:name" / "IP:address"
 * @param detail  what happened, in words (the connect error, the CA that matched, …)
 */
public record KubeletAnswer(String node, String address, int port, Outcome outcome, String issuer, String subject,
                            List<String> sans, String detail) {

    public KubeletAnswer {
        sans = sans == null ? List.of() : List.copyOf(sans);
    }

    public enum Outcome {
        /** Silence: nothing answered the connect in time, or no route to the host. Consistent with cleanup. */
        NO_ANSWER("no answer"),
        /**
         * The host refused the connect (TCP reset to the SYN): the machine is up, nothing listens on the port. What
         * a host that was cleaned up and kept running gives; consistent with cleanup.
         */
        REFUSED("refused (nothing listens)"),
        /** A certificate that chains to this cluster's CA, and the handshake completed: this cluster's kubelet lives. */
        THIS_CLUSTER("this cluster's CA"),
        /** A certificate from a CA that is not this cluster's (an RKE2/k3s CA of the same name included). */
        OTHER_CA("another cluster's CA"),
        /** This node's kubelet's own self-signed certificate (no serving certificate issued): alive, cluster unknown. */
        SELF_SIGNED("self-signed by this node's kubelet"),
        /** A kubelet's self-signed certificate for another hostname: a renamed host, or an address reused. */
        SELF_SIGNED_OTHER_HOST("self-signed by another host's kubelet"),
        /** The port accepted the connection, then reset or closed it before any certificate: something listens. */
        RESET("accepted, then reset"),
        /** The port accepted the connection but gave no usable TLS answer (garbage, a stall, an unproven copy). */
        NOT_TLS("port open, no TLS answer"),
        /** The Node has no InternalIP to probe. */
        NO_ADDRESS("no InternalIP");

        private final String text;

        Outcome(String text) {
            this.text = text;
        }

        public String text() {
            return text;
        }
    }

    public String target() {
        return address == null ? "-" : (address.contains(":") ? "[" + address + "]" : address) + ":" + port;
    }
}
