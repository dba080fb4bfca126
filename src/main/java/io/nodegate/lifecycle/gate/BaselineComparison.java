package io.nodegate.lifecycle.gate;

import java.util.List;
import java.util.Map;

/**
 * One part of check (d), "cluster unchanged since the baseline": compares one aspect of the cluster now with the
 * baseline minus the targets already removed, adding a line per change and the values it compared.
 */
interface BaselineComparison {

    void compare(GateInput in, BaselineComparisons.Now now, List<String> changes, Map<String, String> evidence);
}
