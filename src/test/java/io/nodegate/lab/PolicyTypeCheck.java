package io.nodegate.lab;

import io.nodegate.testing.Await;
import io.nodegate.testing.RealControlPlane;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.util.List;

/**
 * kube-apiserver's {@code status.typeChecking} of a ValidatingAdmissionPolicy leaves out a lot: it checks only the
 * validations' expressions and messageExpressions against the matched kinds' schemas, reports nothing for an
 * expression in {@code variables} that does not compile (a reference to it is typed dyn), and checks nothing at all
 * when a rule's apiVersions is a wildcard (k8s.io/apiserver pkg/admission/plugin/policy/validating/typechecking.go:
 * {@code extractVersions} gives up on "*"). Our policies keep their logic in variables, and the Machine policy
 * matches {@code apiVersions: ["*"]}.
 *
 * <p>So a test also applies an unbound copy in which every variable and matchCondition is a validation of its own
 * ({@code [EXPR].size() == 1}: a bool whatever EXPR's type, and EXPR is compiled with the policy's variables in scope)
 * and, where given, the apiVersions are named, and requires the apiserver's type check of that copy to be clean.
 * An unbound policy is never evaluated.
 */
final class PolicyTypeCheck {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private PolicyTypeCheck() {
    }

    /** The typed copy of {@code policy} named {@code name}; {@code versions} replaces each rule's apiVersions (or null). */
    static ObjectNode copy(JsonNode policy, String name, List<String> versions) {
        ObjectNode copy = (ObjectNode) policy.deepCopy();
        ObjectNode metadata = JSON.createObjectNode();
        metadata.put("name", name);
        copy.set("metadata", metadata);
        copy.remove("status");
        ObjectNode spec = (ObjectNode) copy.get("spec");
        if (versions != null) {
            for (JsonNode rule : spec.get("matchConstraints").get("resourceRules")) {
                ArrayNode named = ((ObjectNode) rule).putArray("apiVersions");
                versions.forEach(named::add);
            }
        }
        ArrayNode validations = JSON.createArrayNode();
        for (String part : List.of("variables", "matchConditions")) {
            for (JsonNode v : spec.path(part)) {
                validations.addObject().put("expression", "[" + v.get("expression").asString() + "].size() == 1");
            }
        }
        spec.get("validations").forEach(validations::add);
        spec.set("validations", validations);
        return copy;
    }

    /**
     * Applies the copy, waits for the apiserver's type check of its generation, deletes it, and returns the
     * warnings (an empty array when clean).
     */
    static JsonNode warnings(RealControlPlane lab, JsonNode policy, String name, List<String> versions) {
        ObjectNode copy = copy(policy, name, versions);
        lab.kubectl(JSON.writeValueAsString(copy), "apply", "-f", "-").requireOk("apply the typed copy " + name);
        try {
            JsonNode[] status = new JsonNode[1];
            Await.until("typeChecking of " + name, Duration.ofSeconds(30), () -> {
                JsonNode vap = JSON.readTree(lab.kubectl(null, "get", "validatingadmissionpolicy", name, "-o", "json")
                        .requireOk("get " + name).output());
                status[0] = vap.path("status");
                return status[0].path("observedGeneration").asLong(-1) == vap.path("metadata").path("generation").asLong()
                        && status[0].has("typeChecking");
            });
            return status[0].path("typeChecking").path("expressionWarnings");
        } finally {
            lab.kubectl(null, "delete", "--ignore-not-found", "validatingadmissionpolicy", name);
        }
    }
}
