package io.nodegate.handover.run;

import io.nodegate.CollectionException;
import io.nodegate.RefusedException;
import io.nodegate.handover.NodeHandover;
import io.nodegate.model.OpenHandovers;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.source.json.KubeJson;
import io.nodegate.source.kube.ApiCalls;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * NodeHandover objects on the API server: read over the lifecycle's one read path ({@link ApiReader}, only a 404
 * is absence), written with resourceVersion preconditions. A write that loses the race answers 409; the caller
 * re-reads, re-applies its change to what is there now, and writes again, or refuses naming what changed, so two
 * people recording at once lose nothing.
 */
public final class HandoverApi {

    /** How NodeHandover objects are turned into JSON and back (unknown fields the server adds are ignored). */
    public static final JsonMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private final ApiReader api;

    public HandoverApi(ApiReader api) {
        this.api = api;
    }

    public ApiReader reader() {
        return api;
    }

    /** The write lost the race: the object changed since it was read (HTTP 409). */
    public static final class Conflict extends RuntimeException {
        public Conflict(String message) {
            super(message);
        }
    }

    /** The write's answer did not say whether it landed (a timeout, a 5xx): the caller reads the object again. */
    public static final class Unclear extends RuntimeException {
        public Unclear(String message) {
            super(message);
        }
    }

    public Optional<NodeHandover> get(String name) {
        String path = NodeHandover.PATH + "/" + name;
        try {
            return api.api().getPlain("GET NodeHandover " + name, path, NodeHandover.KIND, name, KubeJson.EVIDENCE)
                    .map(HandoverApi::fromMap);
        } catch (ApiCalls.NotFound e) {
            return Optional.empty();
        }
    }

    /**
     * Every NodeHandover. A 404 for the whole collection means the CRD is not installed: that is said, not read as
     * "no hand-overs".
     */
    public List<NodeHandover> list() {
        try {
            return api.api().listPlain("LIST NodeHandovers", NodeHandover.PATH, NodeHandover.KIND, null, null,
                    KubeJson.EVIDENCE, HandoverApi::fromMap);
        } catch (ApiCalls.NotFound e) {
            throw new CollectionException("the API server " + api.server() + " does not serve " + NodeHandover.PATH
                    + ": the NodeHandover CRD is not installed (nodegate install --crds-only | kubectl apply -f -)", e);
        }
    }

    /**
     * Which Nodes are part of an open hand-over, for the audit's NG171. A 404 for the collection (the CRD is not
     * installed) proves there is none; any other failure (a 403, a timeout, a broken answer) leaves them not read,
     * with why, so the audit says it could not rule a hand-over out instead of "none".
     */
    public OpenHandovers openHandovers() {
        List<NodeHandover> all;
        try {
            all = api.api().listPlain("LIST NodeHandovers", NodeHandover.PATH, NodeHandover.KIND, null, null,
                    KubeJson.EVIDENCE, HandoverApi::fromMap);
        } catch (ApiCalls.NotFound e) {
            return OpenHandovers.of(Map.of());
        } catch (RuntimeException e) {
            return OpenHandovers.unread("NodeHandovers could not be read (" + e.getMessage() + ")");
        }
        return open(all);
    }

    /** Which Nodes are part of an open hand-over among {@code all}, one whole LIST's answer. */
    public static OpenHandovers open(List<NodeHandover> all) {
        Map<String, List<String>> byNode = new java.util.TreeMap<>();
        for (NodeHandover h : all) {
            if (h.spec() == null || h.closed() || h.spec().nodes() == null || h.metadata() == null) {
                continue;
            }
            for (String node : h.spec().nodes()) {
                byNode.computeIfAbsent(node, k -> new java.util.ArrayList<>()).add(h.metadata().name());
            }
        }
        return OpenHandovers.of(byNode);
    }

    /** Creates the object; refuses one that exists (the name is taken). */
    public NodeHandover create(NodeHandover h) {
        var response = send("POST", NodeHandover.PATH, h);
        if (response.code() == 201 || response.code() == 200) {
            return parse(response.body(), "POST NodeHandover " + h.name());
        }
        if (response.code() == 409) {
            throw new RefusedException("NodeHandover " + h.name() + " already exists: choose another name, or record "
                    + "steps on it with `nodegate handover step " + h.name() + "`");
        }
        if (response.code() == 404) {
            throw new CollectionException("the API server " + api.server() + " does not serve " + NodeHandover.PATH
                    + ": install the NodeHandover CRD first (nodegate install --crds-only | kubectl apply -f -)");
        }
        throw failed("POST NodeHandover " + h.name(), response);
    }

    /** Replaces the spec, on condition that the object is still at {@code h}'s resourceVersion. */
    public NodeHandover updateSpec(NodeHandover h) {
        return update(NodeHandover.PATH + "/" + h.name(), h, "PUT NodeHandover " + h.name());
    }

    /** Replaces the status (status subresource), on the same condition. */
    public NodeHandover updateStatus(NodeHandover h) {
        return update(NodeHandover.PATH + "/" + h.name() + "/status", h, "PUT NodeHandover " + h.name() + "/status");
    }

    private NodeHandover update(String path, NodeHandover h, String what) {
        if (h.resourceVersion() == null) {
            throw new IllegalArgumentException("an update needs the resourceVersion it was read at");
        }
        var response = send("PUT", path, h);
        if (response.code() == 200) {
            return parse(response.body(), what);
        }
        if (response.code() == 409) {
            throw new Conflict(what + ": the object changed since it was read (resourceVersion "
                    + h.resourceVersion() + ")");
        }
        if (response.code() == 404) {
            throw new RefusedException("NodeHandover " + h.name() + " is gone (deleted while this ran)");
        }
        if (response.code() == 422 || response.code() == 400) {
            throw new RefusedException(what + " was refused by the API server: " + message(response.body()));
        }
        if (response.code() >= 500 || response.code() == 408 || response.code() == 429) {
            throw new Unclear(what + " answered HTTP " + response.code());
        }
        throw failed(what, response);
    }

    private record Answer(int code, String body) {
    }

    private Answer send(String method, String path, NodeHandover h) {
        String body = JSON.writeValueAsString(h);
        String url = api.connection().server() + path;
        var builder = api.client().getHttpClient().newHttpRequestBuilder().uri(url).setHeader("Accept",
                "application/json");
        builder = "POST".equals(method) ? builder.post("application/json", body) : builder.put("application/json",
                body);
        try {
            var response = api.send(builder);
            return new Answer(response.code(), response.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unclear(method + " " + path + " was interrupted");
        } catch (Exception e) {
            throw new Unclear(method + " " + path + " failed (" + api.describe(e) + ")");
        }
    }

    private CollectionException failed(String what, Answer response) {
        return new CollectionException(what + " at " + api.server() + " answered HTTP " + response.code() + ": "
                + message(response.body()));
    }

    private static String message(String body) {
        try {
            Object m = JSON.readValue(body, Map.class).get("message");
            if (m != null) {
                return m.toString();
            }
        } catch (RuntimeException notStatus) {
            // not a Status: show the start of the body
        }
        String b = body == null ? "" : body.strip();
        return b.length() > 300 ? b.substring(0, 300) + "…" : b;
    }

    private NodeHandover parse(String body, String what) {
        try {
            NodeHandover h = JSON.readValue(body, NodeHandover.class);
            if (h == null || h.metadata() == null || h.resourceVersion() == null || h.spec() == null) {
                throw new IllegalArgumentException("no metadata.resourceVersion or spec");
            }
            return h;
        } catch (RuntimeException e) {
            throw new Unclear(what + " answered 200 without the NodeHandover (" + e.getMessage() + ")");
        }
    }

    static NodeHandover fromMap(Map<String, Object> object) {
        try {
            NodeHandover h = JSON.convertValue(object, NodeHandover.class);
            if (h.spec() == null) {
                throw new IllegalArgumentException("no spec");
            }
            return h;
        } catch (RuntimeException e) {
            Object name = object.get("metadata") instanceof Map<?, ?> m ? m.get("name") : "?";
            throw new CollectionException("NodeHandover " + name + " cannot be read: " + e.getMessage());
        }
    }

    /** A NodeHandover saved as JSON or YAML (kubectl get nodehandover NAME -o json), for offline looks. */
    public static NodeHandover readSaved(java.nio.file.Path file) {
        try {
            String text = java.nio.file.Files.readString(file);
            Map<?, ?> map = text.stripLeading().startsWith("{") ? JSON.readValue(text, Map.class)
                    : tools.jackson.dataformat.yaml.YAMLMapper.builder().build().readValue(text, Map.class);
            if (!NodeHandover.KIND.equals(map.get("kind"))) {
                throw new io.nodegate.InputException("--record " + file + " holds a " + map.get("kind") + ", not a "
                        + NodeHandover.KIND + " (save one with kubectl get nodehandover NAME -o json)");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> object = (Map<String, Object>) map;
            return JSON.convertValue(object, NodeHandover.class);
        } catch (java.io.IOException e) {
            throw new io.nodegate.InputException("cannot read --record " + file + ": " + e.getMessage(), e);
        } catch (io.nodegate.InputException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new io.nodegate.InputException("--record " + file + " is not a readable NodeHandover: "
                    + e.getMessage(), e);
        }
    }
}
