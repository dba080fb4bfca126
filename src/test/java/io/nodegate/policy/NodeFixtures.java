package io.nodegate.policy;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Node objects as the API server hands them to CEL: plain JSON maps (ints as long, CEL's int). */
final class NodeFixtures {

    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private NodeFixtures() {
    }

    /**
     * worker-7 as stored after its agent was stopped (Ready=Unknown, unreachable taints): rke2/kubelet annotations
     * plus nodegate.io/gate-verdict=HOLD and nodegate.io/gate-run.
     */
    static Map<String, Object> worker7() {
        try (InputStream in = NodeFixtures.class.getResourceAsStream("/policy/node-worker-7.json")) {
            @SuppressWarnings("unchecked")
            Map<String, Object> parsed = JSON.unmarshal(in, Map.class);
            return deepCopy(parsed);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Map<String, Object> withAnnotation(Map<String, Object> node, String key, String value) {
        Map<String, Object> copy = deepCopy(node);
        metadata(copy).computeIfAbsent("annotations", k -> new LinkedHashMap<String, Object>());
        annotations(copy).put(key, value);
        return copy;
    }

    static Map<String, Object> withoutAnnotation(Map<String, Object> node, String key) {
        Map<String, Object> copy = deepCopy(node);
        annotations(copy).remove(key);
        return copy;
    }

    /** Only the nodegate.io/* annotations removed, everything else kept. */
    static Map<String, Object> withoutGateAnnotations(Map<String, Object> node) {
        Map<String, Object> copy = deepCopy(node);
        annotations(copy).keySet().removeIf(k -> k.startsWith(GatePolicy.ANNOTATION_PREFIX));
        return copy;
    }

    /** No metadata.annotations field at all, as on a Node nobody ever annotated. */
    static Map<String, Object> withoutAnnotationsMap(Map<String, Object> node) {
        Map<String, Object> copy = deepCopy(node);
        metadata(copy).remove("annotations");
        return copy;
    }

    /** What a kubelet heartbeat does through nodes/status: new heartbeat times, one kubelet annotation rewritten. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> kubeletHeartbeat(Map<String, Object> node) {
        Map<String, Object> copy = deepCopy(node);
        Map<String, Object> status = (Map<String, Object>) copy.get("status");
        for (Object c : (List<Object>) status.get("conditions")) {
            ((Map<String, Object>) c).put("lastHeartbeatTime", "2026-10-19T06:05:11Z");
        }
        if (metadata(copy).containsKey("annotations")) {
            annotations(copy).put("node.alpha.kubernetes.io/ttl", "15");
        }
        metadata(copy).put("resourceVersion", "88123999");
        return copy;
    }

    /** The Ready condition set to the given status, as the kubelet (True/False) or the controller (Unknown) would. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> withReady(Map<String, Object> node, String status) {
        Map<String, Object> copy = deepCopy(node);
        for (Object c : (List<Object>) ((Map<String, Object>) copy.get("status")).get("conditions")) {
            Map<String, Object> condition = (Map<String, Object>) c;
            if ("Ready".equals(condition.get("type"))) {
                condition.put("status", status);
            }
        }
        return copy;
    }

    /** After worker-7's last heartbeat (05:23:43Z) and before anything it reports later. */
    static final String GATE_AT = "2026-10-19T06:10:00Z";

    /** What `nodegate gate --annotate` writes for a PASS on this Node: verdict, time, uid and bootID judged. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> gatedPass(Map<String, Object> node) {
        Map<String, Object> copy = withAnnotation(node, GatePolicy.VERDICT_ANNOTATION, GatePolicy.PASS);
        annotations(copy).put(GatePolicy.GATE_AT_ANNOTATION, GATE_AT);
        annotations(copy).put(GatePolicy.GATE_UID_ANNOTATION, (String) metadata(copy).get("uid"));
        Map<String, Object> status = (Map<String, Object>) copy.get("status");
        annotations(copy).put(GatePolicy.GATE_BOOT_ID_ANNOTATION,
                (String) ((Map<String, Object>) status.get("nodeInfo")).get("bootID"));
        return copy;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> withBootId(Map<String, Object> node, String bootId) {
        Map<String, Object> copy = deepCopy(node);
        ((Map<String, Object>) ((Map<String, Object>) copy.get("status")).get("nodeInfo")).put("bootID", bootId);
        return copy;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> withReadyHeartbeat(Map<String, Object> node, String time) {
        Map<String, Object> copy = deepCopy(node);
        for (Object c : (List<Object>) ((Map<String, Object>) copy.get("status")).get("conditions")) {
            Map<String, Object> condition = (Map<String, Object>) c;
            if ("Ready".equals(condition.get("type"))) {
                condition.put("lastHeartbeatTime", time);
            }
        }
        return copy;
    }

    static Map<String, Object> withoutStatus(Map<String, Object> node) {
        Map<String, Object> copy = deepCopy(node);
        copy.remove("status");
        return copy;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> metadata(Map<String, Object> node) {
        return (Map<String, Object>) node.get("metadata");
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> annotations(Map<String, Object> node) {
        return (Map<String, Object>) metadata(node).get("annotations");
    }

    @SuppressWarnings("unchecked")
    private static <T> T deepCopy(T value) {
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> copy = new LinkedHashMap<>();
            map.forEach((k, v) -> copy.put((String) k, deepCopy(v)));
            return (T) copy;
        }
        if (value instanceof List<?> list) {
            List<Object> copy = new ArrayList<>();
            list.forEach(v -> copy.add(deepCopy(v)));
            return (T) copy;
        }
        if (value instanceof Integer i) {
            return (T) Long.valueOf(i);
        }
        return value;
    }
}
