package io.nodegate.model;

import java.time.Instant;

/** A kube-node-lease Lease: the kubelet's 10-second heartbeat. renewTime may be null on a broken object. */
public record LeaseInfo(String namespace, String name, String uid, Instant created, String holderIdentity,
                        Instant renewTime, Integer leaseDurationSeconds) {
}
