package io.nodegate.model;

import io.nodegate.CollectionException;

import java.util.Map;
import java.util.TreeMap;

/** GPU extended resources in a Node's capacity: nvidia.com/gpu, amd.com/gpu, gpu.intel.com/*, and the like. */
public final class Gpu {
    private Gpu() {
    }

    public static boolean isGpuResource(String key) {
        int slash = key.indexOf('/');
        return slash > 0 && key.toLowerCase(java.util.Locale.ROOT).contains("gpu");
    }

    public static Map<String, Long> capacity(NodeInfo node) {
        Map<String, Long> out = new TreeMap<>();
        node.capacity().forEach((k, v) -> {
            if (isGpuResource(k)) {
                try {
                    out.put(k, Long.parseLong(v));
                } catch (NumberFormatException | NullPointerException e) {
                    throw new CollectionException("Node " + node.name() + ": unparsable capacity " + k + "=" + v);
                }
            }
        });
        return out;
    }

    public static Map<String, Long> totals(Iterable<NodeInfo> nodes) {
        Map<String, Long> out = new TreeMap<>();
        for (NodeInfo n : nodes) {
            capacity(n).forEach((k, v) -> out.merge(k, v, Long::sum));
        }
        return out;
    }
}
