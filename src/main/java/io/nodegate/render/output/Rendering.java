package io.nodegate.render.output;

import io.nodegate.render.output.Style;

/**
 * How to print beyond the format: colour (tables only, and only for a terminal), and --no-headers (the rows of a
 * list alone, for {@code awk} and {@code while read}).
 */
public record Rendering(Style style, boolean noHeaders) {

    public static final Rendering PLAIN = new Rendering(Style.PLAIN, false);
}
