package io.nodegate.source.dump;

import io.nodegate.InputException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Finds dump files and parses them into JSON trees. A directory is searched recursively for .json, .yaml and
 * .yml files (sorted by path, so the result does not depend on the file system's order); a file named
 * explicitly is read whatever its extension. A syntax error is an {@link InputException} naming the file,
 * line and column.
 */
public final class DumpFiles {

    private static final ObjectMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
    private static final ObjectMapper YAML = YAMLMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    /** One parsed document and where it came from. */
    public record Document(Path file, int index, JsonNode tree) {
        public String where() {
            return index == 0 ? file.toString() : file + " (document " + (index + 1) + ")";
        }
    }

    private DumpFiles() {
    }

    /** Expands -f arguments into the list of files to read. */
    public static List<Path> expand(List<Path> paths) {
        Set<Path> files = new LinkedHashSet<>();
        for (Path p : paths) {
            if (Files.isDirectory(p)) {
                try (Stream<Path> walk = Files.walk(p)) {
                    walk.filter(Files::isRegularFile).filter(DumpFiles::hasDumpExtension)
                            .sorted(Comparator.comparing(Path::toString)).forEach(files::add);
                } catch (IOException | UncheckedIOException e) {
                    throw new InputException("cannot read directory " + p + ": " + e.getMessage(), e);
                }
            } else if (Files.isRegularFile(p)) {
                files.add(p);
            } else {
                throw new InputException("-f " + p + ": no such file or directory");
            }
        }
        return List.copyOf(files);
    }

    static boolean hasDumpExtension(Path p) {
        String name = p.getFileName().toString().toLowerCase(Locale.ROOT);
        return name.endsWith(".json") || name.endsWith(".yaml") || name.endsWith(".yml");
    }

    /** Parses every document of a file (YAML may hold several, separated by ---). Empty documents are skipped. */
    public static List<Document> parse(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new InputException("cannot read " + file + ": " + e.getMessage(), e);
        }
        boolean json = isJson(file, text);
        List<Document> docs = new ArrayList<>();
        // one root value at a time: readValues would unwrap a root array (etcdctl endpoint status) into items
        ObjectMapper mapper = json ? JSON : YAML;
        try (JsonParser parser = mapper.createParser(text)) {
            int index = 0;
            while (true) {
                JsonNode tree = mapper.readTree(parser);
                if (tree == null) {
                    break;
                }
                if (!tree.isNull() && !tree.isMissingNode()) {
                    docs.add(new Document(file, index, tree));
                }
                index++;
            }
        } catch (JacksonException e) {
            throw new InputException(file + ": malformed " + (json ? "JSON" : "YAML") + at(e) + ": "
                    + detail(e.getOriginalMessage()), e);
        } catch (RuntimeException e) {
            // snakeyaml-engine errors that Jackson did not wrap still carry their mark in the message
            throw new InputException(file + ": malformed " + (json ? "JSON" : "YAML") + ": "
                    + firstLine(e.getMessage()), e);
        }
        return docs;
    }

    private static boolean isJson(Path file, String text) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".json")) {
            return true;
        }
        if (name.endsWith(".yaml") || name.endsWith(".yml")) {
            return false;
        }
        String t = text.stripLeading();
        return t.startsWith("{") || t.startsWith("[");
    }

    private static String at(JacksonException e) {
        TokenStreamLocation loc = e.getLocation();
        if (loc == null || loc.getLineNr() <= 0) {
            return "";
        }
        return " at line " + loc.getLineNr() + (loc.getColumnNr() > 0 ? ", column " + loc.getColumnNr() : "");
    }

    /** The problem lines of a parser message, without snakeyaml's quoted source excerpts and markers. */
    static String detail(String s) {
        if (s == null) {
            return "(no detail)";
        }
        java.util.List<String> lines = new java.util.ArrayList<>();
        for (String line : s.split("\\R")) {
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("in ") || t.startsWith("^") || t.startsWith("at [")
                    || line.startsWith("    ")) {
                continue;
            }
            lines.add(t);
        }
        return lines.isEmpty() ? firstLine(s) : String.join("; ", lines);
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "(no detail)";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
