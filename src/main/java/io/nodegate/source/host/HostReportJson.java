package io.nodegate.source.host;

import io.nodegate.InputException;
import io.nodegate.model.host.HostReport;
import io.nodegate.source.InputFiles;
import io.nodegate.source.json.ParseErrors;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.TreeSet;

/**
 * The host report on disk. Its sha256 is taken over the canonical body: the report without its sha256 field,
 * object keys sorted, no whitespace, UTF-8. Anyone can recompute it (`jq -cS 'del(.sha256)' FILE | tr -d '\n' | sha256sum`
 * gives the same digest), so an edited report is caught by the gate.
 */
public final class HostReportJson {

    private static final JsonMapper COMPACT = JsonMapper.builder().build();
    private static final JsonMapper PRETTY = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private HostReportJson() {
    }

    /** The report with its sha256 set. */
    public static HostReport seal(HostReport report) {
        ObjectNode body = COMPACT.valueToTree(report.withSha256(null));
        body.remove("sha256");
        return report.withSha256(sha256(canonicalBody(body)));
    }

    /** Pretty JSON of a sealed report, fields in the report's order, ending with a newline. */
    public static String write(HostReport sealed) {
        return PRETTY.writeValueAsString(sealed) + "\n";
    }

    public static JsonNode tree(HostReport sealed) {
        return COMPACT.valueToTree(sealed);
    }

    /**
     * A report as read from disk, with the sha256 recomputed over its body (equal to its own when intact) and the
     * text as read (kept in the evidence byte for byte: the file is never read a second time, so what is kept is
     * what was judged).
     */
    public record Loaded(HostReport report, Path file, String actualSha256, String text) {
        public boolean intact() {
            return actualSha256.equals(report.sha256());
        }
    }

    /**
     * Reads a report written by `host inspect` and checks it: kind, schema version, and that its sha256 matches
     * its body. Anything else is an input error naming the file and what is wrong.
     */
    public static HostReport read(Path file) {
        Loaded loaded = load(file);
        if (!loaded.intact()) {
            throw new InputException("host report " + file + ": sha256 " + loaded.report().sha256()
                    + " does not match its body (" + loaded.actualSha256() + "): the report was changed after "
                    + "`host inspect` wrote it");
        }
        return loaded.report();
    }

    /**
     * Reads a report without refusing a broken sha256 (the gate records that as INVALID evidence rather than
     * stopping); an unreadable file, non-JSON, another kind or another schema version is an input error.
     */
    public static Loaded load(Path file) {
        String text = InputFiles.readString(file, "host report", InputFiles.RECORD);
        JsonNode tree;
        try {
            tree = COMPACT.readTree(text);
        } catch (JacksonException e) {
            throw new InputException("host report " + file + " is not JSON" + ParseErrors.at(e) + " ("
                    + ParseErrors.problem(e) + ")");
        }
        if (tree == null || !tree.isObject() || !HostReport.KIND.equals(tree.path("kind").asString(null))) {
            throw new InputException("host report " + file + " is not a host report (kind must be "
                    + HostReport.KIND + "; write one with `nodegate host inspect --out FILE` on the host)");
        }
        int version = tree.path("schemaVersion").asInt(-1);
        if (version != HostReport.SCHEMA_VERSION) {
            throw new InputException("host report " + file + " has schemaVersion " + tree.path("schemaVersion")
                    + "; this nodegate reads version " + HostReport.SCHEMA_VERSION);
        }
        ObjectNode body = ((ObjectNode) tree).deepCopy();
        body.remove("sha256");
        String actual = sha256(canonicalBody(body));
        HostReport report;
        try {
            report = COMPACT.treeToValue(tree, HostReport.class);
        } catch (JacksonException | IllegalArgumentException e) {
            throw new InputException("host report " + file + " does not have the report's shape: " + e.getMessage(), e);
        }
        if (report.sha256() == null || report.identity() == null || report.config() == null
                || report.verdict() == null || report.leftovers() == null || report.inspectedAt() == null) {
            throw new InputException("host report " + file + " lacks sha256, identity, config, leftovers, verdict or "
                    + "inspectedAt");
        }
        return new Loaded(report, file, actual, text);
    }

    static byte[] canonicalBody(JsonNode body) {
        return COMPACT.writeValueAsString(sorted(body)).getBytes(StandardCharsets.UTF_8);
    }

    private static JsonNode sorted(JsonNode node) {
        if (node.isObject()) {
            ObjectNode out = JsonNodeFactory.instance.objectNode();
            TreeSet<String> names = new TreeSet<>(node.propertyNames());
            for (String n : names) {
                out.set(n, sorted(node.get(n)));
            }
            return out;
        }
        if (node.isArray()) {
            var out = JsonNodeFactory.instance.arrayNode();
            node.forEach(e -> out.add(sorted(e)));
            return out;
        }
        return node;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
