package io.nodegate.render.controlplane;

import java.util.ArrayList;
import java.util.List;

/** Left-aligned columns separated by two spaces, like kubectl's tables. */
final class TextTable {
    private final List<String[]> rows = new ArrayList<>();

    TextTable(String... header) {
        rows.add(header);
    }

    TextTable row(String... cells) {
        rows.add(cells);
        return this;
    }

    String render() {
        int columns = rows.stream().mapToInt(r -> r.length).max().orElse(0);
        int[] width = new int[columns];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                width[i] = Math.max(width[i], cell(r, i).length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                String c = cell(r, i);
                line.append(c);
                if (i < columns - 1) {
                    line.append(" ".repeat(width[i] - c.length() + 2));
                }
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        return out.toString();
    }

    private static String cell(String[] row, int i) {
        return i < row.length && row[i] != null ? row[i] : "";
    }
}
