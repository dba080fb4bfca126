package io.nodegate.render.output;

import io.nodegate.audit.AuditReport;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.nodegate.testing.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * `audit -o junit` validated by the JDK's XML Schema validator against the Jenkins/Ant JUnit schema JUnit 5 checks
 * its own legacy reports with (src/test/resources/schemas/jenkins-junit.xsd, source and MIT license in its header),
 * then read back as CI would read it.
 */
class JunitReportTest {

    private static final Schema SCHEMA = schema();

    @Test
    void theAuditOfTheRenamedRejoinIsAValidJunitReportWithAFailurePerFindingAndAPassPerCleanCheck() throws Exception {
        CliRun audit = run("audit", "-f", "examples/cluster-a-renamed-rejoin", "-o", "junit");
        assertThat(audit.exitCode()).as(audit.err()).isEqualTo(1);
        validate(audit.out());
        CliRun json = run("audit", "-f", "examples/cluster-a-renamed-rejoin", "-o", "json");
        // an info finding is a passing testcase (NG171 here: a dump holds no NodeHandovers), so count the others
        int findings = count(json.out(), "\"severity\" : \"warning\"")
                + count(json.out(), "\"severity\" : \"critical\"");

        Document doc = parse(audit.out());
        Element suite = (Element) doc.getElementsByTagName("testsuite").item(0);
        List<Element> cases = elements(doc, "testcase");
        int failures = doc.getElementsByTagName("failure").getLength();
        assertThat(Integer.parseInt(suite.getAttribute("tests"))).isEqualTo(cases.size());
        assertThat(Integer.parseInt(suite.getAttribute("failures"))).isEqualTo(failures).isPositive();
        assertThat(Integer.parseInt(doc.getDocumentElement().getAttribute("failures"))).isEqualTo(failures);
        // one failing testcase per warning or critical finding, one passing per clean check
        assertThat(failures).isEqualTo(findings);
        List<String> names = cases.stream().map(c -> c.getAttribute("name")).toList();
        assertThat(names).doesNotHaveDuplicates();
        assertThat(names).anyMatch(n -> n.startsWith("NG110 same-host-two-names: "));
        Element passed = cases.stream().filter(c -> c.getAttribute("name").equals("NG102 node-not-ready"))
                .findFirst().orElseThrow();
        assertThat(passed.getChildNodes().getLength()).isZero();
        assertThat(passed.getAttribute("classname")).isEqualTo("nodegate.audit.NG102");
        Element failure = (Element) cases.stream().filter(c -> c.getAttribute("name").startsWith("NG110"))
                .findFirst().orElseThrow().getElementsByTagName("failure").item(0);
        assertThat(failure.getAttribute("type")).isEqualTo("warning");
        assertThat(failure.getAttribute("message")).contains("systemUUID");
        assertThat(failure.getTextContent()).contains("evidence: ").contains("hint: ");
    }

    @Test
    void skippedChecksAreSkippedTestcases() throws Exception {
        CliRun audit = run("audit", "-f", "examples/healthy", "-o", "junit", "--skip", "NG111,NG120");
        assertThat(audit.exitCode()).as(audit.err()).isZero();
        validate(audit.out());
        Document doc = parse(audit.out());
        List<Element> skipped = elements(doc, "skipped");
        assertThat(skipped).hasSize(2);
        assertThat(((Element) skipped.get(0).getParentNode()).getAttribute("name")).isEqualTo("NG111");
        assertThat(doc.getElementsByTagName("failure").getLength()).isZero();
        Element suite = (Element) doc.getElementsByTagName("testsuite").item(0);
        assertThat(suite.getAttribute("skipped")).isEqualTo("2");
        assertThat(Integer.parseInt(suite.getAttribute("tests"))).isEqualTo(elements(doc, "testcase").size());
    }

    @Test
    void anInfoFindingPassesWithWhatWasSeenAndControlCharactersNeverBreakTheXml() throws Exception {
        Finding info = new Finding("NG130", "orphan-node-password", Severity.INFO, List.of("gone-1"),
                "node-password Secret gone-1.node-password.rke2 has no Node \u0001(young)", Map.of("age", "3m"), "wait");
        Finding critical = new Finding("NG201", "etcd-split-brain", Severity.CRITICAL, List.of(),
                "two etcd clusters <a & b>", Map.of(), null);
        AuditReport report = new AuditReport(Instant.parse("2026-10-19T06:10:00Z"), "test \u0007source",
                List.of(), List.of(critical, info), List.of("a note"));
        Map<String, String> checks = new LinkedHashMap<>();
        checks.put("NG130", "orphan-node-password");
        checks.put("NG201", "etcd-split-brain");
        checks.put("NG101", "node-unknown");
        String xml = JunitReport.xml(report, checks, Set.of());
        validate(xml);
        Document doc = parse(xml);
        Element infoCase = elements(doc, "testcase").stream()
                .filter(c -> c.getAttribute("name").startsWith("NG130")).findFirst().orElseThrow();
        assertThat(infoCase.getElementsByTagName("failure").getLength()).isZero();
        assertThat(infoCase.getElementsByTagName("system-out").item(0).getTextContent())
                .startsWith("info: ").contains("\uFFFD(young)");
        Element criticalCase = elements(doc, "testcase").stream()
                .filter(c -> c.getAttribute("name").equals("NG201 etcd-split-brain: cluster")).findFirst().orElseThrow();
        assertThat(((Element) criticalCase.getElementsByTagName("failure").item(0)).getAttribute("message"))
                .isEqualTo("two etcd clusters <a & b>");
        assertThat(doc.getDocumentElement().getAttribute("tests")).isEqualTo("3");
        assertThat(doc.getDocumentElement().getAttribute("failures")).isEqualTo("1");
    }

    @Test
    void theValidatorRejectsWhatJenkinsWouldNotRead() {
        // a testcase without a name, and a skipped with an attribute the schema does not have
        assertThatThrownBy(() -> validate("<testsuites><testsuite name=\"x\" tests=\"1\"><testcase/></testsuite></testsuites>"))
                .isInstanceOf(SAXException.class).hasMessageContaining("name");
        assertThatThrownBy(() -> validate("<testsuites><testsuite name=\"x\" tests=\"1\"><testcase name=\"a\">"
                + "<skipped message=\"m\"/></testcase></testsuite></testsuites>")).isInstanceOf(SAXException.class);
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    private static Schema schema() {
        try {
            SchemaFactory factory = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
            return factory.newSchema(JunitReportTest.class.getResource("/schemas/jenkins-junit.xsd"));
        } catch (SAXException e) {
            throw new IllegalStateException(e);
        }
    }

    static void validate(String xml) throws Exception {
        SCHEMA.newValidator().validate(new StreamSource(new StringReader(xml)));
    }

    private static Document parse(String xml) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<Element> elements(Document doc, String tag) {
        NodeList list = doc.getElementsByTagName(tag);
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < list.getLength(); i++) {
            out.add((Element) list.item(i));
        }
        return out;
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }
}
