package io.nodegate.render;

import io.nodegate.render.output.Style;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A plain aligned table like kubectl's: upper-case headers, columns padded to the widest cell, three spaces
 * between columns. Colour is applied per cell after padding so escape codes never break alignment.
 */
public final class TextTable {

    /** The width every default table (-o table) fits on the examples, as kubectl's fit a 120-column terminal. */
    public static final int FIT = 120;

    private static final String GAP = "   ";

    private final List<String> headers;
    private final List<List<String>> rows = new ArrayList<>();
    private final List<List<UnaryOperator<String>>> styles = new ArrayList<>();

    public TextTable(String... headers) {
        this.headers = List.of(headers);
    }

    public TextTable row(String... cells) {
        return styledRow(Arrays.asList(cells), null);
    }

    /** A row whose cells are decorated (e.g. coloured) after padding; {@code cellStyles} may hold nulls. */
    public TextTable styledRow(List<String> cells, List<UnaryOperator<String>> cellStyles) {
        if (cells.size() != headers.size()) {
            throw new IllegalArgumentException("row has " + cells.size() + " cells, table has " + headers.size()
                    + " columns");
        }
        rows.add(cells.stream().map(c -> c == null ? "" : c).toList());
        styles.add(cellStyles);
        return this;
    }

    public boolean isEmpty() {
        return rows.isEmpty();
    }

    public String render(Style style) {
        return render(style, true);
    }

    /** The rows alone, aligned as under the header (for --no-headers). */
    public String rows(Style style) {
        return render(style, false);
    }

    private String render(Style style, boolean withHeader) {
        int[] widths = new int[headers.size()];
        for (int i = 0; i < headers.size(); i++) {
            widths[i] = withHeader ? headers.get(i).length() : 0;
            for (List<String> row : rows) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        StringBuilder out = new StringBuilder();
        if (withHeader) {
            line(out, headers, null, widths, style, true);
        }
        for (int r = 0; r < rows.size(); r++) {
            line(out, rows.get(r), styles.get(r), widths, style, false);
        }
        return out.toString();
    }

    private static void line(StringBuilder out, List<String> cells, List<UnaryOperator<String>> cellStyles,
                             int[] widths, Style style, boolean header) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            boolean last = i == cells.size() - 1;
            String padded = last ? cells.get(i) : pad(cells.get(i), widths[i]);
            if (header) {
                padded = style.bold(padded);
            } else if (cellStyles != null && cellStyles.get(i) != null) {
                padded = cellStyles.get(i).apply(padded);
            }
            line.append(padded);
            if (!last) {
                line.append(GAP);
            }
        }
        out.append(line.toString().stripTrailing()).append('\n');
    }

    private static String pad(String s, int width) {
        return s + " ".repeat(width - s.length());
    }
}
