package io.nodegate.handover;

import io.nodegate.render.HandoverHtml;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import static io.nodegate.handover.Fixtures.T0;
import static io.nodegate.handover.Fixtures.ev;
import static io.nodegate.handover.Fixtures.gpuA07;
import static io.nodegate.handover.Fixtures.handover;
import static io.nodegate.handover.Fixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

/** The page parses as XML, holds every event of a target's timeline, escapes what people typed, needs nothing else. */
class HandoverHtmlTest {

    /** A record with nine events on gpu-a07 over three weeks, a violation, a sighting and three silence entries. */
    static NodeHandover richRecord() {
        Instant gated = Instant.parse("2026-10-26T06:55:00Z");
        NodeHandover h = handover(List.of(gpuA07("Unknown", true)),
                step(0, "lee", T0),
                new StepRecord(1, "kim", T0.plusSeconds(3600), "cordoned <all> & \"drained\"", null,
                        List.of(ev("cordoned/gpu-a07", "PASS"))),
                step(2, "park", T0.plusSeconds(7200), ev("removedAt/gpu-a07", "2026-10-26T06:09:00Z")),
                step(3, "kim", gated, ev("gate/gpu-a07", "PASS 2026-10-26T06:55:00Z sha256:ab12"),
                        ev("leaseStopped/gpu-a07", "2026-10-26T06:07:56Z"),
                        ev("removal/gpu-a07", "complete deleted 2026-10-26T06:57:10Z"),
                        ev("verifyGone", "PASS 2026-10-27T01:00:00Z")));
        HandoverStatus st = new HandoverStatus(gated, "test", "Open", "3: gate, delete, first check", null, "PASS", 1,
                null, null, List.of(new HandoverStatus.Violation("k", "host-in-another-cluster", "gpu-a07",
                "gpu-a07's host is b-gpu-07 in cluster-b <script>alert(1)</script>", Instant.parse(
                        "2026-10-22T05:23:45Z"), Instant.parse("2026-10-22T06:10:00Z"), null, true)),
                null, null, List.of(new HandoverStatus.Sighting("gpu-a07", "cluster-b", "b-gpu-07",
                Instant.parse("2026-10-22T05:23:45Z"), Instant.parse("2026-10-22T06:10:00Z"), "True", true)),
                List.of(new HandoverStatus.HistoryEntry(T0.plusSeconds(60), "silence-created", null, "silence s1 created"),
                        new HandoverStatus.HistoryEntry(T0.plusSeconds(90000), "silence-vanished", null, "expired-early"),
                        new HandoverStatus.HistoryEntry(T0.plusSeconds(90000), "silence-recreated", null, "as s2")));
        return h.withStatus(st);
    }

    @Test
    void aTimelinePerTargetInOneSelfContainedPage() throws Exception {
        NodeHandover rich = richRecord();
        String page = HandoverHtml.render(rich, Instant.parse("2026-10-28T00:00:00.123456789Z"));

        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        Document doc = factory.newDocumentBuilder().parse(new ByteArrayInputStream(page.getBytes(StandardCharsets.UTF_8)));
        String text = doc.getDocumentElement().getTextContent();
        assertThat(text).contains("cordoned, drained", "Lease stopped", "owner's reply", "stated removal time",
                "gate PASS", "DELETE", "verify-gone (1st) PASS", "first seen in the destination",
                "silence created", "silence vanished", "silence recreated", "violation: host-in-another-cluster");
        assertThat(text).contains("cordoned <all> & \"drained\"", "<script>alert(1)</script>");
        assertThat(page).doesNotContain("<script>", " src=", " href=", "url(", "@import");
        NodeList svgs = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "svg");
        assertThat(svgs.getLength()).as("one timeline per target, one for the hand-over").isEqualTo(2);
        // the events of gpu-a07's lane, in time order
        List<String> order = Timeline.of(rich).get("gpu-a07").stream().map(Timeline.Event::kind).toList();
        // every value the steps were recorded with is on the page, and times are read to the second
        assertThat(text).contains("removedAt/gpu-a07", "2026-10-26T06:09:00Z", "leaseStopped/gpu-a07",
                "removal/gpu-a07", "complete deleted 2026-10-26T06:57:10Z", "Page written 2026-10-28 00:00:00Z")
                .doesNotContain(".123456789", "null by null");
        assertThat(order).containsExactly(Timeline.CORDON, Timeline.REPLY, Timeline.VIOLATION, Timeline.DESTINATION,
                Timeline.LEASE, Timeline.REMOVAL_TIME, Timeline.GATE, Timeline.DELETE, Timeline.VERIFY);
    }

    /** A record nobody has looked at yet says so, instead of "Last look: null by null (null)". */
    @Test
    void aRecordWithoutALookSaysSo() {
        NodeHandover h = handover(List.of(gpuA07("Unknown", true)), step(0, "lee", T0));
        String page = HandoverHtml.render(h, Instant.parse("2026-10-28T00:00:00Z"));
        assertThat(page).contains("No look recorded yet").doesNotContain("null");
    }

    /** An override given at `remove --override` stands at the DELETE it authorised, before it, not at step 3's record. */
    @Test
    void aGateOverrideStandsAtTheDeleteItAuthorisedNotAfterIt() {
        Instant deleted = Instant.parse("2026-10-26T06:57:10Z");
        Instant recorded = Instant.parse("2026-10-26T09:00:00Z");
        NodeHandover h = handover(List.of(gpuA07("Unknown", true)), step(0, "lee", T0),
                step(1, "kim", T0.plusSeconds(3600)), step(2, "park", T0.plusSeconds(7200)),
                step(3, "kim", recorded, ev("gate/gpu-a07", "override: kim: host wiped, BMC unreachable"),
                        ev("removal/gpu-a07", "complete deleted " + deleted + " override")));

        List<Timeline.Event> lane = Timeline.of(h).get("gpu-a07");

        Timeline.Event gate = lane.stream().filter(e -> Timeline.GATE.equals(e.kind())).findFirst().orElseThrow();
        assertThat(gate.at()).isEqualTo(deleted);
        assertThat(lane).extracting(Timeline.Event::kind).containsSubsequence(Timeline.GATE, Timeline.DELETE);
    }
}
