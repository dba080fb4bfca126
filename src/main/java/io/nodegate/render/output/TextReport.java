package io.nodegate.render.output;

import io.nodegate.render.output.Style;

/** A report for people: -o table (fits 120 columns on the examples) and -o wide (more columns, as kubectl's). */
public interface TextReport {

    String text(Style style, boolean wide);
}
