package io.nodegate.policy;

import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelValidationResult;
import dev.cel.common.types.SimpleType;
import dev.cel.common.values.NullValue;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.NamedRuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Validation;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Variable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Evaluates a ValidatingAdmissionPolicy the way kube-apiserver does, with Google's CEL for Java: the same
 * top-level variables (object, oldObject, request, params, namespaceObject, variables, declared dynamic because
 * the API server's typed schemas are not available here), the strings extension Kubernetes enables, the policy's
 * matchConstraints, its variables in order, then each validation; an evaluation error is a denial
 * (failurePolicy Fail).
 *
 * <p>Stricter than the API server in one way: variables are evaluated eagerly, so a variable that errors denies
 * even when no validation reads it. The policy is meant never to error, so that strictness is wanted here.
 */
public final class AdmissionSimulator {

    /** @param group the resource's API group ("" for the core group: Nodes) */
    public record Request(String operation, String resource, String subResource, String username, List<String> groups,
                   Map<String, Object> object, Map<String, Object> oldObject, String group) {

        /** A request on a core-group resource (Nodes). */
        public Request(String operation, String resource, String subResource, String username, List<String> groups,
                       Map<String, Object> object, Map<String, Object> oldObject) {
            this(operation, resource, subResource, username, groups, object, oldObject, "");
        }
    }

    public record Decision(boolean allowed, String message) {
    }

    /** A compiled expression; {@link MutatingSimulator} compiles its own with the same environment. */
    record Compiled(String name, String source, CelRuntime.Program program) {
    }

    private record Check(Compiled expression, Compiled messageExpression, String message) {
    }

    /** The top-level variables and libraries kube-apiserver gives admission policies, validating or mutating. */
    static final Cel CEL = CelFactory.standardCelBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addCompilerLibraries(CelExtensions.strings())
            .addRuntimeLibraries(CelExtensions.strings())
            .addVar("object", SimpleType.DYN)
            .addVar("oldObject", SimpleType.DYN)
            .addVar("request", SimpleType.DYN)
            .addVar("params", SimpleType.DYN)
            .addVar("namespaceObject", SimpleType.DYN)
            .addVar("variables", SimpleType.DYN)
            .build();

    private final ValidatingAdmissionPolicy policy;
    private final List<Compiled> matchConditions = new ArrayList<>();
    private final List<Compiled> variables = new ArrayList<>();
    private final List<Check> checks = new ArrayList<>();

    public AdmissionSimulator(ValidatingAdmissionPolicy policy) {
        this.policy = policy;
        if (policy.getSpec().getMatchConditions() != null) {
            for (var c : policy.getSpec().getMatchConditions()) {
                matchConditions.add(compile("matchCondition " + c.getName(), c.getExpression()));
            }
        }
        for (Variable v : policy.getSpec().getVariables()) {
            variables.add(compile("variable " + v.getName(), v.getExpression()));
        }
        for (Validation v : policy.getSpec().getValidations()) {
            Compiled message = v.getMessageExpression() == null ? null
                    : compile("messageExpression", v.getMessageExpression());
            checks.add(new Check(compile("validation", v.getExpression()), message, v.getMessage()));
        }
    }

    static Compiled compile(String name, String source) {
        CelValidationResult result = CEL.compile(source);
        if (result.hasError()) {
            throw new AssertionError(name + " does not compile: " + result.getErrorString() + "\n" + source);
        }
        try {
            CelAbstractSyntaxTree ast = result.getAst();
            return new Compiled(name, source, CEL.createProgram(ast));
        } catch (Exception e) {
            throw new AssertionError(name + " cannot be planned: " + e.getMessage(), e);
        }
    }

    boolean matches(Request request) {
        String resource = request.subResource() == null ? request.resource()
                : request.resource() + "/" + request.subResource();
        for (NamedRuleWithOperations rule : policy.getSpec().getMatchConstraints().getResourceRules()) {
            if (rule.getApiGroups().contains(request.group()) && rule.getOperations().contains(request.operation())
                    && rule.getResources().contains(resource)) {
                return true;
            }
        }
        return false;
    }

    public Decision review(Request request) {
        return evaluate(request, null);
    }

    /**
     * A review through a binding with a paramRef, as the API server does it: when the parameter object does not
     * exist ({@code params == null}) the binding's parameterNotFoundAction decides (Allow: the binding does not
     * apply; Deny: denied) without evaluating anything; otherwise the validations run with {@code params} bound.
     * A binding that selects its params by label gets {@code params} as the one ConfigMap there is.
     */
    public Decision review(Request request, ValidatingAdmissionPolicyBinding binding, Map<String, Object> params) {
        if (binding.getSpec().getParamRef().getSelector() != null) {
            return review(request, binding, params == null ? List.of() : List.of(params));
        }
        if (!matches(request)) {
            return new Decision(true, "not matched");
        }
        if (params == null) {
            return notFound(binding);
        }
        return evaluate(request, params);
    }

    /**
     * A review through a binding whose paramRef selects its params by label, as kube-apiserver does it
     * ({@code CollectParams} in apiserver {@code pkg/admission/plugin/policy/generic/policy_dispatcher.go}, the loop
     * over params in {@code pkg/admission/plugin/policy/validating/dispatcher.go}): the candidates in the paramRef's
     * namespace whose labels match the selector are the params; none is the parameterNotFoundAction's case; the
     * policy is evaluated once per param and the request is denied when any evaluation denies (the first denial's
     * message is the answer's).
     *
     * @param candidates every ConfigMap that exists (the selector decides which are params)
     */
    public Decision review(Request request, ValidatingAdmissionPolicyBinding binding,
                           List<Map<String, Object>> candidates) {
        var ref = binding.getSpec().getParamRef();
        if (ref.getSelector() == null) {
            throw new AssertionError("binding " + binding.getMetadata().getName() + " names its param; use the one-param review");
        }
        if (ref.getSelector().getMatchExpressions() != null && !ref.getSelector().getMatchExpressions().isEmpty()) {
            throw new AssertionError("matchExpressions are not simulated");
        }
        if (!matches(request)) {
            return new Decision(true, "not matched");
        }
        List<Map<String, Object>> selected = selectParams(ref.getNamespace(), null,
                ref.getSelector().getMatchLabels(), candidates);
        if (selected.isEmpty()) {
            return notFound(binding);
        }
        for (Map<String, Object> params : selected) {
            Decision d = evaluate(request, params);
            if (!d.allowed()) {
                return d;
            }
        }
        return new Decision(true, "");
    }

    /**
     * The params a paramRef picks among {@code candidates}: those in its namespace (any when it names none), then
     * the one with its name, or, when it names none, every one whose labels carry all of {@code matchLabels}.
     * The validating and the mutating paramRef are different API types with the same fields, hence the parts.
     */
    static List<Map<String, Object>> selectParams(String namespace, String name, Map<String, String> matchLabels,
                                                  List<Map<String, Object>> candidates) {
        Map<String, String> wanted = matchLabels == null ? Map.of() : matchLabels;
        List<Map<String, Object>> selected = new ArrayList<>();
        for (Map<String, Object> c : candidates) {
            @SuppressWarnings("unchecked")
            Map<String, Object> meta = (Map<String, Object>) c.get("metadata");
            boolean inNamespace = namespace == null || meta != null && namespace.equals(meta.get("namespace"));
            if (!inNamespace) {
                continue;
            }
            if (name != null) {
                if (meta != null && name.equals(meta.get("name"))) {
                    selected.add(c);
                }
                continue;
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> labels = meta == null || meta.get("labels") == null ? Map.of()
                    : (Map<String, Object>) meta.get("labels");
            if (wanted.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())))) {
                selected.add(c);
            }
        }
        return selected;
    }

    private static Decision notFound(ValidatingAdmissionPolicyBinding binding) {
        String action = binding.getSpec().getParamRef().getParameterNotFoundAction();
        return "Allow".equals(action) ? new Decision(true, "parameter not found: allowed by the binding")
                : new Decision(false, "parameter not found: denied by the binding (" + action + ")");
    }

    private Decision evaluate(Request request, Map<String, Object> params) {
        if (!matches(request)) {
            return new Decision(true, "not matched");
        }
        Map<String, Object> activation = activation(request, params);
        // matchConditions decide whether the policy applies at all; one that errors denies (failurePolicy Fail)
        for (Compiled condition : matchConditions) {
            try {
                if (!Boolean.TRUE.equals(condition.program().eval(activation))) {
                    return new Decision(true, "not matched by " + condition.name());
                }
            } catch (CelEvaluationException e) {
                return new Decision(false, "error in " + condition.name() + ": " + e.getMessage());
            }
        }
        Map<String, Object> computed = new LinkedHashMap<>();
        activation.put("variables", computed);
        for (Compiled variable : variables) {
            try {
                computed.put(variable.name().substring("variable ".length()), variable.program().eval(activation));
            } catch (CelEvaluationException e) {
                return new Decision(false, "error in " + variable.name() + ": " + e.getMessage());
            }
        }
        for (Check check : checks) {
            Object verdict;
            try {
                verdict = check.expression().program().eval(activation);
            } catch (CelEvaluationException e) {
                return new Decision(false, "error in validation: " + e.getMessage());
            }
            if (!(verdict instanceof Boolean)) {
                return new Decision(false, "validation returned " + verdict + ", not a bool");
            }
            if (!(Boolean) verdict) {
                return new Decision(false, message(check, activation));
            }
        }
        return new Decision(true, "");
    }

    /** A messageExpression that fails would silently fall back to the static message; tests want to see it. */
    private static String message(Check check, Map<String, Object> activation) {
        if (check.messageExpression() == null) {
            return check.message();
        }
        try {
            return (String) check.messageExpression().program().eval(activation);
        } catch (CelEvaluationException e) {
            throw new AssertionError("messageExpression failed: " + e.getMessage(), e);
        }
    }

    /**
     * The top-level variables for {@code request} as kube-apiserver binds them, {@code params} null when the
     * binding has none; {@code variables} is left for the caller, which computes them in order.
     */
    static Map<String, Object> activation(Request request, Map<String, Object> params) {
        Map<String, Object> userInfo = new LinkedHashMap<>();
        userInfo.put("username", request.username());
        userInfo.put("uid", "uid-" + request.username());
        if (request.groups() != null) {
            // encoding/json omits an empty groups slice, so the API server's request may lack the field
            userInfo.put("groups", request.groups());
        }
        Map<String, Object> req = new LinkedHashMap<>();
        req.put("uid", "705ab4f5-6393-11e8-b7cc-42010a800002");
        boolean core = request.group().isEmpty();
        req.put("kind", Map.of("group", request.group(), "version", core ? "v1" : "v1beta1", "kind",
                core ? "Node" : "Machine"));
        req.put("resource", Map.of("group", request.group(), "version", core ? "v1" : "v1beta1", "resource",
                request.resource()));
        if (request.subResource() != null) {
            req.put("subResource", request.subResource());
        }
        String name = name(request.object() != null ? request.object() : request.oldObject());
        req.put("name", name);
        Object ns = ((Map<?, ?>) (request.object() != null ? request.object() : request.oldObject()).get("metadata"))
                .get("namespace");
        if (ns != null) {
            req.put("namespace", ns);
        }
        req.put("operation", request.operation());
        req.put("userInfo", userInfo);
        req.put("dryRun", false);

        Map<String, Object> activation = new HashMap<>();
        activation.put("request", req);
        activation.put("object", request.object() == null ? NullValue.NULL_VALUE : request.object());
        activation.put("oldObject", request.oldObject() == null ? NullValue.NULL_VALUE : request.oldObject());
        activation.put("params", params == null ? NullValue.NULL_VALUE : params);
        activation.put("namespaceObject", NullValue.NULL_VALUE);
        return activation;
    }

    @SuppressWarnings("unchecked")
    private static String name(Map<String, Object> object) {
        return (String) ((Map<String, Object>) object.get("metadata")).get("name");
    }
}
