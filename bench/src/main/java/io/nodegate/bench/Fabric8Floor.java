package io.nodegate.bench;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The floor for a fabric8 client: the same paginated LISTs as {@code floor}, but parsed into typed fabric8 objects
 * and all kept in memory at once, as a live source does before any detector runs. Run on nodegate.jar's classpath:
 * {@code java -cp bench/target/nodegate-bench.jar:target/nodegate.jar io.nodegate.bench.Fabric8Floor KUBECONFIG}.
 */
public final class Fabric8Floor {

    private Fabric8Floor() {
    }

    /** With --drop, each page is discarded after counting: what mapping page by page into the model would cost. */
    private static boolean drop;

    public static void main(String[] args) throws Exception {
        Path kubeconfig = Path.of(args[0]);
        drop = args.length > 1 && args[1].equals("--drop");
        long t0 = System.nanoTime();
        Config config = Config.fromKubeconfig(null, Files.readString(kubeconfig), kubeconfig.toString());
        List<List<? extends HasMetadata>> kept = new ArrayList<>();
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
            String version = client.getKubernetesVersion().getGitVersion();
            System.out.printf("client built and /version read after %d ms%n", (System.nanoTime() - t0) / 1_000_000);
            boolean rancher = client.namespaces().withName("cattle-system").get() != null;
            kept.add(all(o -> client.nodes().list(o)));
            kept.add(all(o -> client.leases().inNamespace("kube-node-lease").list(o)));
            kept.add(all(o -> client.leases().inNamespace("kube-system").list(o)));
            kept.add(all(o -> client.secrets().inNamespace("kube-system").list(o)));
            kept.add(all(o -> client.storage().v1().csiNodes().list(o)));
            kept.add(all(o -> client.discovery().v1().endpointSlices().inNamespace("default")
                    .withLabel("kubernetes.io/service-name", "kubernetes").list(o)));
            kept.add(all(o -> client.apps().daemonSets().inAnyNamespace().list(o)));
            System.out.printf("fabric8-list: server %s, rancher=%s, counts %s, %d ms in-process%n", version, rancher,
                    kept.stream().map(List::size).toList(), (System.nanoTime() - t0) / 1_000_000);
        }
    }

    private static <T extends HasMetadata> List<T> all(Function<ListOptions, KubernetesResourceList<T>> page) {
        List<T> out = new ArrayList<>();
        int dropped = 0;
        String cont = null;
        long t0 = System.nanoTime();
        do {
            KubernetesResourceList<T> list = page.apply(new ListOptionsBuilder().withLimit(500L).withContinue(cont)
                    .build());
            if (drop) {
                dropped += list.getItems().size();
            } else {
                out.addAll(list.getItems());
            }
            cont = list.getMetadata().getContinue();
        } while (cont != null && !cont.isEmpty());
        System.out.printf("  %d items in %d ms%n", out.size() + dropped, (System.nanoTime() - t0) / 1_000_000);
        return out;
    }
}
