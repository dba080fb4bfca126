package io.nodegate.model;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;

/**
 * A Lease: a kubelet's 10-second heartbeat (kube-node-lease), or a kube-system Lease (leader elections, and each
 * kube-apiserver's identity). renewTime may be null on a broken object.
 *
 * @param apiserverHost for a kube-apiserver's identity Lease (label {@code apiserver.kubernetes.io/identity:
 *                      kube-apiserver}), the hostname it is labelled with ({@code kubernetes.io/hostname}); null for
 *                      any other Lease
 */
public record LeaseInfo(String namespace, String name, String uid, Instant created, String holderIdentity,
                        Instant renewTime, Integer leaseDurationSeconds,
                        @JsonInclude(JsonInclude.Include.NON_NULL) String apiserverHost) {

    /** The label kube-apiserver puts on its identity Lease, with the value {@code kube-apiserver}. */
    public static final String APISERVER_IDENTITY_LABEL = "apiserver.kubernetes.io/identity";

    /** A Lease that is no kube-apiserver's identity. */
    public LeaseInfo(String namespace, String name, String uid, Instant created, String holderIdentity,
                     Instant renewTime, Integer leaseDurationSeconds) {
        this(namespace, name, uid, created, holderIdentity, renewTime, leaseDurationSeconds, null);
    }
}
