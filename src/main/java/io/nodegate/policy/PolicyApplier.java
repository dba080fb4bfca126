package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.nodegate.CollectionException;
import io.nodegate.source.kube.ApiCalls;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Server-side applies the bundle with field manager "nodegate"; a second apply is a no-op. */
public final class PolicyApplier {

    public static final String FIELD_MANAGER = "nodegate";

    /** How long `policy --apply` waits for the apiserver to enforce the gate it applied. */
    public static final Duration ENFORCEMENT_DEADLINE = Duration.ofSeconds(30);
    static final String PROBE_NODE = "nodegate-policy-probe";

    /**
     * What was applied and what was left out (and why), and whether the apiserver was seen enforcing the gate (a
     * line for the command to print; empty when no gate was applied).
     */
    public record Result(List<String> applied, List<String> skipped, List<String> enforcement) {
        public Result(List<String> applied, List<String> skipped) {
            this(applied, skipped, List.of());
        }
    }

    private PolicyApplier() {
    }

    /** Applies without waiting for the apiserver to enforce the gate. */
    public static Result apply(KubernetesClient client, PolicyBundle bundle) {
        return apply(ApiCalls.of(client), bundle, null);
    }

    /**
     * Reads over the connection's lean layer; the server-side applies go through its fabric8 client. With an
     * {@code enforcementDeadline}, then waits until the apiserver enforces the gate (see {@link #awaitGate}); null
     * skips that.
     */
    public static Result apply(ApiCalls calls, PolicyBundle bundle, Duration enforcementDeadline) {
        KubernetesClient client = calls.client();
        boolean needsCattleSystem = bundle.objects().stream()
                .anyMatch(o -> OperatorRbac.CATTLE_SYSTEM.equals(o.getMetadata().getNamespace()));
        boolean cattleSystemExists;
        try {
            // only a 404 proves absence: a 403, an error or an empty answer stops the apply
            cattleSystemExists = needsCattleSystem && calls.getObject("GET namespace " + OperatorRbac.CATTLE_SYSTEM,
                    "/api/v1/namespaces/" + OperatorRbac.CATTLE_SYSTEM, io.fabric8.kubernetes.api.model.Namespace.class,
                    OperatorRbac.CATTLE_SYSTEM).isPresent();
        } catch (CollectionException e) {
            throw new CollectionException("cannot tell whether namespace " + OperatorRbac.CATTLE_SYSTEM + " exists: "
                    + e.getMessage() + "; nothing applied", e);
        }
        List<String> applied = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (HasMetadata object : bundle.objects()) {
            String what = PolicyBundle.describe(object);
            if (OperatorRbac.CATTLE_SYSTEM.equals(object.getMetadata().getNamespace()) && !cattleSystemExists) {
                skipped.add(what + " (namespace cattle-system not found: no Rancher here; use --no-rancher)");
                continue;
            }
            try {
                client.resource(object).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
            } catch (KubernetesClientException e) {
                throw new CollectionException("applying " + what + " failed: " + failure(object, e)
                        + "; applied before it: " + (applied.isEmpty() ? "nothing" : applied), e);
            }
            applied.add(what);
        }
        boolean gate = bundle.objects().stream().anyMatch(o -> o instanceof ValidatingAdmissionPolicyBinding
                && GatePolicy.NAME.equals(o.getMetadata().getName()));
        return new Result(applied, skipped, gate && enforcementDeadline != null
                ? List.of(awaitGate(client, enforcementDeadline)) : List.of());
    }

    /**
     * kube-apiserver enforces a policy and its binding only once its informers have them, not when the apply is
     * answered (seen on a real apiserver: a Node DELETE right after the apply went through). So wait until it
     * refuses what the gate refuses: a server-side dry run (nothing is stored) of a Node CREATE that carries a
     * nodegate.io annotation, which rule 2 refuses to anyone outside the operators group. An operator's probe is
     * admitted by the policy itself, so at the deadline the answer says that it could not be confirmed, and why.
     */
    static String awaitGate(KubernetesClient client, Duration deadline) {
        Node probe = new NodeBuilder().withNewMetadata().withName(PROBE_NODE)
                .addToAnnotations(GatePolicy.VERDICT_ANNOTATION, "PROBE").endMetadata().build();
        long start = System.nanoTime();
        String last = "";
        while (true) {
            try {
                client.nodes().resource(probe).dryRun().create();
                last = "a dry-run Node CREATE with a nodegate.io annotation was still admitted (if you are in the "
                        + "operators group, the policy admits it to you: check with another identity)";
            } catch (KubernetesClientException e) {
                if (e.getMessage() != null && e.getMessage().contains("ValidatingAdmissionPolicy '" + GatePolicy.NAME + "'")) {
                    return "enforced: the apiserver refuses with " + GatePolicy.NAME + " (a server-side dry run, after "
                            + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms)";
                }
                // only the informers' lag is worth waiting for: a probe that fails otherwise will fail again
                return "NOT CONFIRMED that the apiserver enforces " + GatePolicy.NAME + ": the dry-run probe failed: "
                        + failure(probe, e);
            }
            if (System.nanoTime() - start > deadline.toNanos()) {
                return "NOT CONFIRMED that the apiserver enforces " + GatePolicy.NAME + " after " + deadline.toSeconds()
                        + " s: " + last;
            }
            try {
                // a pause between probes: the informers catch up within a second or so
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "NOT CONFIRMED that the apiserver enforces " + GatePolicy.NAME + ": interrupted";
            }
        }
    }

    /**
     * What went wrong, in words: a 404 on an apply means the API server does not serve that kind (no
     * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy before Kubernetes 1.30); no HTTP status at all
     * means the call never got an answer, and its cause is named instead of "HTTP -1".
     */
    static String failure(HasMetadata object, KubernetesClientException e) {
        String resource = object.getApiVersion() + " " + HasMetadata.getPlural(object.getClass());
        if (e.getCode() == 404) {
            return "the API server does not serve " + resource + " (HTTP 404"
                    + (object.getKind().startsWith("ValidatingAdmissionPolicy")
                    ? "; ValidatingAdmissionPolicy v1 needs Kubernetes 1.30 or later)"
                    : object.getKind().startsWith("MutatingAdmissionPolicy")
                    ? "; MutatingAdmissionPolicy v1beta1 needs Kubernetes 1.34 with the feature gate"
                    + " MutatingAdmissionPolicy=true and --runtime-config admissionregistration.k8s.io/v1beta1=true)"
                    : ")");
        }
        if (e.getCode() > 0) {
            return "HTTP " + e.getCode() + ": " + e.getMessage();
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return "no answer from the API server for " + resource + ": "
                + (root == e ? e.getMessage() : root.getClass().getSimpleName() + ": " + root.getMessage());
    }

}
