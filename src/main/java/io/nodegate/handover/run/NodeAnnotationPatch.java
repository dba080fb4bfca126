package io.nodegate.handover.run;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.nodegate.CollectionException;
import io.nodegate.model.NodeInfo;
import io.nodegate.source.kube.ApiReader;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;

import java.util.Optional;

/**
 * Adds one annotation to a Node with one JSON patch that first tests the Node's uid and resourceVersion as a read
 * saw them, so a Node replaced or changed since that read is left alone: the annotation then says something about
 * a Node nobody checked. The request goes through the shared call layer ({@code ApiCalls#call}: the client's
 * request timeout is the deadline of the whole answer, and a call past it is abandoned and cancelled).
 *
 * <p>Before the patch the Node is read once more, only to learn whether it has any annotations at all: the read
 * the checks made keeps only the annotations nodegate uses, so an empty map there does not mean an empty map on the
 * server, and a JSON patch that adds the whole {@code metadata.annotations} would erase every other one. That second
 * read must show the same uid and resourceVersion; the patch's own tests then cover the time up to the write.
 */
public final class NodeAnnotationPatch implements CordonReasons.Writer {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final ApiReader api;

    public NodeAnnotationPatch(ApiReader api) {
        this.api = api;
    }

    @Override
    public CordonReasons.Line add(NodeInfo asRead, String key, String value) {
        String name = asRead.name();
        String path = "/api/v1/nodes/" + name;
        String what = "Node " + name;
        JsonNode before;
        try {
            Optional<JsonNode> now = api.reread(what, path);
            if (now.isEmpty()) {
                return changed(name, "deleted since the step's checks read it (NotFound)");
            }
            before = now.get();
        } catch (CollectionException e) {
            return failed(name, "could not be read before the write (" + e.getMessage() + "): nothing written");
        }
        String moved = moved(asRead, before);
        if (moved != null) {
            return changed(name, moved);
        }
        ArrayNode patch = JSON.createArrayNode();
        patch.addObject().put("op", "test").put("path", "/metadata/uid").put("value", asRead.uid());
        patch.addObject().put("op", "test").put("path", "/metadata/resourceVersion")
                .put("value", asRead.resourceVersion());
        if (before.path("metadata").path("annotations").isObject()) {
            patch.addObject().put("op", "add").put("path", "/metadata/annotations/" + pointer(key)).put("value", value);
        } else {
            patch.addObject().put("op", "add").put("path", "/metadata/annotations").putObject("value").put(key, value);
        }
        String unclear;
        try {
            // through resource(): withName(name).patch(...) would GET the Node first, one more read whose fault
            // could not change what this write does
            Node target = new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
            Node answered = api.api().call("PATCH " + what, () -> api.client().nodes().resource(target)
                    .patch(PatchContext.of(PatchType.JSON), JSON.writeValueAsString(patch)));
            if (answered != null && answered.getMetadata() != null
                    && asRead.uid().equals(answered.getMetadata().getUid())
                    && answered.getMetadata().getAnnotations() != null
                    && value.equals(answered.getMetadata().getAnnotations().get(key))) {
                return new CordonReasons.Line(name, CordonReasons.Outcome.WRITTEN, key + " written");
            }
            unclear = "the PATCH answered without the annotated Node";
        } catch (CollectionException e) {
            int code = e.getCause() instanceof KubernetesClientException k ? k.getCode() : 0;
            if (code == 409 || code == 422) {
                // kube-apiserver answers a failed JSON patch test with 422 (the object is not as read)
                return changed(name, "changed between the step's read and the write (HTTP " + code + ": resourceVersion "
                        + asRead.resourceVersion() + " is gone)");
            }
            if (code >= 400 && code < 500 && code != 408 && code != 429) {
                return failed(name, "the PATCH was refused with HTTP " + code + reason(code) + ": not written");
            }
            unclear = "the PATCH failed (" + e.getMessage() + ")";
        }
        // an answer that is no clean confirmation: what the Node carries now says what the write did
        JsonNode after;
        try {
            after = api.reread(what, path).orElse(null);
        } catch (CollectionException e) {
            return failed(name, unclear + ", and " + e.getMessage() + ": UNKNOWN whether " + key + " was written");
        }
        if (carries(after, asRead.uid(), key, value)) {
            return new CordonReasons.Line(name, CordonReasons.Outcome.WRITTEN, key + " written (" + unclear
                    + "; read again, it is there)");
        }
        String movedNow = after == null ? "deleted since the step's checks read it (NotFound)" : moved(asRead, after);
        if (movedNow != null) {
            return changed(name, movedNow + "; " + unclear);
        }
        return failed(name, unclear + "; read again, it does not carry " + key + ": not written");
    }

    /** How the Node differs from the read the checks made (replaced, or a newer resourceVersion), or null. */
    private static String moved(NodeInfo asRead, JsonNode now) {
        String uid = now.path("metadata").path("uid").asString();
        if (!asRead.uid().equals(uid)) {
            return "replaced since the step's checks read it (another Node by that name, uid " + uid + ")";
        }
        String rv = now.path("metadata").path("resourceVersion").asString();
        if (asRead.resourceVersion() == null || !asRead.resourceVersion().equals(rv)) {
            return "changed since the step's checks read it (resourceVersion " + asRead.resourceVersion() + ", now "
                    + rv + ")";
        }
        return null;
    }

    private static CordonReasons.Line changed(String node, String why) {
        return new CordonReasons.Line(node, CordonReasons.Outcome.CHANGED, why + ": the reason was NOT written (a "
                + "Node nobody checked is not annotated, and nodegate does not retry)");
    }

    private static CordonReasons.Line failed(String node, String why) {
        return new CordonReasons.Line(node, CordonReasons.Outcome.FAILED, "writing the reason failed: " + why);
    }

    private static String reason(int code) {
        return switch (code) {
            case 401 -> " (credentials rejected)";
            case 403 -> " (RBAC: this user may not patch Nodes)";
            case 404 -> " (the Node is gone)";
            default -> "";
        };
    }

    private static boolean carries(JsonNode node, String uid, String key, String value) {
        return node != null && uid.equals(node.path("metadata").path("uid").asString())
                && value.equals(node.path("metadata").path("annotations").path(key).asString());
    }

    private static JsonNode parse(String body) {
        try {
            return body == null ? null : JSON.readTree(body);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** JSON pointer escaping (RFC 6901): "~" first, then "/", so "nodegate.io/x" is "nodegate.io~1x". */
    static String pointer(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }
}
