package io.nodegate.lifecycle.inventory;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.nodegate.CollectionException;
import io.nodegate.RefusedException;
import io.nodegate.model.NewcomerHold;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.Taint;
import io.nodegate.source.kube.ApiCalls;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.util.List;

/**
 * The two writes of the hold: the watch puts the taint {@value NewcomerHold#TAINT_KEY} on a newcomer, `accept` takes
 * it off and records who accepted. Each is one JSON patch that first tests the resourceVersion it was decided on, so
 * a Node that changed in between (the kubelet, another replica, a person) is refused, not overwritten: the decision
 * is made again on what the Node is now.
 */
public final class NodeHolds {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final KubernetesClient client;
    /** Every read and write here has a deadline on the whole answer (the watch's holds run on its pass). */
    private final ApiCalls api;

    public NodeHolds(KubernetesClient client) {
        this.client = client;
        this.api = ApiCalls.of(client);
    }

    /** Adds the taint (effect NoSchedule or NoExecute) to the Node as it was read. */
    public void hold(NodeInfo node, String effect, Instant at) {
        ArrayNode patch = test(node);
        ObjectNode taint = JSON.createObjectNode().put("key", NewcomerHold.TAINT_KEY).put("effect", effect)
                .put("timeAdded", at.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
        if (node.taints().isEmpty()) {
            patch.addObject().put("op", "add").put("path", "/spec/taints").putArray("value").add(taint);
        } else {
            patch.addObject().put("op", "add").put("path", "/spec/taints/-").set("value", taint);
        }
        send(node, patch, "adding the taint " + NewcomerHold.TAINT_KEY + ":" + effect + " to Node " + node.name());
    }

    /** Removes every {@value NewcomerHold#TAINT_KEY} taint and writes who accepted it, when. */
    public void accept(NodeInfo node, String who, Instant at) {
        ArrayNode patch = test(node);
        ArrayNode kept = JSON.createArrayNode();
        for (Taint t : node.taints()) {
            if (NewcomerHold.TAINT_KEY.equals(t.key())) {
                continue;
            }
            ObjectNode o = kept.addObject().put("key", t.key());
            if (t.value() != null) {
                o.put("value", t.value());
            }
            o.put("effect", t.effect());
            if (t.timeAdded() != null) {
                o.put("timeAdded", t.timeAdded().toString());
            }
        }
        patch.addObject().put("op", "replace").put("path", "/spec/taints").set("value", kept);
        String stamp = at.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
        String what = "removing the taint " + NewcomerHold.TAINT_KEY + " from Node " + node.name();
        // the Node as accept reads it carries every annotation (not the model's trimmed set), so empty means none
        if (node.annotations().isEmpty()) {
            patch.addObject().put("op", "add").put("path", "/metadata/annotations").putObject("value")
                    .put(NewcomerHold.ACCEPTED_BY, who).put(NewcomerHold.ACCEPTED_AT, stamp);
        } else {
            patch.addObject().put("op", "add").put("path", "/metadata/annotations/" + pointer(NewcomerHold.ACCEPTED_BY))
                    .put("value", who);
            patch.addObject().put("op", "add").put("path", "/metadata/annotations/" + pointer(NewcomerHold.ACCEPTED_AT))
                    .put("value", stamp);
        }
        send(node, patch, what);
    }

    private static ArrayNode test(NodeInfo node) {
        ArrayNode patch = JSON.createArrayNode();
        patch.addObject().put("op", "test").put("path", "/metadata/uid").put("value", node.uid());
        patch.addObject().put("op", "test").put("path", "/metadata/resourceVersion").put("value", node.resourceVersion());
        return patch;
    }

    private static String pointer(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    private void send(NodeInfo node, ArrayNode patch, String what) {
        Node answered;
        try {
            answered = api.call("PATCH Node " + node.name(), () -> client.nodes().withName(node.name())
                    .patch(PatchContext.of(PatchType.JSON), JSON.writeValueAsString(patch)));
        } catch (CollectionException failed) {
            if (failed.getCause() instanceof KubernetesClientException e && (e.getCode() == 409 || e.getCode() == 422)) {
                throw new RefusedException(what + ": the Node changed since it was read (resourceVersion "
                        + node.resourceVersion() + "; HTTP " + e.getCode() + "): nothing written; read it again");
            }
            if (failed.getCause() instanceof KubernetesClientException e && e.getCode() > 0) {
                throw new CollectionException(what + " failed with HTTP " + e.getCode() + ": " + failed.getMessage(),
                        failed);
            }
            throw new CollectionException(what + " failed: " + failed.getMessage(), failed);
        }
        if (answered == null || answered.getMetadata() == null || !node.uid().equals(answered.getMetadata().getUid())) {
            throw new CollectionException(what + ": the API server's answer is not that Node, so the write is not "
                    + "confirmed");
        }
    }

    /** Whether the Node as answered carries the hold (for callers that check the write). */
    static boolean carries(Node n) {
        return n.getSpec() != null && n.getSpec().getTaints() != null
                && n.getSpec().getTaints().stream().anyMatch(t -> NewcomerHold.TAINT_KEY.equals(t.getKey()));
    }

    static List<String> none() {
        return List.of();
    }
}
