package io.nodegate.source.dump;

import io.nodegate.InputException;
import io.nodegate.NodegateException;
import io.nodegate.source.InputFiles;
import io.nodegate.source.YamlAliases;
import io.nodegate.source.json.JsonReadException;
import io.nodegate.source.json.KubeJson;
import io.nodegate.source.json.ParseErrors;
import org.snakeyaml.engine.v2.api.LoadSettings;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLFactory;
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
                    for (Path f : walk.filter(DumpFiles::hasDumpExtension).filter(f -> !Files.isDirectory(f))
                            .sorted(Comparator.comparing(Path::toString)).toList()) {
                        if (!Files.isRegularFile(f)) {
                            // a pipe named nodes.json is not skipped in silence: that would read as "no Nodes"
                            throw new InputException("-f " + p + ": " + f + " is " + InputFiles.kind(f) + ", not a "
                                    + "regular file: nodegate reads only regular files");
                        }
                        files.add(f);
                    }
                } catch (IOException | UncheckedIOException e) {
                    throw new InputException("cannot read directory " + p + ": " + e.getMessage(), e);
                }
            } else if (Files.isRegularFile(p)) {
                files.add(p);
            } else if (p.equals(Path.of("-"))) {
                // commands that read standard input (audit, collect's readers) replace "-" before they get here
                throw new InputException("-f -: this command does not read standard input (fleet reads one dump "
                        + "directory or file per cluster and names the cluster after it); save the dump to a file and "
                        + "pass its path");
            } else if (Files.exists(p)) {
                throw new InputException("-f " + p + " is " + InputFiles.kind(p) + ", not a regular file or a "
                        + "directory: nodegate reads only regular files (a pipe or a device could block or never end)");
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
        String text = InputFiles.readString(file, "-f", InputFiles.DUMP_WHOLE);
        if (text.isBlank()) {
            throw new InputException(file + ": empty file (no JSON or YAML document in it): a truncated dump or a "
                    + "failed redirect? Collect it again");
        }
        boolean json = isJson(file, text);
        List<Document> docs = new ArrayList<>();
        // one root value at a time: readValues would unwrap a root array (etcdctl endpoint status) into items
        ObjectMapper mapper = json ? JSON : YAML;
        try (JsonParser parser = json ? mapper.createParser(text)
                : YamlAliases.refusing(mapper.createParser(text), file.toString())) {
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
        } catch (NodegateException e) {
            throw e;
        } catch (RuntimeException e) {
            // never the parser's excerpt of the line: a dump may hold a token (ParseErrors)
            throw new InputException(file + ": malformed " + (json ? "JSON" : "YAML") + ParseErrors.at(e) + ": "
                    + ParseErrors.problem(e));
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
        stream(file, KubeJson.MODEL, handler);
    }

    /** As {@link #stream(Path, KubeJson.DocumentHandler)} with another reader ({@link KubeJson#MODEL_UNTRIMMED}). */
    static void stream(Path file, KubeJson reader, KubeJson.DocumentHandler handler) {
        String format = isYaml(file) ? "YAML" : "JSON";
        try (java.io.InputStream in = new java.io.BufferedInputStream(
                InputFiles.open(file, "-f", InputFiles.DUMP_STREAM), 1 << 16)) {
            boolean json = isJson(file, in);
            format = json ? "JSON" : "YAML";
            int documents;
            try (JsonParser parser = json ? KubeJson.parser(in)
                    : YamlAliases.refusing(YAML.createParser(new java.io.InputStreamReader(in, StandardCharsets.UTF_8)),
                    file.toString())) {
                documents = reader.readDocuments(parser, file.toString(), handler);
            }
            if (documents == 0) {
                throw new InputException(file + ": empty file (no JSON or YAML document in it): a truncated dump or "
                        + "a failed redirect? Collect it again");
            }
        } catch (IOException e) {
            throw new InputException("cannot read " + file + ": " + e.getMessage(), e);
        } catch (NodegateException e) {
            throw e;
        } catch (JsonReadException e) {
            throw new InputException("YAML".equals(format) ? e.getMessage().replaceFirst(" JSON ", " YAML ")
                    : e.getMessage(), e);
        } catch (RuntimeException e) {
            // never the parser's excerpt of the line: a dump may hold a token (ParseErrors)
            throw new InputException(file + ": malformed " + format + ParseErrors.at(e) + ": " + ParseErrors.problem(e));
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
}
