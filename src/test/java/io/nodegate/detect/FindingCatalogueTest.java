package io.nodegate.detect;

import io.nodegate.detect.controlplane.ControlPlaneDetectors;
import io.nodegate.detect.controlplane.EtcdDetectors;
import io.nodegate.detect.fleet.FleetDetectors;
import io.nodegate.detect.node.KubeletAnswersForAnotherClusterDetector;
import io.nodegate.detect.probe.LeaderElectionLostDetector;
import io.nodegate.detect.probe.SlowApiserverDetector;
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
 * {@link FindingCode} holds one row per code; every class that raises a code has its row with the same name and
 * every row its class; a code named anywhere in the main sources or the docs is a row; every row has its
 * "### NGxxx name" section in docs/findings.md and every section its row; docs/findings.md's index is the
 * registry's table.
 */
class FindingCatalogueTest {

    private static final Pattern CODE = Pattern.compile("NG\\d{3}");

    /** code -> name of every class that raises a finding, reached through the registries the commands run. */
    static Map<String, String> raised() {
        Map<String, String> codes = new TreeMap<>();
        Map<String, String> raisers = new TreeMap<>();
        Detectors.all().forEach(d -> put(codes, raisers, d.getClass(), d.code().code(), d.name()));
        EtcdDetectors.all().forEach(d -> put(codes, raisers, d.getClass(), d.code().code(), d.name()));
        ControlPlaneDetectors.redundancy().forEach(d -> put(codes, raisers, d.getClass(), d.code().code(), d.name()));
        ControlPlaneDetectors.views().forEach(d -> put(codes, raisers, d.getClass(), d.code().code(), d.name()));
        FleetDetectors.all().forEach(d -> put(codes, raisers, d.getClass(), d.code().code(), d.name()));
        LeaderElectionLostDetector lost = new LeaderElectionLostDetector();
        put(codes, raisers, lost.getClass(), lost.code().code(), lost.name());
        put(codes, raisers, SlowApiserverDetector.class, SlowApiserverDetector.CODE.code(), SlowApiserverDetector.CODE.title());
        KubeletAnswersForAnotherClusterDetector ng303 = new KubeletAnswersForAnotherClusterDetector();
        put(codes, raisers, ng303.getClass(), ng303.code().code(), ng303.name());
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
