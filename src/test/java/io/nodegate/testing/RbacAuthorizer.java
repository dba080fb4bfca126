package io.nodegate.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Kubernetes RBAC for tests: decides whether the emitted ClusterRole and Roles allow one HTTP request, the way
 * kube-apiserver does. The request is first turned into request attributes as apiserver's RequestInfoFactory
 * does (staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go): /api/v1 or /apis/GROUP/VERSION,
 * optional namespaces/NS, resource, name, subresource; GET on a collection is {@code list} ({@code watch} with
 * watch=true), on a name {@code get}; POST create, PUT update, PATCH patch, DELETE delete (deletecollection
 * without a name). Anything else is a non-resource URL. Then the rules are matched as in
 * plugin/pkg/auth/authorizer/rbac/rbac.go: a ClusterRole's rules apply everywhere, a Role's only in its
 * namespace; {@code resourceNames} never matches a request without a name (list, create).
 *
 * <p>Authorization happens before routing, so a request for a resource the cluster does not serve (MetalLB
 * not installed) is still denied when no rule grants it: the test server's 404 does not excuse it.
 */
public final class RbacAuthorizer {

    /** The attributes RBAC decides on. {@code path} is set for non-resource requests only. */
    public record Attributes(String verb, String namespace, String group, String resource, String subresource,
                             String name, String path) {
        public boolean resourceRequest() {
            return path == null;
        }

        @Override
        public String toString() {
            if (!resourceRequest()) {
                return verb + " " + path;
            }
            return verb + " " + (group.isEmpty() ? "core" : group) + "/" + resource
                    + (subresource == null ? "" : "/" + subresource) + (name == null ? "" : " " + name)
                    + (namespace == null ? " (cluster-wide)" : " in " + namespace);
        }
    }

    private record Grant(String namespace, PolicyRule rule) {
    }

    private final List<Grant> grants = new ArrayList<>();

    /** Every ClusterRole and Role in {@code objects}; bindings are assumed to bind them to the caller. */
    public RbacAuthorizer(List<HasMetadata> objects) {
        for (HasMetadata o : objects) {
            if (o instanceof ClusterRole cr && cr.getRules() != null) {
                cr.getRules().forEach(r -> grants.add(new Grant(null, r)));
            } else if (o instanceof Role role && role.getRules() != null) {
                role.getRules().forEach(r -> grants.add(new Grant(role.getMetadata().getNamespace(), r)));
            }
        }
    }

    /** A request log line "METHOD /path?query" (as {@link ApiTestServer#requestLog()} records it). */
    public static Attributes attributes(String logLine) {
        int sp = logLine.indexOf(' ');
        String method = logLine.substring(0, sp).toUpperCase();
        URI uri = URI.create("http://server" + logLine.substring(sp + 1));
        String query = uri.getRawQuery() == null ? "" : uri.getRawQuery();
        List<String> seg = new ArrayList<>();
        for (String s : uri.getRawPath().split("/")) {
            if (!s.isEmpty()) {
                seg.add(s);
            }
        }
        String group;
        List<String> rest;
        if (seg.size() >= 3 && "api".equals(seg.get(0))) {
            group = "";
            rest = seg.subList(2, seg.size());
        } else if (seg.size() >= 4 && "apis".equals(seg.get(0))) {
            group = seg.get(1);
            rest = seg.subList(3, seg.size());
        } else {
            return new Attributes(method.toLowerCase(), null, null, null, null, null, uri.getRawPath());
        }
        String namespace = null;
        // /api/v1/namespaces/NAME is the Namespace object itself, not something inside it
        if (rest.size() >= 3 && "namespaces".equals(rest.get(0))) {
            namespace = rest.get(1);
            rest = rest.subList(2, rest.size());
        }
        String resource = rest.get(0);
        String name = rest.size() > 1 ? rest.get(1) : null;
        String sub = rest.size() > 2 ? rest.get(2) : null;
        boolean watch = query.contains("watch=true") || query.contains("watch=1");
        String verb = switch (method) {
            case "GET", "HEAD" -> name != null ? "get" : watch ? "watch" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> name != null ? "delete" : "deletecollection";
            default -> method.toLowerCase();
        };
        return new Attributes(verb, namespace, group, resource, sub, name, null);
    }

    /** The rule that allows the request, if any. */
    public Optional<PolicyRule> allowedBy(Attributes a) {
        for (Grant g : grants) {
            if (a.resourceRequest() && g.namespace() != null && !g.namespace().equals(a.namespace())) {
                continue;
            }
            if (matches(g.rule(), a)) {
                return Optional.of(g.rule());
            }
        }
        return Optional.empty();
    }

    public boolean allows(String logLine) {
        return allowedBy(attributes(logLine)).isPresent();
    }

    private static boolean matches(PolicyRule r, Attributes a) {
        if (!has(r.getVerbs(), a.verb())) {
            return false;
        }
        if (!a.resourceRequest()) {
            for (String u : nonNull(r.getNonResourceURLs())) {
                if (u.equals(a.path()) || u.endsWith("*") && a.path().startsWith(u.substring(0, u.length() - 1))) {
                    return true;
                }
            }
            return false;
        }
        String resource = a.subresource() == null ? a.resource() : a.resource() + "/" + a.subresource();
        if (!has(r.getApiGroups(), a.group()) || !has(r.getResources(), resource)) {
            return false;
        }
        List<String> names = nonNull(r.getResourceNames());
        return names.isEmpty() || a.name() != null && names.contains(a.name());
    }

    private static boolean has(List<String> values, String wanted) {
        List<String> v = nonNull(values);
        return v.contains("*") || v.contains(wanted);
    }

    private static List<String> nonNull(List<String> l) {
        return l == null ? List.of() : l;
    }
}
