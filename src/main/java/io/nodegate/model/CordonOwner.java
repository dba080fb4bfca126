package io.nodegate.model;

import java.time.Instant;

/**
 * Who set a Node's {@code spec.unschedulable}, as the API server recorded it: the {@code metadata.managedFields}
 * entry whose {@code fieldsV1} holds {@code f:spec} → {@code f:unschedulable}. Kubernetes has no field for who
 * cordoned a node or why; this entry is the only record of the "who" and "when", and nodegate's annotation
 * {@value #REASON_ANNOTATION} carries the "why".
 *
 * <p>The manager is what the writer sent as {@code fieldManager}, or, when it sent none, the part of its User-Agent
 * before the first '/' (kube-apiserver, {@code staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go},
 * {@code managerOrUserAgent}/{@code prefixFromUserAgent}). kubectl's cordon, uncordon and drain send none
 * ({@code k8s.io/kubectl/pkg/drain/cordon.go}, {@code PatchOrReplaceWithContext}: empty PatchOptions), so their
 * manager is the kubectl binary's file name, {@code kubectl} (client-go {@code rest.DefaultKubernetesUserAgent}).
 * system-upgrade-controller cordons and drains from a Job's init container running kubectl
 * ({@code pkg/upgrade/job/job.go}), so its cordons are recorded as {@code kubectl} too.
 *
 * @param manager   the field manager, as the API server wrote it (data from the cluster: never executed or printed raw)
 * @param operation {@code Update} or {@code Apply}
 * @param time      when the entry was last changed; null when the entry has no time
 */
public record CordonOwner(String manager, String operation, Instant time) {

    /** Why a Node is cordoned, in words: written by nodegate where it cordons, accepted from anyone. */
    public static final String REASON_ANNOTATION = "nodegate.io/cordon-reason";
}
