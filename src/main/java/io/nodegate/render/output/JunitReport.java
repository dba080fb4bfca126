package io.nodegate.render.output;

import io.nodegate.audit.AuditReport;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;

import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;
import java.io.StringWriter;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * `audit -o junit`: the audit as the JUnit XML report that Jenkins (junit plugin), GitLab (artifacts:reports:junit)
 * and most CI systems read, in the shape of Ant's XMLJUnitResultFormatter that those readers were written for. The
 * element and attribute set is the one of the Jenkins/Ant schema JUnit 5 validates its own legacy reports against
 * (junit-team/junit5 platform-tests/src/test/resources/jenkins-junit.xsd, MIT, from the Jenkins dtkit junit-4.xsd);
 * the test validates against that schema.
 *
 * <p>One testsuite; one testcase per finding (check = finding code, and the nodes it names), so CI lists each node
 * that failed a check; one passing testcase per check that ran and found nothing, so CI also shows what was
 * checked; a skipped testcase per check left out with --skip. Warning and critical findings are failures (type =
 * severity), as they make the audit exit 1; an info finding is a passing testcase whose system-out says what was
 * seen, as the audit exits 0 on it.
 */
public final class JunitReport {

    public static final String SUITE = "nodegate audit";
    /** Ant's timestamp: ISO 8601 without a zone (UTC here). */
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss")
            .withZone(ZoneOffset.UTC);

    private JunitReport() {
    }

    /**
     * @param checks  the checks that ran, code to name (every detector minus --skip, plus NG303 with
     *                --probe-kubelets), in the order to list them
     * @param skipped the codes left out with --skip
     */
    public static String xml(AuditReport report, Map<String, String> checks, Set<String> skipped) {
        Map<String, List<Finding>> byCode = new LinkedHashMap<>();
        checks.keySet().forEach(code -> byCode.put(code, new ArrayList<>()));
        for (Finding f : report.findings()) {
            // a finding of a code not in the list (none today) is still reported, never dropped
            byCode.computeIfAbsent(f.code(), c -> new ArrayList<>()).add(f);
        }
        int tests = 0;
        int failures = 0;
        for (var e : byCode.entrySet()) {
            tests += Math.max(1, e.getValue().size());
            failures += (int) e.getValue().stream().filter(JunitReport::fails).count();
        }
        tests += skipped.size();
        StringWriter text = new StringWriter();
        try {
            XMLStreamWriter xml = XMLOutputFactory.newFactory().createXMLStreamWriter(text);
            Indented out = new Indented(xml);
            xml.writeStartDocument("UTF-8", "1.0");
            out.start("testsuites", 0);
            counts(xml, tests, failures);
            out.start("testsuite", 1);
            counts(xml, tests, failures);
            // the schema has skipped on a testsuite only
            xml.writeAttribute("skipped", Integer.toString(skipped.size()));
            if (report.now() != null) {
                xml.writeAttribute("timestamp", TIMESTAMP.format(report.now()));
            }
            out.start("properties", 2);
            property(out, "source", report.source());
            if (report.now() != null) {
                property(out, "now", report.now().toString());
            }
            for (String note : report.notes()) {
                property(out, "note", note);
            }
            out.end(2);
            for (var e : byCode.entrySet()) {
                String code = e.getKey();
                String name = checks.getOrDefault(code, e.getValue().isEmpty() ? "" : e.getValue().get(0).name());
                if (e.getValue().isEmpty()) {
                    out.empty("testcase", 2);
                    testcase(xml, code, code + " " + name);
                    continue;
                }
                for (Finding f : e.getValue()) {
                    out.start("testcase", 2);
                    testcase(xml, code, caseName(f));
                    if (fails(f)) {
                        out.start("failure", 3);
                        xml.writeAttribute("type", f.severity().label());
                        xml.writeAttribute("message", clean(f.message()));
                        xml.writeCharacters(clean(details(f)));
                        xml.writeEndElement();
                    } else {
                        out.start("system-out", 3);
                        xml.writeCharacters(clean(f.severity().label() + ": " + details(f)));
                        xml.writeEndElement();
                    }
                    out.end(2);
                }
            }
            for (String code : new TreeSet<>(skipped)) {
                out.start("testcase", 2);
                testcase(xml, code, code);
                // the schema's <skipped> is text only (no message attribute)
                out.start("skipped", 3);
                xml.writeCharacters("not checked (--skip " + code + ")");
                xml.writeEndElement();
                out.end(2);
            }
            out.end(1);
            out.end(0);
            xml.writeEndDocument();
            xml.close();
        } catch (XMLStreamException e) {
            throw new IllegalStateException("writing JUnit XML to a string failed: " + e.getMessage(), e);
        }
        return text + "\n";
    }

    /** The attributes testsuites and testsuite share: the totals CI shows. */
    private static void counts(XMLStreamWriter xml, int tests, int failures) throws XMLStreamException {
        xml.writeAttribute("name", SUITE);
        xml.writeAttribute("tests", Integer.toString(tests));
        xml.writeAttribute("failures", Integer.toString(failures));
        xml.writeAttribute("errors", "0");
        xml.writeAttribute("time", "0");
    }

    private static boolean fails(Finding f) {
        return f.severity().atLeast(Severity.WARNING);
    }

    /** "NG110 same-host-two-names: gpu-a07, gpu-a07-new", and what tells equal ones apart when there is one. */
    static String caseName(Finding f) {
        String nodes = f.nodes().isEmpty() ? "cluster" : String.join(", ", f.nodes());
        return f.code() + " " + f.name() + ": " + nodes
                + (f.discriminator() == null ? "" : " (" + f.discriminator() + ")");
    }

    private static String details(Finding f) {
        StringBuilder b = new StringBuilder(f.message());
        if (!f.evidence().isEmpty()) {
            b.append("\nevidence: ").append(Structured.Mappers.JSON.writeValueAsString(f.evidence()).replace("\n", "\n  "));
        }
        if (f.hint() != null && !f.hint().isBlank()) {
            b.append("\nhint: ").append(f.hint());
        }
        return b.toString();
    }

    private static void testcase(XMLStreamWriter xml, String code, String name) throws XMLStreamException {
        xml.writeAttribute("classname", "nodegate.audit." + code);
        xml.writeAttribute("name", clean(name));
        xml.writeAttribute("time", "0");
    }

    private static void property(Indented out, String name, String value) throws XMLStreamException {
        out.empty("property", 3);
        out.xml.writeAttribute("name", name);
        out.xml.writeAttribute("value", clean(value == null ? "" : value));
    }

    /**
     * Characters XML 1.0 cannot carry at all (control characters other than tab and line breaks, unpaired
     * surrogates, U+FFFE/U+FFFF) become U+FFFD: a Node name or message is cluster data, and one such character would
     * make the whole report unreadable to CI.
     */
    static String clean(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                b.append(c).append(s.charAt(++i));
            } else if (c == '\t' || c == '\n' || c == '\r' || (c >= 0x20 && c <= 0xD7FF)
                    || (c >= 0xE000 && c <= 0xFFFD)) {
                b.append(c);
            } else {
                b.append('\uFFFD');
            }
        }
        return b.toString();
    }

    /** Two-space indentation around elements (StAX writes none); text content is written as it is. */
    private static final class Indented {
        final XMLStreamWriter xml;

        Indented(XMLStreamWriter xml) {
            this.xml = xml;
        }

        void start(String element, int depth) throws XMLStreamException {
            xml.writeCharacters("\n" + "  ".repeat(depth));
            xml.writeStartElement(element);
        }

        void empty(String element, int depth) throws XMLStreamException {
            xml.writeCharacters("\n" + "  ".repeat(depth));
            xml.writeEmptyElement(element);
        }

        void end(int depth) throws XMLStreamException {
            xml.writeCharacters("\n" + "  ".repeat(depth));
            xml.writeEndElement();
        }
    }
}
