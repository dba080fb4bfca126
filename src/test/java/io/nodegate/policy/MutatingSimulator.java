package io.nodegate.policy;

import dev.cel.runtime.CelEvaluationException;
import io.fabric8.kubernetes.api.model.admissionregistration.v1beta1.MutatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1beta1.MutatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1beta1.Mutation;
import io.fabric8.kubernetes.api.model.admissionregistration.v1beta1.NamedRuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1beta1.Variable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Evaluates a MutatingAdmissionPolicy with JSONPatch mutations the way kube-apiserver does, with Google's CEL for
 * Java: the policy's matchConstraints, for each binding (in order) and each of its params (the paramRef's name, or
 * every ConfigMap its selector picks in its namespace) the variables and then the mutation, whose JSON Patch is
 * applied to the object before the next evaluation sees it ({@code pkg/admission/plugin/policy/mutating/dispatcher.go}
 * in k8s.io/apiserver). A binding whose params are not found with {@code parameterNotFoundAction: Allow} does nothing.
 *
 * <p>One construct dev.cel does not have: the {@code JSONPatch} object type kube-apiserver declares for mutations
 * ({@code op}, {@code path}, {@code from} strings, {@code value} dyn; k8s.io/apiserver {@code pkg/cel/mutation}).
 * Its literal {@code JSONPatch{op: ..., path: ..., value: ...}} is read here as the map it describes; nothing else
 * in the expression is rewritten, and the rewrite is checked to have caught every literal.
 *
 * <p>An error in a variable or the mutation is reported as the {@link Result#error()} (the policy's failurePolicy
 * then decides on the API server; this simulator leaves the object as it was).
 */
public final class MutatingSimulator {

    public record Result(Map<String, Object> object, List<String> applied, String error) {
    }

    private static final Pattern JSON_PATCH = Pattern.compile("JSONPatch\\{op: ([^,]+), path: ([^,]+), value: ");

    private final MutatingAdmissionPolicy policy;
    private final List<AdmissionSimulator.Compiled> variables = new ArrayList<>();
    private final List<AdmissionSimulator.Compiled> mutations = new ArrayList<>();

    public MutatingSimulator(MutatingAdmissionPolicy policy) {
        this.policy = policy;
        for (Variable v : policy.getSpec().getVariables()) {
            variables.add(AdmissionSimulator.compile("variable " + v.getName(), v.getExpression()));
        }
        for (Mutation m : policy.getSpec().getMutations()) {
            if (!"JSONPatch".equals(m.getPatchType())) {
                throw new AssertionError("only JSONPatch mutations are simulated, not " + m.getPatchType());
            }
            String source = JSON_PATCH.matcher(m.getJsonPatch().getExpression())
                    .replaceAll("{'op': $1, 'path': $2, 'value': ");
            if (source.contains("JSONPatch")) {
                throw new AssertionError("a JSONPatch literal this simulator does not read: " + source);
            }
            mutations.add(AdmissionSimulator.compile("mutation", source));
        }
        if (policy.getSpec().getMatchConditions() != null && !policy.getSpec().getMatchConditions().isEmpty()) {
            throw new AssertionError("matchConditions are not simulated for mutating policies");
        }
    }

    private boolean matches(String operation, String resource) {
        for (NamedRuleWithOperations rule : policy.getSpec().getMatchConstraints().getResourceRules()) {
            if (rule.getApiGroups().contains("") && rule.getOperations().contains(operation)
                    && rule.getResources().contains(resource)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The CREATE of a Node by its kubelet, through {@code bindings}, with {@code configMaps} the ConfigMaps that
     * exist (each binding's paramRef picks its own).
     */
    public Result create(Map<String, Object> node, List<MutatingAdmissionPolicyBinding> bindings,
                         List<Map<String, Object>> configMaps) {
        Map<String, Object> object = deepCopy(node);
        List<String> applied = new ArrayList<>();
        if (!matches("CREATE", "nodes")) {
            return new Result(object, applied, null);
        }
        for (MutatingAdmissionPolicyBinding binding : bindings) {
            for (Map<String, Object> params : params(binding, configMaps)) {
                Map<String, Object> activation = activation(object, params);
                Map<String, Object> computed = new LinkedHashMap<>();
                activation.put("variables", computed);
                try {
                    for (AdmissionSimulator.Compiled v : variables) {
                        computed.put(v.name().substring("variable ".length()), v.program().eval(activation));
                    }
                    for (AdmissionSimulator.Compiled m : mutations) {
                        Object patch = m.program().eval(activation);
                        for (Object op : (List<?>) patch) {
                            apply(object, (Map<?, ?>) op);
                            applied.add(binding.getMetadata().getName() + ": " + op);
                        }
                    }
                } catch (CelEvaluationException e) {
                    return new Result(deepCopy(node), List.of(), "error with param " + name(params) + ": "
                            + e.getMessage());
                }
            }
        }
        return new Result(object, applied, null);
    }

    private static List<Map<String, Object>> params(MutatingAdmissionPolicyBinding binding,
                                                    List<Map<String, Object>> configMaps) {
        var ref = binding.getSpec().getParamRef();
        List<Map<String, Object>> selected = AdmissionSimulator.selectParams(ref.getNamespace(), ref.getName(),
                ref.getName() != null ? null : ref.getSelector().getMatchLabels(), configMaps);
        if (selected.isEmpty() && !"Allow".equals(ref.getParameterNotFoundAction())) {
            throw new AssertionError("parameterNotFoundAction " + ref.getParameterNotFoundAction()
                    + " is not simulated");
        }
        return selected;
    }

    /** An RFC 6902 "add" on maps and lists, the only operation the hold emits. */
    @SuppressWarnings("unchecked")
    private static void apply(Map<String, Object> object, Map<?, ?> op) {
        if (!"add".equals(op.get("op"))) {
            throw new AssertionError("only add is simulated: " + op);
        }
        String[] tokens = ((String) op.get("path")).substring(1).split("/");
        Object at = object;
        for (int i = 0; i < tokens.length - 1; i++) {
            String token = tokens[i].replace("~1", "/").replace("~0", "~");
            at = at instanceof Map<?, ?> m ? m.get(token) : ((List<Object>) at).get(Integer.parseInt(token));
            if (at == null) {
                throw new AssertionError("JSON Patch path " + op.get("path") + " does not exist: " + object);
            }
        }
        String last = tokens[tokens.length - 1].replace("~1", "/").replace("~0", "~");
        Object value = deepCopy(op.get("value"));
        if (at instanceof Map<?, ?> m) {
            ((Map<String, Object>) m).put(last, value);
        } else if ("-".equals(last)) {
            ((List<Object>) at).add(value);
        } else {
            ((List<Object>) at).add(Integer.parseInt(last), value);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> T deepCopy(T value) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> copy = new LinkedHashMap<>();
            m.forEach((k, v) -> copy.put(String.valueOf(k), deepCopy(v)));
            return (T) copy;
        }
        if (value instanceof List<?> l) {
            List<Object> copy = new ArrayList<>();
            l.forEach(v -> copy.add(deepCopy(v)));
            return (T) copy;
        }
        return value;
    }

    @SuppressWarnings("unchecked")
    private static String name(Map<String, Object> object) {
        return String.valueOf(((Map<String, Object>) object.get("metadata")).get("name"));
    }

    /** The kubelet's CREATE of its Node, as the validating simulator assembles any request. */
    private static Map<String, Object> activation(Map<String, Object> object, Map<String, Object> params) {
        String node = name(object);
        var request = new AdmissionSimulator.Request("CREATE", "nodes", null, "system:node:" + node,
                List.of("system:nodes", "system:authenticated"), object, null);
        return AdmissionSimulator.activation(request, params);
    }
}
