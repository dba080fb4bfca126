package io.nodegate.bench;

import com.sun.net.httpserver.HttpServer;
import io.nodegate.model.MachineInfo;
import io.nodegate.source.kube.ApiCalls;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.source.rancher.RancherMachines;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;

/**
 * What `gate --machine-context` adds on Rancher's management cluster: one paginated LIST of the Fleet workspace's
 * Machines (the one whose status.nodeRef names the Node is found among them), parsed into the model by
 * {@link RancherMachines#machines}. N custom Machines of the recorded Rancher 2.13 shape
 * (src/test/resources/rancher/machines) plus a managedFields block of the size Cluster API's and Rancher's field
 * managers leave (about 3 KB), so about 6 KB of JSON each, served with limit/continue by a JDK HttpServer on loopback.
 *
 * <p>{@code java -cp bench/target/nodegate-bench.jar:target/nodegate.jar io.nodegate.bench.MachineListBench N [RUNS]}
 * prints the JSON size, the wall time of the first and the median later LIST-and-parse, and the heap the kept
 * {@link MachineInfo} list holds.
 */
public final class MachineListBench {

    private MachineListBench() {
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        byte[][] items = new byte[n][];
        long bytes = 0;
        for (int i = 0; i < n; i++) {
            items[i] = machine(i).getBytes(StandardCharsets.UTF_8);
            bytes += items[i].length;
        }
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        var pool = Executors.newFixedThreadPool(2);
        server.setExecutor(pool);
        server.createContext("/", ex -> {
            try (ex) {
                String query = ex.getRequestURI().getRawQuery() == null ? "" : ex.getRequestURI().getRawQuery();
                int limit = intParam(query, "limit", n);
                int from = intParam(query, "continue", 0);
                int to = Math.min(n, from + limit);
                var out = new java.io.ByteArrayOutputStream();
                out.writeBytes(("{\"apiVersion\":\"cluster.x-k8s.io/v1beta1\",\"kind\":\"MachineList\",\"metadata\":"
                        + "{\"resourceVersion\":\"9000000\"" + (to < n ? ",\"continue\":\"" + to + "\"" : "")
                        + "},\"items\":[").getBytes(StandardCharsets.UTF_8));
                for (int i = from; i < to; i++) {
                    if (i > from) {
                        out.write(',');
                    }
                    out.writeBytes(items[i]);
                }
                out.writeBytes("]}".getBytes(StandardCharsets.UTF_8));
                ex.getResponseHeaders().set("Content-Type", "application/json");
                ex.sendResponseHeaders(200, out.size());
                ex.getResponseBody().write(out.toByteArray());
            }
        });
        server.start();
        Path kubeconfig = Files.createTempFile("machine-bench", ".yaml");
        Files.writeString(kubeconfig, "apiVersion: v1\nkind: Config\nclusters:\n- name: rancher\n  cluster:\n"
                + "    server: http://127.0.0.1:" + server.getAddress().getPort() + "\ncontexts:\n- name: rancher\n"
                + "  context:\n    cluster: rancher\n    user: rancher\ncurrent-context: rancher\nusers:\n"
                + "- name: rancher\n  user:\n    token: bench\n");
        long[] ms = new long[runs];
        List<MachineInfo> kept = null;
        try (KubeConnection connection = KubeConnection.open(kubeconfig, null, Duration.ofSeconds(60))) {
            ApiCalls api = new ApiCalls(connection);
            for (int r = 0; r < runs; r++) {
                kept = null;
                long t0 = System.nanoTime();
                kept = RancherMachines.machines(api, "fleet-default");
                ms[r] = (System.nanoTime() - t0) / 1_000_000;
            }
        } finally {
            server.stop(0);
            pool.shutdownNow();
            Files.deleteIfExists(kubeconfig);
        }
        System.gc();
        long heapWith = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        int found = kept.size();
        kept = null;
        System.gc();
        long heapWithout = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long[] later = java.util.Arrays.copyOfRange(ms, 1, runs);
        java.util.Arrays.sort(later);
        System.out.printf("machines=%d json=%.1f MB first=%d ms median-later=%d ms kept-model=%.1f MB%n", found,
                bytes / 1e6, ms[0], later.length == 0 ? ms[0] : later[later.length / 2],
                (heapWith - heapWithout) / 1e6);
    }

    private static int intParam(String query, String name, int otherwise) {
        for (String p : query.split("&")) {
            if (p.startsWith(name + "=") && p.length() > name.length() + 1) {
                return Integer.parseInt(p.substring(name.length() + 1));
            }
        }
        return otherwise;
    }

    /** One custom Machine as Rancher 2.13 serves it, with a managedFields block like a real one's. */
    static String machine(int i) {
        String name = String.format("custom-%012x", 0x4b2f0c1d9e8aL + i);
        String node = "gpu-" + i;
        StringBuilder managed = new StringBuilder();
        for (String manager : List.of("rancher", "manager", "rancher-capr")) {
            managed.append(managed.length() == 0 ? "" : ",").append("{\"apiVersion\":\"cluster.x-k8s.io/v1beta1\","
                    + "\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:annotations\":{\".\":{},"
                    + "\"f:objectset.rio.cattle.io/id\":{},\"f:objectset.rio.cattle.io/owner-gvk\":{},"
                    + "\"f:objectset.rio.cattle.io/owner-name\":{},\"f:objectset.rio.cattle.io/owner-namespace\":{}},"
                    + "\"f:finalizers\":{\".\":{},\"v:\\\"machine.cluster.x-k8s.io\\\"\":{}},\"f:labels\":{\".\":{},"
                    + "\"f:cluster.x-k8s.io/cluster-name\":{},\"f:objectset.rio.cattle.io/hash\":{},"
                    + "\"f:rke.cattle.io/cluster-name\":{},\"f:rke.cattle.io/machine-id\":{},"
                    + "\"f:rke.cattle.io/worker-role\":{}},\"f:ownerReferences\":{\".\":{},"
                    + "\"k:{\\\"uid\\\":\\\"2b7e4c19-6d3a-4f58-8e21-9c0d1a3f5e77\\\"}\":{}}},\"f:spec\":{\".\":{},"
                    + "\"f:bootstrap\":{\".\":{},\"f:configRef\":{}},\"f:clusterName\":{},\"f:infrastructureRef\":{},"
                    + "\"f:providerID\":{}},\"f:status\":{\".\":{},\"f:bootstrapReady\":{},\"f:conditions\":{},"
                    + "\"f:infrastructureReady\":{},\"f:lastUpdated\":{},\"f:nodeInfo\":{},\"f:nodeRef\":{},"
                    + "\"f:observedGeneration\":{},\"f:phase\":{}}},\"manager\":\"" + manager
                    + "\",\"operation\":\"Update\",\"time\":\"2026-04-10T04:33:02Z\"}");
        }
        return "{\"apiVersion\":\"cluster.x-k8s.io/v1beta1\",\"kind\":\"Machine\",\"metadata\":{\"annotations\":{"
                + "\"objectset.rio.cattle.io/id\":\"unmanaged-machine\",\"objectset.rio.cattle.io/owner-gvk\":"
                + "\"/v1, Kind=Secret\",\"objectset.rio.cattle.io/owner-name\":\"" + name + "\","
                + "\"objectset.rio.cattle.io/owner-namespace\":\"fleet-default\"},\"creationTimestamp\":"
                + "\"2026-04-10T04:30:51Z\",\"finalizers\":[\"machine.cluster.x-k8s.io\"],\"generation\":3,"
                + "\"labels\":{\"cluster.x-k8s.io/cluster-name\":\"prod-gpu\",\"objectset.rio.cattle.io/hash\":"
                + "\"5d3f0a9c1e7b2468ace13579bdf02468ace13579\",\"rke.cattle.io/cluster-name\":\"prod-gpu\","
                + "\"rke.cattle.io/machine-id\":\"9c1e5b7d3f0a2468ace13579bdf02468ace13579bdf02468ace13579bdf0246\","
                + "\"rke.cattle.io/worker-role\":\"true\"},\"managedFields\":[" + managed + "],\"name\":\"" + name
                + "\",\"namespace\":\"fleet-default\",\"ownerReferences\":[{\"apiVersion\":\"cluster.x-k8s.io/v1beta1\","
                + "\"kind\":\"Cluster\",\"name\":\"prod-gpu\",\"uid\":\"2b7e4c19-6d3a-4f58-8e21-9c0d1a3f5e77\"}],"
                + "\"resourceVersion\":\"" + (5512093 + i) + "\",\"uid\":\"" + String.format(
                "7c0b9f3e-5d41-4a8e-9b7a-%012x", i) + "\"},\"spec\":{\"bootstrap\":{\"configRef\":{\"apiVersion\":"
                + "\"rke.cattle.io/v1\",\"kind\":\"RKEBootstrap\",\"name\":\"" + name + "\",\"namespace\":"
                + "\"fleet-default\"}},\"clusterName\":\"prod-gpu\",\"infrastructureRef\":{\"apiVersion\":"
                + "\"rke.cattle.io/v1\",\"kind\":\"CustomMachine\",\"name\":\"" + name + "\",\"namespace\":"
                + "\"fleet-default\"},\"nodeDeletionTimeout\":\"10s\",\"providerID\":\"rke2://" + node + "\"},"
                + "\"status\":{\"bootstrapReady\":true,\"conditions\":[{\"lastTransitionTime\":\"2026-04-10T04:33:02Z\","
                + "\"status\":\"True\",\"type\":\"Ready\"},{\"lastTransitionTime\":\"2026-04-10T04:31:10Z\",\"status\":"
                + "\"True\",\"type\":\"BootstrapReady\"},{\"lastTransitionTime\":\"2026-04-10T04:31:10Z\",\"status\":"
                + "\"True\",\"type\":\"InfrastructureReady\"},{\"lastTransitionTime\":\"2026-04-10T04:33:02Z\","
                + "\"status\":\"True\",\"type\":\"NodeHealthy\"}],\"infrastructureReady\":true,\"lastUpdated\":"
                + "\"2026-04-10T04:33:02Z\",\"nodeInfo\":{\"architecture\":\"amd64\",\"bootID\":\"boot-" + i + "\","
                + "\"containerRuntimeVersion\":\"containerd://2.0\",\"kernelVersion\":\"6.8.0-45-generic\","
                + "\"kubeProxyVersion\":\"v1.34.3+rke2r3\",\"kubeletVersion\":\"v1.34.3+rke2r3\",\"machineID\":"
                + "\"machine-" + node + "\",\"operatingSystem\":\"linux\",\"osImage\":\"Ubuntu 24.04\",\"systemUUID\":"
                + "\"uuid-" + i + "\"},\"nodeRef\":{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"" + node + "\","
                + "\"uid\":\"" + String.format("5b3d7f19-2c4e-4a6b-8d0f-%012x", i) + "\"},\"observedGeneration\":3,"
                + "\"phase\":\"Running\"}}";
    }
}
