package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.nodegate.CollectionException;
import io.nodegate.source.kube.ApiCalls;

import java.util.ArrayList;
import java.util.List;

/** Server-side applies the bundle with field manager "nodegate"; a second apply is a no-op. */
public final class PolicyApplier {

    public static final String FIELD_MANAGER = "nodegate";

    /** What was applied and what was left out (and why), for the command to print. */
    public record Result(List<String> applied, List<String> skipped) {
    }

    private PolicyApplier() {
    }

    public static Result apply(KubernetesClient client, PolicyBundle bundle) {
        return apply(ApiCalls.of(client), bundle);
    }

    /** Reads over the connection's lean layer; the server-side applies go through its fabric8 client. */
    public static Result apply(ApiCalls calls, PolicyBundle bundle) {
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
        return new Result(applied, skipped);
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
                    ? "; ValidatingAdmissionPolicy v1 needs Kubernetes 1.30 or later)" : ")");
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
