package io.nodegate.cli;

import picocli.CommandLine;
import picocli.CommandLine.Help.Ansi.Text;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.Column.Overflow;
import picocli.CommandLine.Help.ColorScheme;
import picocli.CommandLine.Help.TextTable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.util.List;

/**
 * Help whose text wraps at spaces only. picocli wraps option descriptions and command descriptions with
 * {@link java.text.BreakIterator}'s line rules, which also break after '.' and '/': a line could end in "~/." and
 * the next start with "kube/config", or split "server-ca.crt", and a reader copying the path got it wrong. Here a
 * line ends only where the text has a space, so a path, a flag or a URL is never cut (one longer than the whole
 * column is the only thing cut, as it must be).
 */
final class WholeWordHelp extends CommandLine.Help {

    /** picocli's indentation of an option description's continuation lines. */
    private static final int WRAPPED_INDENT = 2;

    WholeWordHelp(CommandSpec spec, ColorScheme colorScheme) {
        super(spec, colorScheme);
    }

    /** Every command of the tree prints its help through this class. */
    static void install(CommandLine cl) {
        cl.setHelpFactory(WholeWordHelp::new);
    }

    private int width() {
        return commandSpec().usageMessage().width();
    }

    /** picocli's default layout (its five columns), with a table that wraps the description column at spaces. */
    @Override
    public Layout createDefaultLayout(List<OptionSpec> options, List<PositionalParamSpec> positionals,
                                      ColorScheme scheme) {
        int longOptions = calcLongOptionColumnWidth(options, positionals, scheme);
        TextTable table = new AtSpaces(scheme, WRAPPED_INDENT, new Column(2, 0, Overflow.TRUNCATE),
                new Column(2, 0, Overflow.SPAN), new Column(1, 0, Overflow.TRUNCATE),
                new Column(longOptions, 1, Overflow.SPAN), new Column(width() - 5 - longOptions, 1, Overflow.WRAP));
        table.setAdjustLineBreaksForWideCJKCharacters(
                commandSpec().usageMessage().adjustLineBreaksForWideCJKCharacters());
        return new Layout(scheme, table, createDefaultOptionRenderer(), createDefaultParameterRenderer());
    }

    /** The command's description, wrapped at spaces to the help width. */
    @Override
    public String description(Object... params) {
        String[] lines = commandSpec().usageMessage().description();
        if (lines == null || lines.length == 0) {
            return "";
        }
        TextTable table = new AtSpaces(colorScheme(), 0, new Column(width(), 0, Overflow.WRAP));
        for (String line : lines) {
            String formatted;
            try {
                formatted = params.length == 0 && !line.contains("%") ? line : String.format(line, params);
            } catch (java.util.IllegalFormatException e) {
                formatted = line;
            }
            table.addRowValues(colorScheme().text(formatted));
        }
        return table.toString();
    }

    /** A table whose WRAP columns break lines at spaces (and at line breaks in the text), never inside a word. */
    static final class AtSpaces extends TextTable {
        private final int wrappedIndent;
        private final ColorScheme scheme;

        AtSpaces(ColorScheme scheme, int wrappedIndent, Column... columns) {
            super(scheme, columns);
            this.scheme = scheme;
            this.wrappedIndent = wrappedIndent;
        }

        @Override
        public Cell putValue(int row, int col, Text value) {
            Column column = columns()[col];
            if (value == null || column.overflow != Overflow.WRAP || value.plainString().isEmpty()) {
                return super.putValue(row, col, value);
            }
            String plain = value.plainString();
            int start = 0;
            boolean first = true;
            Cell cell = new Cell(col, row);
            while (start < plain.length()) {
                int room = column.width - column.indent - (first ? 0 : wrappedIndent);
                int end = lineEnd(plain, start, Math.max(1, room));
                Text piece = value.substring(start, end);
                if (!first) {
                    addEmptyRow();
                    row++;
                    piece = scheme.text(" ".repeat(wrappedIndent)).concat(piece);
                }
                // the piece fits the column: picocli writes it whole
                cell = super.putValue(row, col, piece);
                start = end;
                while (start < plain.length() && (plain.charAt(start) == ' ' || plain.charAt(start) == '\n')) {
                    start++;
                }
                first = false;
            }
            return cell;
        }

        /** Where the line that starts at {@code start} ends: before the last space that lets it fit in {@code room}. */
        static int lineEnd(String text, int start, int room) {
            int newline = text.indexOf('\n', start);
            int limit = newline >= 0 ? newline : text.length();
            if (limit - start <= room) {
                return trimEnd(text, start, limit);
            }
            int space = text.lastIndexOf(' ', start + room);
            if (space > start) {
                return trimEnd(text, start, space);
            }
            return start + room; // one word longer than the column: cut, as nothing else can be done
        }

        private static int trimEnd(String text, int start, int end) {
            while (end > start && text.charAt(end - 1) == ' ') {
                end--;
            }
            return end;
        }
    }
}
