package io.nodegate.handover;

import java.util.List;

/**
 * The checks of one hand-over step, as a gate check is one class: pure, the hand-over, the step's claim (what the
 * person records, or recorded; null when the step is not recorded) and one {@link HandoverReading} go in, checks
 * come out. {@link HandoverChecks} holds one per {@link Step}.
 */
interface StepChecks {

    Step step();

    List<StepCheck> check(NodeHandover h, StepRecord claim, HandoverReading r);
}
