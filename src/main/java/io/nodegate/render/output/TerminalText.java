package io.nodegate.render.output;

/**
 * What the table formats (table, wide, name) print is for a terminal, and it holds names, labels and messages
 * read from a cluster, an Alertmanager or a BMC: data that may carry control characters. A Node name or an alert
 * label with an escape sequence must not move the cursor, clear the screen, retitle the window or write the
 * clipboard, so every control character is shown escaped ({@code \x1b}), as are the Unicode controls that reorder
 * text (bidirectional overrides). Line breaks between the lines of the output are kept; json and yaml are not
 * touched (their encoders escape control characters as the formats define).
 */
public final class TerminalText {

    private TerminalText() {
    }

    public static String escape(String text) {
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n' || !control(c)) {
                if (out != null) {
                    out.append(c);
                }
                continue;
            }
            if (out == null) {
                out = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            out.append(c <= 0xff ? String.format("\\x%02x", (int) c) : String.format("\\u%04x", (int) c));
        }
        return out == null ? text : out.toString();
    }

    /** C0 and C1 controls, DEL, and the bidirectional embedding, override and isolate characters. */
    private static boolean control(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= '\u202a' && c <= '\u202e')
                || (c >= '\u2066' && c <= '\u2069');
    }
}
