package io.nodegate.source.dump;

import io.nodegate.InputException;
import io.nodegate.source.json.JsonReadException;
import io.nodegate.source.json.KubeJson;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLFactory;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLParser;
import org.snakeyaml.engine.v2.api.LoadSettings;

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
    /**
     * snakeyaml-engine refuses a document over 3 MB of code points by default; a kubectl YAML of 450 Nodes is
     * already 4.8 MB, and 5,000 Nodes at up to 30 KB each are 150 MB. The limit is set above that.
     */
    static final int YAML_CODE_POINT_LIMIT = 256 * 1024 * 1024;
    private static final ObjectMapper YAML = YAMLMapper.builder(YAMLFactory.builder()
                    .loadSettings(LoadSettings.builder().setCodePointLimit(YAML_CODE_POINT_LIMIT).build()).build())
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
        if (text.isBlank()) {
            throw new InputException(file + ": empty file (no JSON or YAML document in it): a truncated dump or a "
                    + "failed redirect? Collect it again");
        }
        boolean json = isJson(file, text);
        List<Document> docs = new ArrayList<>();
        // one root value at a time: readValues would unwrap a root array (etcdctl endpoint status) into items
        ObjectMapper mapper = json ? JSON : YAML;
        try (JsonParser parser = json ? mapper.createParser(text) : new NoAliases(mapper.createParser(text), file)) {
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
        } catch (InputException e) {
            throw e;
        } catch (JacksonException e) {
            throw new InputException(file + ": malformed " + (json ? "JSON" : "YAML") + at(e) + ": "
                    + detail(e.getOriginalMessage()), e);
        } catch (RuntimeException e) {
            // snakeyaml-engine errors that Jackson did not wrap still carry their mark in the message
            throw new InputException(file + ": malformed " + (json ? "JSON" : "YAML") + ": "
                    + firstLine(e.getMessage()), e);
        }
        if (docs.isEmpty()) {
            throw new InputException(file + ": holds no Kubernetes object (only null or empty documents)");
        }
        return docs;
    }

    /**
     * Streams every root value of a file into {@code handler} ({@link KubeJson#MODEL}: lists item by item, skip rules
     * applied while parsing), without reading the file into memory first: a 200 MB kubectl JSON is parsed straight
     * from the disk. JSON and YAML go through the same reader (the YAML parser is a token stream too, with this
     * class's code-point limit and alias refusal).
     *
     * @throws InputException for an unreadable file, malformed JSON/YAML (with line and column), or a file with no
     *                        root value at all (blank)
     */
    public static void stream(Path file, KubeJson.DocumentHandler handler) {
        String format = isYaml(file) ? "YAML" : "JSON";
        try (java.io.InputStream in = new java.io.BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            boolean json = isJson(file, in);
            format = json ? "JSON" : "YAML";
            int documents;
            try (JsonParser parser = json ? KubeJson.parser(in)
                    : new NoAliases(YAML.createParser(new java.io.InputStreamReader(in, StandardCharsets.UTF_8)), file)) {
                documents = KubeJson.MODEL.readDocuments(parser, file.toString(), handler);
            }
            if (documents == 0) {
                throw new InputException(file + ": empty file (no JSON or YAML document in it): a truncated dump or "
                        + "a failed redirect? Collect it again");
            }
        } catch (IOException e) {
            throw new InputException("cannot read " + file + ": " + e.getMessage(), e);
        } catch (InputException e) {
            throw e;
        } catch (JsonReadException e) {
            throw new InputException("YAML".equals(format) ? e.getMessage().replaceFirst(" JSON ", " YAML ")
                    : e.getMessage(), e);
        } catch (JacksonException e) {
            throw new InputException(file + ": malformed " + format + at(e) + ": " + detail(e.getOriginalMessage()), e);
        } catch (RuntimeException e) {
            // snakeyaml-engine errors that Jackson did not wrap still carry their mark in the message
            throw new InputException(file + ": malformed " + format + ": " + firstLine(e.getMessage()), e);
        }
    }

    /** JSON by extension, else by the first non-blank byte ({ or [); the stream is reset to its start. */
    private static boolean isJson(Path file, java.io.InputStream in) throws IOException {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".json")) {
            return true;
        }
        if (name.endsWith(".yaml") || name.endsWith(".yml")) {
            return false;
        }
        in.mark(1 << 16);
        try {
            int b;
            int read = 0;
            while ((b = in.read()) >= 0 && read++ < (1 << 16) - 1) {
                if (!Character.isWhitespace(b) && b != 0xEF && b != 0xBB && b != 0xBF) {
                    return b == '{' || b == '[';
                }
            }
            return false;
        } finally {
            in.reset();
        }
    }

    private static boolean isYaml(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return !name.endsWith(".json") && (name.endsWith(".yaml") || name.endsWith(".yml"));
    }

    /**
     * Jackson's YAML tree reader does not resolve aliases: {@code status: *t} would arrive as the string "t".
     * kubectl never writes anchors or aliases, so an alias is refused, with its line, rather than read wrong.
     */
    private static final class NoAliases extends tools.jackson.core.util.JsonParserDelegate {
        private final Path file;

        NoAliases(JsonParser parser, Path file) {
            super(parser);
            this.file = file;
        }

        @Override
        public tools.jackson.core.JsonToken nextToken() {
            tools.jackson.core.JsonToken token = super.nextToken();
            if (delegate() instanceof YAMLParser yaml && yaml.isCurrentAlias()) {
                TokenStreamLocation loc = yaml.currentLocation();
                throw new InputException(file + ": YAML alias *" + yaml.getString() + " at line " + loc.getLineNr()
                        + ": nodegate does not resolve YAML anchors and aliases (kubectl never writes them); "
                        + "write the value out, or give the same data as JSON");
            }
            return token;
        }
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
