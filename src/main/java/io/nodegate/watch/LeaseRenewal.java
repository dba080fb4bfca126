package io.nodegate.watch;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.nodegate.model.LeaseInfo;

import java.util.Objects;

/**
 * Tells a Lease heartbeat from a Lease change. A kubelet renews its kube-node-lease Lease every 10 s and the control
 * plane components renew theirs in kube-system every 2 s: at 5,000 nodes that is 500 updates a second, each moving
 * only {@code spec.renewTime} (and with it resourceVersion and managedFields). Such a renewal changes no finding by
 * itself: what it changes is an age, and ages move with the clock anyway, so the watch's every-interval pass sees
 * them. Treating each renewal as a change made the debounced pass run back to back (every ~1.6 s at 5,000 nodes).
 *
 * <p>Everything else is a change: another holder, a new or removed Lease, a different duration, a renewTime that
 * appears or disappears (the model notes a Lease without one), new labels, a deletionTimestamp, fields this
 * version of the client does not know (kept in additionalProperties).
 */
final class LeaseRenewal {

    private LeaseRenewal() {
    }

    /** True when {@code after} differs from {@code before} only in renewTime, resourceVersion or managedFields. */
    static boolean onlyRenewed(HasMetadata before, HasMetadata after) {
        if (!(before instanceof Lease b) || !(after instanceof Lease a)) {
            return false;
        }
        ObjectMeta mb = b.getMetadata();
        ObjectMeta ma = a.getMetadata();
        LeaseSpec sb = b.getSpec();
        LeaseSpec sa = a.getSpec();
        if (mb == null || ma == null || sb == null || sa == null || sb.getRenewTime() == null
                || sa.getRenewTime() == null) {
            return false;
        }
        return Objects.equals(mb.getName(), ma.getName())
                && Objects.equals(mb.getNamespace(), ma.getNamespace())
                && Objects.equals(mb.getUid(), ma.getUid())
                && Objects.equals(mb.getCreationTimestamp(), ma.getCreationTimestamp())
                && Objects.equals(mb.getDeletionTimestamp(), ma.getDeletionTimestamp())
                && Objects.equals(mb.getLabels(), ma.getLabels())
                && Objects.equals(mb.getAnnotations(), ma.getAnnotations())
                && Objects.equals(mb.getOwnerReferences(), ma.getOwnerReferences())
                && Objects.equals(mb.getFinalizers(), ma.getFinalizers())
                && Objects.equals(mb.getAdditionalProperties(), ma.getAdditionalProperties())
                && Objects.equals(sb.getHolderIdentity(), sa.getHolderIdentity())
                && Objects.equals(sb.getLeaseDurationSeconds(), sa.getLeaseDurationSeconds())
                && Objects.equals(sb.getAcquireTime(), sa.getAcquireTime())
                && Objects.equals(sb.getLeaseTransitions(), sa.getLeaseTransitions())
                && Objects.equals(sb.getPreferredHolder(), sa.getPreferredHolder())
                && Objects.equals(sb.getStrategy(), sa.getStrategy())
                && Objects.equals(sb.getAdditionalProperties(), sa.getAdditionalProperties())
                && Objects.equals(b.getAdditionalProperties(), a.getAdditionalProperties());
    }

    /**
     * The model of a renewed Lease from the model of its earlier version: only the renewal time moves. Valid only
     * when {@link #onlyRenewed} holds for the two fabric8 objects (both have a renewTime, so no note changes).
     */
    static LeaseInfo renewed(LeaseInfo earlier, Lease now) {
        return new LeaseInfo(earlier.namespace(), earlier.name(), earlier.uid(), earlier.created(),
                earlier.holderIdentity(), now.getSpec().getRenewTime().toInstant(), earlier.leaseDurationSeconds());
    }
}
