package io.nodegate.render.output;

import io.nodegate.render.output.Style;

import java.util.List;

/**
 * A report whose main part is a list of named things (Nodes, hosts, hand-overs, manifests): -o name prints one
 * {@code kind/name} per line, as kubectl's name printer does ({@code node/gpu-a07},
 * {@code deployment.apps/nodegate-watch}; kubernetes cli-runtime {@code pkg/printers/name.go}), and --no-headers
 * prints the list's rows alone: no header line, no source line, no findings block.
 */
public interface ListReport extends TextReport {

    /** {@code kind/name} (or {@code kind.group/name}) per listed thing, in the table's order. */
    List<String> names();

    /** The list's rows as the table (or wide table) prints them, without the header line or anything else. */
    String rows(Style style, boolean wide);
}
