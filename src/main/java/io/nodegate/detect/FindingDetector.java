package io.nodegate.detect;

/**
 * What every detector is, whatever it reads (one snapshot, several views of one cluster, a fleet, probe answers):
 * the one {@link FindingCode} row whose findings it raises. Binding by the typed row, not by a string, is what lets
 * the registry check that every code has exactly one detector, its doc section and its test.
 */
public interface FindingDetector {

    /** The catalogue row this detector raises. */
    FindingCode code();

    /** The short kebab-case name that goes with the code, e.g. "node-unknown": the row's title. */
    default String name() {
        return code().title();
    }
}
