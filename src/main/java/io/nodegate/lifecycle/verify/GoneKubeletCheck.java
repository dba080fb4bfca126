package io.nodegate.lifecycle.verify;

import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.KubeletAnswer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * verify-gone --probe-kubelets: who answers on the kubelet port of each removed target's baseline address. A
 * kubelet with this cluster's certificate means RKE2 still runs there and registers again on its next start
 * (FAIL); another CA means the host now serves another cluster (recorded, not a failure here: nothing came
 * back to this one); silence is what a cleaned-up host gives. Pure.
 */
public final class GoneKubeletCheck {

    public static final String ID = "kubelet-ports";
    public static final String TITLE = "removed targets' kubelet ports do not answer for this cluster";

    private GoneKubeletCheck() {
    }

    public static Check check(List<KubeletAnswer> answers) {
        Map<String, String> ev = new LinkedHashMap<>();
        List<String> reasons = new ArrayList<>();
        for (KubeletAnswer a : answers) {
            ev.put(a.node(), a.target() + ": " + a.outcome().text() + (a.issuer() == null ? "" : " (" + a.issuer() + ")"));
            if (a.outcome() == KubeletAnswer.Outcome.THIS_CLUSTER) {
                reasons.add("removed target " + a.node() + ": a kubelet with this cluster's certificate answers at "
                        + a.target() + ": RKE2 still runs there and registers again on its next start");
            }
        }
        if (answers.isEmpty()) {
            ev.put("probed", "no removed target to probe");
        }
        return new Check(ID, TITLE, reasons.isEmpty() ? Verdict.PASS : Verdict.FAIL, reasons, ev);
    }
}
