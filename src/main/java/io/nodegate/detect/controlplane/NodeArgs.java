package io.nodegate.detect.controlplane;

import io.nodegate.model.NodeInfo;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The start arguments k3s/RKE2 record on a Node ({@code k3s.io/node-args} / {@code rke2.io/node-args}), a
 * JSON array string such as {@code ["server","--disable-apiserver","true"]}. Only the parts redundancy
 * needs are interpreted: server or agent, and which components a server runs without.
 *
 * @param present false when the Node has no node-args annotation (not k3s/RKE2, or a very old version)
 * @param error   why the annotation could not be read; then nothing is known about disabled components
 */
public record NodeArgs(boolean present, List<String> args, String error) {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    public static final NodeArgs ABSENT = new NodeArgs(false, List.of(), null);

    public NodeArgs {
        args = args == null ? List.of() : List.copyOf(args);
    }

    public static NodeArgs of(NodeInfo node) {
        return parse(node.nodeArgs());
    }

    public static NodeArgs parse(String annotation) {
        if (annotation == null) {
            return ABSENT;
        }
        JsonNode tree;
        try {
            tree = JSON.readTree(annotation);
        } catch (JacksonException e) {
            return new NodeArgs(true, List.of(), "not a JSON array: " + e.getOriginalMessage());
        }
        if (tree == null || !tree.isArray()) {
            return new NodeArgs(true, List.of(), "not a JSON array");
        }
        List<String> args = new ArrayList<>();
        for (JsonNode element : tree) {
            if (!element.isString()) {
                return new NodeArgs(true, List.of(), "element " + element + " is not a string");
            }
            args.add(element.asString());
        }
        return new NodeArgs(true, args, null);
    }

    public boolean readable() {
        return present && error == null;
    }

    /** The process was started as {@code server} (the first argument), as opposed to {@code agent}. */
    public boolean server() {
        return readable() && !args.isEmpty() && "server".equals(args.get(0));
    }

    /**
     * Components the arguments switch off. A flag counts as set in each of the forms the CLI accepts:
     * {@code --disable-x}, {@code --disable-x=true}, {@code --disable-x true}; {@code false} switches it back on
     * and a later occurrence wins, as with the CLI.
     */
    public Set<ControlPlaneComponent> disabled() {
        Set<ControlPlaneComponent> disabled = EnumSet.noneOf(ControlPlaneComponent.class);
        if (!readable()) {
            return disabled;
        }
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            for (ControlPlaneComponent c : ControlPlaneComponent.values()) {
                String flag = c.disableFlag();
                Boolean value = null;
                if (arg.equals(flag)) {
                    String next = i + 1 < args.size() ? args.get(i + 1).toLowerCase(Locale.ROOT) : null;
                    if ("true".equals(next) || "false".equals(next)) {
                        value = "true".equals(next);
                        i++;
                    } else {
                        value = true;
                    }
                } else if (arg.startsWith(flag + "=")) {
                    value = Boolean.parseBoolean(arg.substring(flag.length() + 1).trim());
                }
                if (value != null) {
                    if (value) {
                        disabled.add(c);
                    } else {
                        disabled.remove(c);
                    }
                    break;
                }
            }
        }
        return disabled;
    }

    public boolean disables(ControlPlaneComponent component) {
        return disabled().contains(component);
    }
}
