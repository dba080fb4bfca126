package io.nodegate.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Label and field selector matching as kube-apiserver does it (the subset clients send). */
final class Selectors {

    private static final Map<String, Set<String>> FIELDS = Map.of(
            "pods", Set.of("metadata.name", "metadata.namespace", "spec.nodeName", "status.phase"),
            "secrets", Set.of("metadata.name", "metadata.namespace", "type"));

    private Selectors() {
    }

    /** Each requirement as {key, op, values...}; op one of =, !=, exists, !exists, in, notin. */
    static List<String[]> parseLabels(String selector) {
        List<String[]> out = new ArrayList<>();
        for (String part : splitTopLevel(selector)) {
            String s = part.trim();
            if (s.isEmpty()) {
                continue;
            }
            if (s.matches("[^\\s!=(),]+\\s+(in|notin)\\s*\\(.*\\)")) {
                String[] kv = s.split("\\s+", 2);
                String op = kv[1].startsWith("notin") ? "notin" : "in";
                String inner = kv[1].substring(kv[1].indexOf('(') + 1, kv[1].lastIndexOf(')'));
                List<String> r = new ArrayList<>(List.of(kv[0], op));
                Arrays.stream(inner.split(",")).map(String::trim).forEach(r::add);
                out.add(r.toArray(String[]::new));
            } else if (s.contains("!=")) {
                String[] kv = s.split("!=", 2);
                out.add(new String[]{kv[0].trim(), "!=", kv[1].trim()});
            } else if (s.contains("=")) {
                String[] kv = s.split("==?", 2);
                out.add(new String[]{kv[0].trim(), "=", kv[1].trim()});
            } else if (s.startsWith("!")) {
                out.add(new String[]{s.substring(1).trim(), "!exists"});
            } else if (s.matches("[A-Za-z0-9./_-]+")) {
                out.add(new String[]{s, "exists"});
            } else {
                throw new IllegalArgumentException("unable to parse requirement: " + s);
            }
        }
        return out;
    }

    static boolean matches(List<String[]> reqs, Map<String, String> labels) {
        for (String[] r : reqs) {
            String v = labels.get(r[0]);
            boolean ok = switch (r[1]) {
                case "=" -> r[2].equals(v);
                case "!=" -> !r[2].equals(v);
                case "exists" -> v != null;
                case "!exists" -> v == null;
                case "in" -> v != null && Arrays.asList(r).subList(2, r.length).contains(v);
                case "notin" -> v == null || !Arrays.asList(r).subList(2, r.length).contains(v);
                default -> false;
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    static Map<String, String> parseFields(String selector, String plural) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String part : selector.split(",")) {
            String s = part.trim();
            if (s.isEmpty()) {
                continue;
            }
            if (s.contains("!=")) {
                throw new IllegalArgumentException("the benchmark server supports only field equality: " + s);
            }
            String[] kv = s.split("==?", 2);
            if (kv.length != 2) {
                throw new IllegalArgumentException("invalid field selector: " + s);
            }
            String key = kv[0].trim();
            Set<String> allowed = FIELDS.getOrDefault(plural, Set.of("metadata.name", "metadata.namespace"));
            if (!allowed.contains(key)) {
                throw new IllegalArgumentException("field label not supported: " + key);
            }
            out.put(key, kv[1].trim());
        }
        return out;
    }

    static boolean matchesFields(Map<String, String> reqs, Item item) {
        for (Map.Entry<String, String> r : reqs.entrySet()) {
            String actual = r.getKey().equals("metadata.namespace") ? item.namespace() : item.fields().get(r.getKey());
            if (!r.getValue().equals(actual)) {
                return false;
            }
        }
        return true;
    }

    private static List<String> splitTopLevel(String s) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        StringBuilder cur = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            }
            if (c == ',' && depth == 0) {
                out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        out.add(cur.toString());
        return out;
    }
}
