package io.nodegate.deploy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * deploy/kustomize, generated from the same {@link InstallBundle} `nodegate install` prints, so the two cannot drift
 * (KustomizeTest checks the committed files against this, and builds them with kustomize):
 *
 * <ul>
 *   <li>{@code base/}: what `nodegate install --image nodegate` prints, one file per object. The image is the
 *       placeholder name {@value #IMAGE}: set yours with kustomize's {@code images:} (docs/in-cluster.md);</li>
 *   <li>{@code kustomization.yaml} at the top: the base, so `kubectl kustomize deploy/kustomize` builds it;</li>
 *   <li>{@code components/NAME/}: one kustomize Component per `install --with-NAME` flag, the objects the flag adds
 *       and JSON patches for the objects it changes;</li>
 *   <li>{@code overlays/with-NAME/}: the base plus that one component, what `install --with-NAME` prints.</li>
 * </ul>
 * The namespace is nodegate-system: kustomize's {@code namespace:} would also move the Roles that must stay in
 * kube-system, kube-node-lease and default, so another namespace is `nodegate install --namespace`.
 */
public final class KustomizeLayout {

    /** The image name in the base: kustomize's images transformer replaces it (newName, newTag or digest). */
    public static final String IMAGE = "nodegate";

    private static final String HEADER = "# Generated from `nodegate install` (deploy/KustomizeLayout); do not edit by "
            + "hand: KustomizeTest says how to regenerate.\n";
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** One optional part: its directory name, and how it changes install's settings. */
    public record Component(String name, UnaryOperator<InstallSettings> flag) {
    }

    public static final List<Component> COMPONENTS = List.of(
            new Component("alerts", s -> with(s, false, true, false, false, false)),
            new Component("policy", s -> with(s, true, false, false, false, false)),
            new Component("servicemonitor", s -> with(s, false, false, true, false, false)),
            new Component("dashboard", s -> with(s, false, false, false, true, false)),
            new Component("policy-reports", s -> with(s, false, false, false, false, true)));

    private KustomizeLayout() {
    }

    /** The settings of the base: install's defaults with the placeholder image. */
    public static InstallSettings base(String version) {
        return new InstallSettings(InstallSettings.DEFAULT_NAMESPACE, IMAGE, InstallSettings.DEFAULT_REPLICAS, false,
                false, false, true, Map.of(), false, false, version, null, null);
    }

    /** Every file under deploy/kustomize, path relative to it, in a stable order. */
    public static Map<String, String> files(String version) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("kustomization.yaml", HEADER + kustomization("Kustomization", List.of("base"), List.of(), List.of()));
        List<HasMetadata> base = InstallBundle.objects(base(version));
        List<String> baseFiles = new ArrayList<>();
        for (HasMetadata object : base) {
            String file = fileName(object);
            baseFiles.add(file);
            files.put("base/" + file, HEADER + Manifests.yaml(List.of(object)));
        }
        files.put("base/kustomization.yaml", HEADER + kustomization("Kustomization", baseFiles, List.of(), List.of()));
        for (Component c : COMPONENTS) {
            List<HasMetadata> with = InstallBundle.objects(c.flag().apply(base(version)));
            Map<String, JsonNode> before = byId(base);
            List<String> resources = new ArrayList<>();
            List<String> patches = new ArrayList<>();
            for (HasMetadata object : with) {
                JsonNode tree = JSON.readTree(SERIALIZATION.asJson(object));
                JsonNode old = before.get(id(object));
                if (old == null) {
                    String file = fileName(object);
                    resources.add(file);
                    files.put("components/" + c.name() + "/" + file, HEADER + Manifests.yaml(List.of(object)));
                } else if (!old.equals(tree)) {
                    patches.add(patch(object, JsonPatch.diff(old, tree)));
                }
            }
            files.put("components/" + c.name() + "/kustomization.yaml",
                    HEADER + kustomization("Component", resources, patches, List.of()));
            files.put("overlays/with-" + c.name() + "/kustomization.yaml",
                    HEADER + kustomization("Kustomization", List.of("../../base"), List.of(),
                            List.of("../../components/" + c.name())));
        }
        return files;
    }

    /** "deployment-nodegate-watch.yaml", with the namespace for the Roles that share one name. */
    static String fileName(HasMetadata object) {
        String ns = object.getMetadata().getNamespace();
        String name = object.getKind().toLowerCase(Locale.ROOT) + "-" + object.getMetadata().getName()
                + (ns == null || ns.equals(InstallSettings.DEFAULT_NAMESPACE) ? "" : "-" + ns);
        return name + ".yaml";
    }

    private static Map<String, JsonNode> byId(List<HasMetadata> objects) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        objects.forEach(o -> out.put(id(o), JSON.readTree(SERIALIZATION.asJson(o))));
        return out;
    }

    private static String id(HasMetadata o) {
        return o.getApiVersion() + "/" + o.getKind() + "/" + o.getMetadata().getNamespace() + "/"
                + o.getMetadata().getName();
    }

    /** One entry of a kustomization's patches: the target object and its JSON patch (RFC 6902) inline. */
    private static String patch(HasMetadata object, List<Map<String, Object>> ops) {
        String apiVersion = object.getApiVersion();
        String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
        String version = apiVersion.substring(apiVersion.indexOf('/') + 1);
        StringBuilder b = new StringBuilder("- target:\n");
        if (!group.isEmpty()) {
            b.append("    group: ").append(group).append('\n');
        }
        b.append("    version: ").append(version).append('\n');
        b.append("    kind: ").append(object.getKind()).append('\n');
        b.append("    name: ").append(object.getMetadata().getName()).append('\n');
        if (object.getMetadata().getNamespace() != null) {
            b.append("    namespace: ").append(object.getMetadata().getNamespace()).append('\n');
        }
        b.append("  patch: |-\n");
        for (Map<String, Object> op : ops) {
            b.append("    - ").append(JSON.writeValueAsString(op)).append('\n');
        }
        return b.toString();
    }

    private static String kustomization(String kind, List<String> resources, List<String> patches,
                                        List<String> components) {
        StringBuilder b = new StringBuilder();
        b.append("apiVersion: kustomize.config.k8s.io/").append(kind.equals("Component") ? "v1alpha1" : "v1beta1")
                .append('\n');
        b.append("kind: ").append(kind).append('\n');
        if (!resources.isEmpty()) {
            b.append("resources:\n");
            resources.forEach(r -> b.append("- ").append(r).append('\n'));
        }
        if (!components.isEmpty()) {
            b.append("components:\n");
            components.forEach(c -> b.append("- ").append(c).append('\n'));
        }
        if (!patches.isEmpty()) {
            b.append("patches:\n");
            patches.forEach(b::append);
        }
        return b.toString();
    }

    private static InstallSettings with(InstallSettings s, boolean policy, boolean alerts, boolean serviceMonitor,
                                        boolean dashboard, boolean policyReports) {
        return new InstallSettings(s.namespace(), s.image(), s.replicas(), s.withPolicy() || policy,
                s.withAlerts() || alerts, s.withServiceMonitor() || serviceMonitor, s.rancher(), s.monitoringLabels(),
                s.withDashboard() || dashboard, s.withPolicyReports() || policyReports, s.version(),
                s.dashboardNamespace(), s.bmc());
    }

    /** The smallest JSON patch this layout needs: add what lists gained at their end, replace what changed. */
    static final class JsonPatch {
        private JsonPatch() {
        }

        static List<Map<String, Object>> diff(JsonNode from, JsonNode to) {
            List<Map<String, Object>> ops = new ArrayList<>();
            diff(from, to, "", ops);
            return ops;
        }

        private static void diff(JsonNode from, JsonNode to, String path, List<Map<String, Object>> ops) {
            if (from.equals(to)) {
                return;
            }
            if (from.isObject() && to.isObject()) {
                for (var e : to.properties()) {
                    String child = path + "/" + escape(e.getKey());
                    if (!from.has(e.getKey())) {
                        ops.add(op("add", child, e.getValue()));
                    } else {
                        diff(from.get(e.getKey()), e.getValue(), child, ops);
                    }
                }
                for (var e : from.properties()) {
                    if (!to.has(e.getKey())) {
                        ops.add(op("remove", path + "/" + escape(e.getKey()), null));
                    }
                }
                return;
            }
            if (from.isArray() && to.isArray() && to.size() >= from.size()) {
                boolean prefix = true;
                for (int i = 0; i < from.size() && prefix; i++) {
                    prefix = from.get(i).equals(to.get(i));
                }
                if (prefix) {
                    for (int i = from.size(); i < to.size(); i++) {
                        ops.add(op("add", path + "/-", to.get(i)));
                    }
                    return;
                }
                if (from.size() == to.size()) {
                    for (int i = 0; i < from.size(); i++) {
                        diff(from.get(i), to.get(i), path + "/" + i, ops);
                    }
                    return;
                }
            }
            ops.add(op("replace", path, to));
        }

        private static Map<String, Object> op(String op, String path, JsonNode value) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("op", op);
            m.put("path", path);
            if (value != null) {
                m.put("value", value);
            }
            return m;
        }

        private static String escape(String key) {
            return key.replace("~", "~0").replace("/", "~1");
        }
    }
}
