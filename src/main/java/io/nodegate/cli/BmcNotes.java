package io.nodegate.cli;

import io.nodegate.model.ClusterState;
import io.nodegate.model.BmcBinding;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** The lines an audit's notes get about the BMCs it asked, so a report says what was and was not read. */
final class BmcNotes {

    private BmcNotes() {
    }

    /** Adds the BMC notes to {@code notes}; returns what makes the reading incomplete (a failed BMC, a UUID conflict). */
    static List<String> add(ClusterState state, List<String> notes) {
        BmcBinding binding = BmcBinding.bind(state.nodes(), state.bmc());
        Map<String, Long> verdicts = new TreeMap<>(binding.byNode().values().stream()
                .collect(Collectors.groupingBy(p -> p.verdict().label(), Collectors.counting())));
        int systems = state.bmc().bmcs().stream().mapToInt(r -> r.systems().size()).sum();
        notes.add("BMCs asked over Redfish: " + state.bmc().bmcs().size() + " (" + systems + " systems); Nodes: "
                + verdicts.entrySet().stream().map(e -> e.getValue() + " " + e.getKey())
                .collect(Collectors.joining(", ")));
        List<String> problems = binding.problems(state.bmc());
        problems.forEach(p -> notes.add("unreadable (never evidence either way): " + p));
        binding.duplicates().stream().filter(d -> d.nodes().isEmpty())
                .forEach(d -> notes.add(d.describe() + " (reported, not a failed collection)"));
        long unbound = binding.unbound().size();
        if (unbound > 0) {
            notes.add(unbound + " BMC system(s) bound to no Node (see `nodegate bmc`)");
        }
        return problems;
    }
}
