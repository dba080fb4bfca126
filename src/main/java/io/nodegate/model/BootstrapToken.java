package io.nodegate.model;

import java.time.Instant;
import java.util.List;

/**
 * What nodegate keeps of one bootstrap token Secret ({@code kube-system/bootstrap-token-<id>}, type
 * {@code bootstrap.kubernetes.io/token}, written by {@code k3s token create} and {@code kubeadm token create}): its
 * name, when it was created, and the three data keys the API server's bootstrap token authenticator decides by. The
 * token's secret half ({@code token-secret}) is never read into memory: there is no field for it.
 *
 * <p>The authenticator's rules (kubernetes {@code plugin/pkg/auth/authenticator/token/bootstrap/bootstrap.go} and
 * {@code staging/src/k8s.io/cluster-bootstrap/util/secrets/secrets.go}): a Secret being deleted is refused; the
 * Secret must say {@code usage-bootstrap-authentication: "true"}; an {@code expiration} (RFC 3339) in the past, or
 * one that does not parse ("Treating as expired"), refuses it; no {@code expiration} at all never expires
 * ({@code k3s token create --ttl 0}).
 *
 * @param secret          the Secret's name
 * @param created         its creationTimestamp (null when the server sent none)
 * @param expiration      data.expiration, parsed; null when absent or unparsable
 * @param expirationText  data.expiration as written (decoded from base64), or null when the key is absent
 * @param authentication  data.usage-bootstrap-authentication is "true"
 * @param deleting        metadata.deletionTimestamp is set
 * @param groups          data.auth-extra-groups, split on commas
 */
public record BootstrapToken(String secret, Instant created, Instant expiration, String expirationText,
                             boolean authentication, boolean deleting, List<String> groups) {

    public static final String TYPE = "bootstrap.kubernetes.io/token";
    public static final String NAME_PREFIX = "bootstrap-token-";

    public BootstrapToken {
        groups = groups == null ? List.of() : List.copyOf(groups);
    }

    /** Whether a host presenting this token is authenticated at {@code now}, by the authenticator's rules. */
    public boolean accepted(Instant now) {
        if (deleting || !authentication) {
            return false;
        }
        if (expirationText == null) {
            return true;
        }
        return expiration != null && expiration.isAfter(now);
    }

    /** Why it is refused, or null when it is accepted. */
    public String refusal(Instant now) {
        if (deleting) {
            return "being deleted";
        }
        if (!authentication) {
            return "not usable for authentication (usage-bootstrap-authentication is not \"true\")";
        }
        if (expirationText != null && expiration == null) {
            return "expiration '" + expirationText + "' does not parse: the API server treats it as expired";
        }
        if (expiration != null && !expiration.isAfter(now)) {
            return "expired " + expiration;
        }
        return null;
    }
}
