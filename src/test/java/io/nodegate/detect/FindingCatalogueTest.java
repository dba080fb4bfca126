package io.nodegate.detect;

import io.nodegate.detect.registry.Detectors;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The finding catalogue, checked every way (as kube-linter generates its check docs and Popeye keeps codes.yaml):
 * {@link FindingCode} holds one row per code; the detector table ({@link Detectors}) holds exactly one detector
 * per row, with the row's name, and a test names each detector; a code named anywhere in the main sources or the
 * docs is a row; every row has its "### NGxxx name" section in docs/findings.md and every section its row; docs/findings.md's index is the
 * registry's table.
 */
class FindingCatalogueTest {

    private static final Pattern CODE = Pattern.compile("NG\\d{3}");

    /** code -> name of every class that raises a finding: the detector table every command and the watch read. */
    static Map<String, String> raised() {
        Map<String, String> codes = new TreeMap<>();
        Map<String, String> raisers = new TreeMap<>();
        for (Detectors.Row row : Detectors.rows()) {
            put(codes, raisers, row.detector().getClass(), row.code().code(), row.detector().name());
        }
        return codes;
    }

    /** One class per code: a second class raising a code already seen is a failure, not an overwrite. */
    private static void put(Map<String, String> codes, Map<String, String> raisers, Class<?> raiser, String code,
                            String name) {
        String was = codes.put(code, name);
        String seenClass = raisers.putIfAbsent(code, raiser.getName());
        assertThat(seenClass).as("second class raising " + code).isIn(null, raiser.getName());
        assertThat(was).as("second name for " + code).isIn(null, name);
    }

    static Map<String, String> registry() {
        return Arrays.stream(FindingCode.values())
                .collect(Collectors.toMap(FindingCode::code, FindingCode::title, (a, b) -> a, TreeMap::new));
    }

    static Map<String, String> documented() throws IOException {
        Map<String, String> sections = new TreeMap<>();
        Matcher m = Pattern.compile("(?m)^### (NG\\d{3}) ([a-z0-9-]+)\\s*$")
                .matcher(Files.readString(Path.of("docs/findings.md")));
        while (m.find()) {
            assertThat(sections.put(m.group(1), m.group(2))).as("second section for " + m.group(1)).isNull();
        }
        return sections;
    }

    @Test
    void everyClassThatRaisesACodeHasItsRowAndEveryRowItsClass() {
        Map<String, String> raised = raised();
        assertThat(raised).as("codes raised by the detectors and checks").hasSizeGreaterThanOrEqualTo(28);
        assertThat(raised).as("name of each raised code, against its registry row").isEqualTo(registry());
    }

    @Test
    void everyRowOfTheCatalogueHasExactlyOneDetectorInTheTableInCodeOrder() {
        assertThat(Detectors.rows()).extracting(Detectors.Row::code).as("the detector table, one row per code")
                .containsExactly(FindingCode.values());
        assertThat(Detectors.rows()).allSatisfy(r -> assertThat(r.scopes()).as(r.code() + "'s scopes").isNotEmpty());
    }

    @Test
    void everyDetectorHasATest() throws IOException {
        Map<Path, String> tests = new TreeMap<>();
        try (Stream<Path> files = Files.walk(Path.of("src/test/java"))) {
            for (Path f : files.filter(f -> f.toString().endsWith("Test.java")).toList()) {
                if (!f.getFileName().toString().equals(FindingCatalogueTest.class.getSimpleName() + ".java")) {
                    tests.put(f, Files.readString(f));
                }
            }
        }
        Set<String> untested = new TreeSet<>();
        for (Detectors.Row row : Detectors.rows()) {
            Pattern named = Pattern.compile("\\b(" + row.detector().getClass().getSimpleName() + "|"
                    + row.code().code() + ")\\b");
            if (tests.values().stream().noneMatch(t -> named.matcher(t).find())) {
                untested.add(row.code().code() + " " + row.detector().getClass().getSimpleName());
            }
        }
        assertThat(untested).as("detectors no test class names (by class or code)").isEmpty();
    }

    @Test
    void everyCodeNamedInTheSourcesOrDocsIsARow() throws IOException {
        Set<String> named = new TreeSet<>();
        for (Path root : new Path[] {Path.of("src/main"), Path.of("docs"), Path.of("deploy"), Path.of("README.md")}) {
            try (Stream<Path> files = Files.walk(root)) {
                files.filter(Files::isRegularFile).forEach(f -> {
                    try {
                        Matcher m = CODE.matcher(Files.readString(f));
                        while (m.find()) {
                            named.add(m.group());
                        }
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
        }
        assertThat(named).as("codes named in src/main, docs, deploy and README").isNotEmpty()
                .isSubsetOf(registry().keySet());
    }

    @Test
    void everyRowHasItsSectionAndEverySectionItsRow() throws IOException {
        assertThat(documented()).as("'### NGxxx name' sections of docs/findings.md against the registry")
                .isEqualTo(registry());
    }

    @Test
    void theIndexIsTheRegistrysTable() throws IOException {
        String docs = Files.readString(Path.of("docs/findings.md"));
        String index = docs.substring(docs.indexOf("## Index"), docs.indexOf("## Nodes (NG1xx)"));
        String table = index.substring(index.indexOf("| code |")).strip() + "\n";
        assertThat(table).as("docs/findings.md's index (paste FindingCode.indexTable() there)")
                .isEqualTo(FindingCode.indexTable());
    }

    @Test
    void severitiesAndAnchorsReadAsTheDocsPrintThem() {
        assertThat(FindingCode.NG202.severities())
                .containsExactly(Severity.INFO, Severity.WARNING, Severity.CRITICAL);
        assertThat(FindingCode.NG202.severityLabel()).isEqualTo("info–critical");
        assertThat(FindingCode.NG140.severities()).containsExactly(Severity.INFO);
        assertThat(FindingCode.NG101.anchor()).isEqualTo("ng101-node-unknown");
        assertThat(FindingCode.of("ng303")).contains(FindingCode.NG303);
        assertThat(FindingCode.of("NG999")).isEmpty();
    }
}
