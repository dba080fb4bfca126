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
        /** Nothing accepted the connection in time (refused, unreachable, timed out): consistent with cleanup. */
        NO_ANSWER("no answer"),
        /** A serving certificate issued by this cluster's CA: the kubelet of this cluster is alive. */
        THIS_CLUSTER("this cluster's CA"),
        /** A serving certificate from another CA: a kubelet answers there, for another cluster. */
        OTHER_CA("another CA"),
        /** The kubelet's own self-signed certificate (no serverTLSBootstrap): alive, cluster unknown. */
        SELF_SIGNED("self-signed by the kubelet"),
        /** The port accepted the connection but the TLS handshake gave no certificate. */
        NOT_TLS("port open, no TLS certificate"),
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
