package io.nodegate.bench;

import java.util.Map;

/** Just enough JSON writing for pre-serialised objects; no parser is needed on the server side. */
final class Json {

    private Json() {
    }

    static String q(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    static String map(Map<String, String> m) {
        StringBuilder out = new StringBuilder("{");
        boolean first = true;
        for (Map.Entry<String, String> e : m.entrySet()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            out.append(q(e.getKey())).append(':').append(q(e.getValue()));
        }
        return out.append('}').toString();
    }
}
