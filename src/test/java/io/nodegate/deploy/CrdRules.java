package io.nodegate.deploy;

import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelValidationResult;
import dev.cel.common.types.SimpleType;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Evaluates a CRD's {@code x-kubernetes-validations} the way kube-apiserver does, with Google's CEL for Java
 * (Kubernetes docs, "Validation rules" of "Extend the Kubernetes API with CustomResourceDefinitions"):
 * <ul>
 *   <li>each rule is evaluated with {@code self} bound to the value at its place in the schema;</li>
 *   <li>a rule that mentions {@code oldSelf} is a transition rule: it runs only on an update, and only where the
 *   old value can be paired with the new one (object properties, map values, and the items of a list of type
 *   {@code map}, by their keys); items of an atomic list or a set are never paired, so rules below them never see
 *   {@code oldSelf};</li>
 *   <li>a field that is absent is not validated; a rule that returns false or fails to evaluate denies, with its
 *   message.</li>
 * </ul>
 * Variables are declared dynamic (the API server types them from the schema); values are the JSON the client sends,
 * numbers as longs and doubles.
 */
public final class CrdRules {

    private static final Pattern OLD_SELF = Pattern.compile("\\boldSelf\\b");
    private static final Cel CEL = CelFactory.standardCelBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addCompilerLibraries(CelExtensions.strings())
            .addRuntimeLibraries(CelExtensions.strings())
            .addVar("self", SimpleType.DYN)
            .addVar("oldSelf", SimpleType.DYN)
            .build();

    private final Map<String, Object> schema;
    private final Map<String, CelRuntime.Program> programs = new HashMap<>();

    /** @param schema the version's openAPIV3Schema, as the CRD object holds it */
    public CrdRules(Map<String, Object> schema) {
        this.schema = schema;
        compileAll(schema);
    }

    /** The NodeHandover CRD's rules, from its schema exactly as `nodegate install` prints it (parsed back). */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> handoverSchema() {
        Map<String, Object> parsed = tools.jackson.dataformat.yaml.YAMLMapper.builder().build().readValue(
                Manifests.yaml(List.of(HandoverCrd.crd())).replaceFirst("^---\n", ""), Map.class);
        Map<String, Object> spec = (Map<String, Object>) parsed.get("spec");
        Map<String, Object> version = ((List<Map<String, Object>>) spec.get("versions")).get(0);
        return (Map<String, Object>) ((Map<String, Object>) version.get("schema")).get("openAPIV3Schema");
    }

    /**
     * Makes a test API server serve NodeHandovers as a cluster with the CRD installed does: the CRD is created (so
     * the status subresource is split off), every write is reviewed by the CRD's rules (422 when one denies), and
     * Tables come with the CRD's printer columns.
     */
    @SuppressWarnings("unchecked")
    public static void install(io.nodegate.testing.ApiTestServer api) {
        CrdRules rules = new CrdRules(handoverSchema());
        api.create(HandoverCrd.crd());
        tools.jackson.databind.json.JsonMapper json = tools.jackson.databind.json.JsonMapper.builder().build();
        api.admit(io.nodegate.handover.NodeHandover.PATH, (old, now) -> {
            List<String> denied = rules.review(old == null ? null : json.convertValue(old, Map.class),
                    json.convertValue(now, Map.class));
            return denied.isEmpty() ? null : "NodeHandover.nodegate.io \"" + now.path("metadata").path("name")
                    .asString("") + "\" is invalid: " + String.join("; ", denied);
        });
        api.printerColumns(io.nodegate.handover.NodeHandover.PLURAL, HandoverCrd.printerColumns());
    }

    /** Every rule's source, with its place in the schema (for the cost-bound check). */
    public record Rule(String path, String rule, String message, Map<String, Object> at) {
    }

    public List<Rule> rules() {
        List<Rule> out = new ArrayList<>();
        collect(schema, "", out);
        return out;
    }

    /** The messages of every rule that denies the write; empty when it is admitted. */
    public List<String> review(Object oldObject, Object newObject) {
        List<String> denied = new ArrayList<>();
        validate(schema, normalize(newObject), oldObject == null ? null : normalize(oldObject), "", oldObject != null,
                denied);
        return denied;
    }

    @SuppressWarnings("unchecked")
    private void validate(Map<String, Object> s, Object value, Object old, String path, boolean update,
                          List<String> denied) {
        if (value == null) {
            return;
        }
        // the schema's maxItems and maxLength, which the API server checks before any rule (worded as its field
        // errors: k8s.io/apimachinery pkg/util/validation/field, TooMany and TooLong)
        if (value instanceof List<?> list && s.get("maxItems") instanceof Number max && list.size() > max.intValue()) {
            denied.add((path.isEmpty() ? "<root>" : path) + ": Too many: " + list.size() + ": must have at most "
                    + max + " items");
        }
        if (value instanceof String str && s.get("maxLength") instanceof Number max
                && str.codePointCount(0, str.length()) > max.intValue()) {
            denied.add((path.isEmpty() ? "<root>" : path) + ": Too long: may not be more than " + max + " bytes");
        }
        for (Map<String, Object> r : (List<Map<String, Object>>) s.getOrDefault("x-kubernetes-validations", List.of())) {
            String rule = (String) r.get("rule");
            boolean transition = OLD_SELF.matcher(rule).find();
            if (transition && (!update || old == null)) {
                continue;
            }
            Map<String, Object> activation = new HashMap<>();
            activation.put("self", value);
            if (transition) {
                activation.put("oldSelf", old);
            }
            Object verdict;
            try {
                verdict = programs.get(rule).eval(activation);
            } catch (CelEvaluationException e) {
                denied.add((path.isEmpty() ? "<root>" : path) + ": " + r.get("message") + " (evaluation error: "
                        + e.getMessage() + ")");
                continue;
            }
            if (!Boolean.TRUE.equals(verdict)) {
                denied.add((path.isEmpty() ? "<root>" : path) + ": " + r.get("message"));
            }
        }
        if (value instanceof Map<?, ?> map && s.get("properties") instanceof Map<?, ?> props) {
            Map<String, Object> oldMap = old instanceof Map<?, ?> o ? (Map<String, Object>) o : null;
            for (var e : ((Map<String, Object>) props).entrySet()) {
                validate((Map<String, Object>) e.getValue(), map.get(e.getKey()),
                        oldMap == null ? null : oldMap.get(e.getKey()), path + "." + e.getKey(), update, denied);
            }
        }
        if (value instanceof List<?> list && s.get("items") instanceof Map<?, ?> items) {
            boolean keyed = "map".equals(s.get("x-kubernetes-list-type"));
            List<String> keys = (List<String>) s.getOrDefault("x-kubernetes-list-map-keys", List.of());
            for (int i = 0; i < list.size(); i++) {
                Object item = list.get(i);
                Object oldItem = keyed && old instanceof List<?> oldList ? byKey(oldList, item, keys) : null;
                validate((Map<String, Object>) items, item, oldItem, path + "[" + i + "]", update, denied);
            }
        }
    }

    private static Object byKey(List<?> oldList, Object item, List<String> keys) {
        if (!(item instanceof Map<?, ?> m)) {
            return null;
        }
        for (Object o : oldList) {
            if (o instanceof Map<?, ?> om && keys.stream().allMatch(k -> java.util.Objects.equals(om.get(k), m.get(k)))) {
                return o;
            }
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private void compileAll(Map<String, Object> s) {
        for (Map<String, Object> r : (List<Map<String, Object>>) s.getOrDefault("x-kubernetes-validations", List.of())) {
            String rule = (String) r.get("rule");
            CelValidationResult result = CEL.compile(rule);
            if (result.hasError()) {
                throw new AssertionError("rule does not compile: " + rule + ": " + result.getErrorString());
            }
            try {
                programs.put(rule, CEL.createProgram(result.getAst()));
            } catch (Exception e) {
                throw new AssertionError("rule cannot be planned: " + rule, e);
            }
        }
        if (s.get("properties") instanceof Map<?, ?> props) {
            ((Map<String, Object>) props).values().forEach(v -> compileAll((Map<String, Object>) v));
        }
        if (s.get("items") instanceof Map<?, ?> items) {
            compileAll((Map<String, Object>) items);
        }
    }

    @SuppressWarnings("unchecked")
    private static void collect(Map<String, Object> s, String path, List<Rule> out) {
        for (Map<String, Object> r : (List<Map<String, Object>>) s.getOrDefault("x-kubernetes-validations", List.of())) {
            out.add(new Rule(path, (String) r.get("rule"), (String) r.get("message"), s));
        }
        if (s.get("properties") instanceof Map<?, ?> props) {
            ((Map<String, Object>) props).forEach((k, v) -> collect((Map<String, Object>) v, path + "." + k, out));
        }
        if (s.get("items") instanceof Map<?, ?> items) {
            collect((Map<String, Object>) items, path + "[]", out);
        }
    }

    /** JSON values as CEL takes them: integers as longs, maps and lists copied. */
    @SuppressWarnings("unchecked")
    static Object normalize(Object v) {
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, x) -> {
                if (x != null) {
                    out.put((String) k, normalize(x));
                }
            });
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(x -> out.add(normalize(x)));
            return out;
        }
        if (v instanceof Integer i) {
            return i.longValue();
        }
        if (v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v instanceof Float f) {
            return f.doubleValue();
        }
        return v;
    }
}
