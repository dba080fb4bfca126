package io.nodegate.source.json;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads fields of the plain values {@link KubeJson} produces. A field that is absent or JSON null reads as null;
 * a field of the wrong shape (a list where an object belongs) throws {@link JsonReadException} naming the field.
 * Scalars are read as Jackson's default coercion (which fabric8's typed model used) read them: a number or boolean
 * where a string belongs is its text, a numeric string where an integer belongs is its value.
 */
public final class Plain {

    private Plain() {
    }

    /** The object at {@code field}, or null. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> map(Map<String, Object> parent, String field) {
        Object v = parent == null ? null : parent.get(field);
        if (v == null) {
            return null;
        }
        if (v instanceof Map<?, ?> m) {
            return (Map<String, Object>) m;
        }
        throw wrong(field, "an object", v);
    }

    /** The array at {@code field}, or null. */
    @SuppressWarnings("unchecked")
    public static List<Object> list(Map<String, Object> parent, String field) {
        Object v = parent == null ? null : parent.get(field);
        if (v == null) {
            return null;
        }
        if (v instanceof List<?> l) {
            return (List<Object>) l;
        }
        throw wrong(field, "an array", v);
    }

    /** An element of an array that must be an object; null stays null. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> element(Object v, String field) {
        if (v == null || v instanceof Map<?, ?>) {
            return (Map<String, Object>) v;
        }
        throw wrong(field + "[]", "an object", v);
    }

    /** The string at {@code field}, or null (a number or boolean is read as its text). */
    public static String string(Map<String, Object> parent, String field) {
        return text(parent == null ? null : parent.get(field), field);
    }

    /** A scalar as text; null stays null. */
    public static String text(Object v, String field) {
        if (v == null || v instanceof String) {
            return (String) v;
        }
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        throw wrong(field, "a string", v);
    }

    /** The integer at {@code field}, or null. */
    public static Integer integer(Map<String, Object> parent, String field) {
        Object v = parent == null ? null : parent.get(field);
        if (v == null) {
            return null;
        }
        if (v instanceof Long l && l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE) {
            return l.intValue();
        }
        if (v instanceof String s) {
            try {
                return Integer.valueOf(s.trim());
            } catch (NumberFormatException e) {
                throw wrong(field, "an integer", v);
            }
        }
        if (v instanceof Double d && d == Math.rint(d) && Math.abs(d) <= Integer.MAX_VALUE) {
            return d.intValue();
        }
        if (v instanceof Long || v instanceof BigInteger) {
            throw new JsonReadException(field + ": " + v + " is out of the range of an integer", false);
        }
        throw wrong(field, "an integer", v);
    }

    /** The boolean at {@code field}, or null ("true"/"false" strings read as booleans). */
    public static Boolean bool(Map<String, Object> parent, String field) {
        Object v = parent == null ? null : parent.get(field);
        if (v == null || v instanceof Boolean) {
            return (Boolean) v;
        }
        if (v instanceof String s && (s.equals("true") || s.equals("false"))) {
            return Boolean.valueOf(s);
        }
        throw wrong(field, "a boolean", v);
    }

    /** The object of strings at {@code field} (labels, annotations), or null; values read as {@link #text}. */
    public static Map<String, String> stringMap(Map<String, Object> parent, String field) {
        Map<String, Object> m = map(parent, field);
        if (m == null) {
            return null;
        }
        Map<String, String> out = new LinkedHashMap<>(Math.max(4, m.size() * 4 / 3 + 1));
        m.forEach((k, v) -> out.put(k, text(v, field + "." + k)));
        return out;
    }

    private static JsonReadException wrong(String field, String expected, Object got) {
        return new JsonReadException(field + ": expected " + expected + ", got " + shape(got), false);
    }

    static String shape(Object v) {
        if (v instanceof Map<?, ?>) {
            return "an object";
        }
        if (v instanceof List<?>) {
            return "an array";
        }
        if (v instanceof String s) {
            return "the string \"" + (s.length() > 40 ? s.substring(0, 40) + "…" : s) + "\"";
        }
        if (v instanceof Boolean b) {
            return "the boolean " + b;
        }
        return "the number " + v;
    }
}
