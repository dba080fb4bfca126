package io.nodegate.detect;

import io.nodegate.detect.controlplane.ControlPlaneDetectors;
import io.nodegate.detect.controlplane.EtcdDetectors;
import io.nodegate.detect.node.KubeletAnswersForAnotherClusterDetector;
import io.nodegate.probe.LeaderElectionLostDetector;
import io.nodegate.probe.SlowApiserverCheck;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The finding catalogue, checked both ways (as kube-linter generates its check docs and Popeye keeps codes.yaml):
 * every registered finding code has its "### NGxxx name" section in docs/findings.md, and every section there
 * belongs to a registered code with that name. A new registry of findings is added to {@link #registered()}.
 */
class FindingCatalogueTest {

    static Map<String, String> registered() {
        Map<String, String> codes = new TreeMap<>();
        Detectors.all().forEach(d -> codes.put(d.code(), d.name()));
        EtcdDetectors.all().forEach(d -> codes.put(d.code(), d.name()));
        ControlPlaneDetectors.redundancy().forEach(d -> codes.put(d.code(), d.name()));
        ControlPlaneDetectors.views().forEach(d -> codes.put(d.code(), d.name()));
        io.nodegate.detect.fleet.FleetDetectors.all().forEach(d -> codes.put(d.code(), d.name()));
        LeaderElectionLostDetector lost = new LeaderElectionLostDetector();
        codes.put(lost.code(), lost.name());
        codes.put(SlowApiserverCheck.CODE, SlowApiserverCheck.NAME);
        codes.put(KubeletAnswersForAnotherClusterDetector.CODE, KubeletAnswersForAnotherClusterDetector.NAME);
        return codes;
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
    void everyRegisteredCodeHasItsSectionAndEverySectionItsCode() throws IOException {
        Map<String, String> registered = registered();
        Map<String, String> documented = documented();
        assertThat(registered).as("registered codes").hasSizeGreaterThanOrEqualTo(24);
        assertThat(documented.keySet()).as("sections in docs/findings.md without a registered code")
                .isSubsetOf(registered.keySet());
        assertThat(registered.keySet()).as("registered codes without a section in docs/findings.md")
                .isSubsetOf(documented.keySet());
        assertThat(documented).as("section titles name the finding as the code does").isEqualTo(registered);
    }

    @Test
    void theIndexListsEveryCode() throws IOException {
        String docs = Files.readString(Path.of("docs/findings.md"));
        String index = docs.substring(docs.indexOf("## Index"), docs.indexOf("## Nodes (NG1xx)"));
        for (String code : registered().keySet()) {
            assertThat(index).as("index entry for " + code).contains(code);
        }
    }
}
