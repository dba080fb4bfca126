package io.nodegate.render.output;

import tools.jackson.core.JsonGenerator;

/**
 * A {@link TreeReport} whose JSON can be written piece by piece as it is made, never held whole: an audit of 20,000
 * Nodes is 16 MB of JSON, and its tree several times that, built at the end of the run beside the model it was made
 * from. {@code -o json} writes {@link #writeJson} when {@link #streamable()}, else {@link #tree()}; both must give the
 * same text.
 */
public interface StreamedJson extends TreeReport {

    /**
     * Whether {@link #writeJson} gives exactly {@link #tree()}'s text: every value is one {@link Structured#writable}
     * accepts. When false, the tree is written (through the mapper where it must be).
     */
    boolean streamable();

    /** Writes the report's one JSON document through {@code g} (made by {@link Structured}, pretty-printed). */
    void writeJson(JsonGenerator g);
}
