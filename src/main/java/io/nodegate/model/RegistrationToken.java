package io.nodegate.model;

import java.time.Instant;

/**
 * What nodegate keeps of one Rancher {@code ClusterRegistrationToken} ({@code management.cattle.io/v3}, namespaced in
 * the downstream cluster's management namespace {@code c-xxxxx} / {@code c-m-xxxxxxxx}; Rancher creates
 * {@code default-token} there for every cluster): the token behind the cluster's registration command, the one a
 * custom node's {@code system-agent-install.sh --token ...} presents. Metadata and the facts that say how long the token
 * is accepted; there is no field for the token or for any of the commands and URLs that carry it.
 *
 * <p>Where the token lives, from rancher/rancher {@code pkg/apis/management.cattle.io/v3/cluster_types.go}
 * (ClusterRegistrationTokenStatus) and {@code pkg/controllers/dashboard/clusterregistrationtoken/}: before Rancher
 * 2.13.8, 2.14.4 and 2.15.0 in {@code status.token} and spelled out in {@code status.command}, {@code insecureCommand},
 * {@code nodeCommand}, {@code insecureNodeCommand}, {@code windowsNodeCommand}, {@code insecureWindowsNodeCommand} and
 * {@code manifestUrl}; since those releases in the Secret {@code crt-token-<name>} ({@code status.tokenSecretName}, data keys
 * {@code token} and, for the grace period after a rotation, {@code previousToken}), the commands carrying a
 * {@code {token}} placeholder. Rancher accepts a token found in either key of such a Secret, whatever the time
 * ({@code pkg/capr/configserver/custom.go} findMachineByClusterToken): the expiry below is when Rancher's controller
 * rotates it, not a check at registration.
 *
 * @param namespace            the management namespace
 * @param name                 the object's name ({@code default-token})
 * @param clusterName          {@code spec.clusterName} (the management cluster ID)
 * @param created              metadata.creationTimestamp, or null
 * @param deleting             metadata.deletionTimestamp is set
 * @param ttlMinutes           {@code spec.ttl} in minutes (2.13.8+), null when unset (the {@code crt-default-ttl-minutes}
 *                             setting then applies); 0 or less never rotates
 * @param tokenSecretName      {@code status.tokenSecretName} (2.13.8+), or null
 * @param expiresAt            {@code status.expiresAt}: when the controller rotates the token; null when it never does
 *                             (older releases, or TTL rotation off: the feature {@code crt-token-ttl-rotation},
 *                             default off in 2.13.8 and 2.14.4, on since 2.15.0 with a 30-day TTL)
 * @param expiresAtText        {@code status.expiresAt} as written (null when absent); set with a null expiresAt when it
 *                             does not parse
 * @param gracePeriodEndsAt    {@code status.gracePeriodExpiresAt}: after a rotation, the previous token is accepted
 *                             until then; null outside a grace period
 * @param tokenInStatus        {@code status.token} is non-empty (the older shape): only its length was looked at
 */
public record RegistrationToken(String namespace, String name, String clusterName, Instant created, boolean deleting,
                                Long ttlMinutes, String tokenSecretName, Instant expiresAt, String expiresAtText,
                                Instant gracePeriodEndsAt, boolean tokenInStatus) {

    public static final String API_VERSION = "management.cattle.io/v3";
    public static final String DEFAULT_NAME = "default-token";

    /** Whether the controller rotates it at all (an expiry is set). */
    public boolean rotates() {
        return expiresAt != null || expiresAtText != null;
    }

    /** Whether it holds a token at all: a Secret named, or one in status (an object Rancher has not reconciled has neither). */
    public boolean holdsToken() {
        return tokenSecretName != null || tokenInStatus;
    }
}
