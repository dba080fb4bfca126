package io.nodegate.model.alertmanager;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One silence matcher, in Alertmanager API v2's shape (prometheus/alertmanager api/v2/openapi.yaml, definitions
 * {@code matcher}: name, value, isRegex, isEqual with isEqual defaulting to true). Regular expressions are anchored
 * at both ends, as Alertmanager anchors them.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record AmMatcher(String name, String value, @JsonProperty("isRegex") boolean isRegex,
                        @JsonProperty("isEqual") Boolean isEqual) {

    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Pattern PARSE = Pattern.compile("\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*(.*?)\\s*");

    public AmMatcher {
        isEqual = isEqual == null ? Boolean.TRUE : isEqual;
    }

    @JsonIgnore
    public boolean equal() {
        return !Boolean.FALSE.equals(isEqual);
    }

    /** Whether an alert's labels satisfy this matcher (a missing label is the empty string, as in Alertmanager). */
    public boolean matches(Map<String, String> labels) {
        String actual = labels.getOrDefault(name, "");
        boolean hit;
        if (isRegex) {
            try {
                hit = Pattern.compile("^(?:" + value + ")$").matcher(actual).matches();
            } catch (PatternSyntaxException e) {
                hit = false;
            }
        } else {
            hit = value.equals(actual);
        }
        return equal() == hit;
    }

    /** Same matcher (name, value, regex flag and sense): how a changed silence is told from the one nodegate set. */
    public boolean sameAs(AmMatcher other) {
        return name.equals(other.name) && value.equals(other.value) && isRegex == other.isRegex
                && equal() == other.equal();
    }

    /** The matcher as Prometheus writes it: {@code node=~"gpu-a07|gpu-a08"}. */
    @Override
    public String toString() {
        String op = isRegex ? (equal() ? "=~" : "!~") : (equal() ? "=" : "!=");
        return name + op + "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /**
     * Parses one matcher as amtool and Prometheus write it: {@code name="value"}, {@code name=~"regex"},
     * {@code name!="value"}, {@code name!~"regex"} (the quotes may be left out).
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static AmMatcher parse(String text) {
        var m = PARSE.matcher(text == null ? "" : text);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a matcher: write it as name=\"value\", "
                    + "name=~\"regex\", name!=\"value\" or name!~\"regex\"");
        }
        String name = m.group(1);
        String op = m.group(2);
        String value = m.group(3);
        if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
            value = value.substring(1, value.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
        }
        boolean regex = op.endsWith("~");
        if (regex) {
            try {
                Pattern.compile(value);
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("'" + text + "': the regular expression does not compile: "
                        + e.getDescription());
            }
        }
        if (!LABEL_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("'" + text + "': '" + name + "' is not a label name");
        }
        return new AmMatcher(name, value, regex, !op.startsWith("!"));
    }
}
