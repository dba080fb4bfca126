package io.nodegate.probe;

import io.nodegate.source.kube.ApiReader;
import io.nodegate.model.KubeletAnswer;
import io.nodegate.model.NodeInfo;
import io.nodegate.CollectionException;
import io.nodegate.InputException;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Probes Nodes' kubelet ports (see {@link KubeletProbe}) against this cluster's CA, read from the kubeconfig and
 * from the kube-system/kube-root-ca.crt ConfigMap (either may hold the CA that signs kubelet serving
 * certificates). A failed ConfigMap read is an error, never "no CA": without the CA every answer would look
 * like another cluster's.
 */
public final class KubeletEvidence {

    public static final String ROOT_CA_CONFIGMAP = "kube-root-ca.crt";

    private final ApiReader api;
    private final int port;
    private final Duration timeout;

    /** The kubeconfig's CA is the one of the API reader's connection (the same resolved kubeconfig). */
    public KubeletEvidence(ApiReader api, int port, Duration timeout) {
        this.api = api;
        this.port = port;
        this.timeout = timeout;
    }

    /** The CA certificates of this cluster and where each came from. */
    public record ClusterCas(List<X509Certificate> certificates, List<String> sources) {
    }

    public ClusterCas clusterCas() {
        List<X509Certificate> cas = new ArrayList<>();
        List<String> sources = new ArrayList<>();
        String pem = kubeconfigCa();
        if (pem != null) {
            cas.addAll(parse(pem, "the kubeconfig's certificate-authority"));
            sources.add("kubeconfig");
        }
        Optional<Map<String, String>> cm = api.configMapData(ApiReader.KUBE_SYSTEM, ROOT_CA_CONFIGMAP);
        if (cm.isPresent() && cm.get().get("ca.crt") != null) {
            cas.addAll(parse(cm.get().get("ca.crt"), "ConfigMap kube-system/" + ROOT_CA_CONFIGMAP));
            sources.add("ConfigMap kube-system/" + ROOT_CA_CONFIGMAP);
        }
        if (cas.isEmpty()) {
            throw new CollectionException("no CA of this cluster to compare kubelet certificates with: the kubeconfig "
                    + "has no certificate-authority and ConfigMap kube-system/" + ROOT_CA_CONFIGMAP
                    + (cm.isPresent() ? " has no ca.crt" : " is NotFound"));
        }
        return new ClusterCas(cas, sources);
    }

    /** Probes each Node at its first InternalIP. */
    public List<KubeletAnswer> probe(List<NodeInfo> nodes, ClusterCas cas) {
        List<KubeletProbe.Target> targets = nodes.stream().map(KubeletEvidence::target).toList();
        return new KubeletProbe(port, timeout, cas.certificates()).probeAll(targets);
    }

    /** How many Ready Nodes are probed to show that this cluster's CA, as read, verifies a live kubelet. */
    public static final int CONTROLS = 3;

    /** The Nodes knocked on as the positive control when the user names none: the first Ready ones. */
    public static List<NodeInfo> defaultControls(List<NodeInfo> nodes) {
        return nodes.stream().filter(NodeInfo::isReady).limit(CONTROLS).toList();
    }

    /**
     * The positive control: up to {@value #CONTROLS} Ready Nodes' kubelets, probed with the same CA. When kubelets
     * answer and none chains to the CA as read, while some answer with another CA, the CA read is not the one that
     * signs this cluster's kubelets, and every "another cluster" verdict would be false: that is an error, never a
     * finding. Returns the Nodes knocked on and what the control showed, in words, for the report's notes.
     *
     * @param ready  the Ready Nodes to knock on: the user's choice, or {@link #defaultControls}
     * @param chosen whether the user named them
     */
    public String control(List<NodeInfo> ready, ClusterCas cas, boolean chosen) {
        String knocked = "Ready Node(s) knocked on as the control" + (chosen ? " (--probe-control)" : "") + ": "
                + String.join(", ", ready.stream().map(NodeInfo::name).toList()) + "; ";
        return ready.isEmpty() ? knock(ready, cas) : knocked + knock(ready, cas);
    }

    private String knock(List<NodeInfo> ready, ClusterCas cas) {
        if (ready.isEmpty()) {
            return "no Ready Node to show that this cluster's CA verifies a live kubelet";
        }
        List<KubeletAnswer> answers = probe(ready, cas);
        List<String> ours = answers.stream().filter(a -> a.outcome() == KubeletAnswer.Outcome.THIS_CLUSTER)
                .map(KubeletAnswer::node).toList();
        if (!ours.isEmpty()) {
            return "this cluster's CA verifies the kubelet of Ready Node " + ours.get(0);
        }
        List<KubeletAnswer> other = answers.stream().filter(a -> a.outcome() == KubeletAnswer.Outcome.OTHER_CA).toList();
        if (!other.isEmpty()) {
            throw new CollectionException("this cluster's CA as read (" + String.join(", ", cas.sources()) + ") does "
                    + "not verify the kubelet of Ready Node " + other.get(0).node() + " at " + other.get(0).target()
                    + " (issuer " + other.get(0).issuer() + "): the CA that signs this cluster's kubelets was not "
                    + "read, and every answer would look like another cluster's");
        }
        return "no Ready Node's kubelet presented a certificate (" + answers.stream()
                .map(a -> a.node() + ": " + a.outcome().text()).collect(java.util.stream.Collectors.joining(", "))
                + "): that this cluster's CA verifies a live kubelet was not shown";
    }

    /**
     * The Node at its first InternalIP, with the names its kubelet calls its host: the kubelet names its self-signed
     * certificate after the hostname it registers the Node under (kubernetes cmd/kubelet/app/server.go), and the
     * Node's Hostname addresses carry it too.
     */
    public static KubeletProbe.Target target(NodeInfo n) {
        List<String> names = new ArrayList<>(List.of(n.name()));
        n.addresses().stream().filter(a -> "Hostname".equals(a.type()) && a.address() != null)
                .forEach(a -> names.add(a.address()));
        return new KubeletProbe.Target(n.name(), n.internalIps().isEmpty() ? null : n.internalIps().get(0), names);
    }

    private String kubeconfigCa() {
        return api.connection().target().caPem();
    }

    static List<X509Certificate> parse(String pem, String where) {
        try {
            List<X509Certificate> out = new ArrayList<>();
            for (var c : CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.UTF_8)))) {
                out.add((X509Certificate) c);
            }
            if (out.isEmpty()) {
                throw new CollectionException(where + " holds no certificate");
            }
            return out;
        } catch (CertificateException e) {
            throw new CollectionException(where + " is not a PEM certificate: " + e.getMessage(), e);
        }
    }
}
