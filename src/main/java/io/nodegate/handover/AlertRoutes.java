package io.nodegate.handover;

import io.nodegate.model.alertmanager.AmMatcher;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The routing tree of an Alertmanager configuration (GET /api/v2/status, {@code config.original}), walked as
 * Alertmanager's dispatcher walks it (prometheus/alertmanager dispatch/route.go, Route.Match): an alert goes down
 * to the first child route whose matchers it satisfies, depth first, and a child without group_by inherits its
 * parent's. Used to say which {@code group_by} put a target's alert in the same notification as other nodes'.
 * Understands {@code matchers} (the "name=value" strings), and the older {@code match} and {@code match_re} maps.
 */
public final class AlertRoutes {

    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    private AlertRoutes() {
    }

    /** The route an alert lands on: its receiver and effective group_by; null group_by when the tree does not say. */
    public record Landing(String receiver, List<String> groupBy) {
    }

    /**
     * Where an alert with these labels lands, or null when the configuration cannot be read (then the caller says
     * the group's labels instead).
     */
    public static Landing landing(String configYaml, Map<String, String> labels) {
        if (configYaml == null || configYaml.isBlank()) {
            return null;
        }
        JsonNode root;
        try {
            root = YAML.readTree(configYaml).path("route");
        } catch (RuntimeException e) {
            return null;
        }
        if (!root.isObject()) {
            return null;
        }
        return walk(root, labels, root.path("receiver").asString(null), groupBy(root.path("group_by"), null));
    }

    private static Landing walk(JsonNode route, Map<String, String> labels, String receiver, List<String> groupBy) {
        for (JsonNode child : route.path("routes")) {
            if (matches(child, labels)) {
                String r = child.path("receiver").asString(receiver);
                List<String> g = groupBy(child.path("group_by"), groupBy);
                return walk(child, labels, r, g);
            }
        }
        return new Landing(receiver, groupBy);
    }

    private static List<String> groupBy(JsonNode node, List<String> inherited) {
        if (!node.isArray()) {
            return inherited;
        }
        List<String> out = new ArrayList<>();
        node.forEach(n -> out.add(n.asString()));
        return List.copyOf(out);
    }

    private static boolean matches(JsonNode route, Map<String, String> labels) {
        for (var e : route.path("match").properties()) {
            if (!e.getValue().asString("").equals(labels.getOrDefault(e.getKey(), ""))) {
                return false;
            }
        }
        for (var e : route.path("match_re").properties()) {
            if (!regex(e.getValue().asString(""), labels.getOrDefault(e.getKey(), ""))) {
                return false;
            }
        }
        for (JsonNode m : route.path("matchers")) {
            try {
                if (!AmMatcher.parse(m.asString("")).matches(labels)) {
                    return false;
                }
            } catch (IllegalArgumentException unreadable) {
                return false;
            }
        }
        return true;
    }

    private static boolean regex(String pattern, String value) {
        try {
            return Pattern.compile("^(?:" + pattern + ")$").matcher(value).matches();
        } catch (PatternSyntaxException e) {
            return false;
        }
    }
}
