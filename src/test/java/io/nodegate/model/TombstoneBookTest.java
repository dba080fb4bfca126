package io.nodegate.model;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** One shard's data: damaged entries are skipped, named and kept; exemptions; sizes. */
class TombstoneBookTest {

    private static final Instant REMOVED = Instant.parse("2026-10-26T06:31:10Z");

    /** A shard as an operator's hand edit left it: gpu-a10's removedAt has month 13 (a field case). */
    private static Map<String, String> withAMalformedEntry() {
        Map<String, String> data = new LinkedHashMap<>(TombstoneBook.empty()
                .with(new Tombstone("gpu-a07", "uid-a07", "uuid-a07", "mid-a07", REMOVED, null, "kim"))
                .with(new Tombstone("gpu-a10", "uid-a10", "uuid-a10", "mid-a10", REMOVED, null, "kim", null,
                        List.of("twin-a10"), List.of()))
                .data());
        data.put("node.gpu-a10", data.get("node.gpu-a10").replace("2026-10-26T06:31:10Z", "2026-13-01"));
        return data;
    }

    @Test
    void aMalformedEntryIsSkippedAndNamedNeverThrown() {
        TombstoneBook book = TombstoneBook.parse(withAMalformedEntry());

        assertThat(book.tombstones()).extracting(Tombstone::name).containsExactly("gpu-a07");
        assertThat(book.problems()).singleElement().asString()
                .isEqualTo("tombstone node.gpu-a10: removedAt '2026-13-01' is not an ISO-8601 UTC time");
        assertThat(book.holds("gpu-a10")).isTrue();
        assertThat(book.get("gpu-a10")).isEmpty();
    }

    @Test
    void aRewriteKeepsTheMalformedEntryAndItsQuarantineKeysVerbatim() {
        Map<String, String> stored = withAMalformedEntry();
        TombstoneBook book = TombstoneBook.parse(stored);

        Map<String, String> after = book.with(new Tombstone("gpu-a12", "uid-a12", "uuid-a12", null, REMOVED, null, "lee"))
                .data();

        // what referred to gpu-a10 is exactly as it was: `remove` of another host never lifts its quarantine
        for (String key : List.of("node.gpu-a10", "systemuuid.uuid-a10", "machineid.mid-a10",
                "exempt.systemuuid.uuid-a10")) {
            assertThat(after).containsEntry(key, stored.get(key));
        }
        assertThat(after).containsKeys("node.gpu-a12", "systemuuid.uuid-a12", "node.gpu-a07");
        // releasing it (readmit, or replacing it by a new removal of that name) drops its keys
        assertThat(book.without("gpu-a10").data()).doesNotContainKeys("node.gpu-a10", "systemuuid.uuid-a10",
                "exempt.systemuuid.uuid-a10");
        assertThat(book.with(new Tombstone("gpu-a10", "uid-a10b", "uuid-a10", null, REMOVED, null, "kim")).problems())
                .isEmpty();
    }

    @Test
    void notJsonAndWrongFieldTypesAreDamagedToo() {
        TombstoneBook book = TombstoneBook.parse(Map.of(
                "node.x", "{not json",
                "node.y", "{\"name\":\"y\",\"liveNodesSameSystemUUID\":\"twin\"}",
                "node.z", "{\"name\":\"other\"}",
                "systemuuid.u", "x y"));

        assertThat(book.tombstones()).isEmpty();
        assertThat(book.problems()).containsExactly("tombstone node.x is not JSON",
                "tombstone node.y: liveNodesSameSystemUUID is not a list of Node names",
                "tombstone node.z names node 'other', expected 'z'");
        // the index key naming two damaged entries survives a rewrite
        assertThat(book.with(new Tombstone("w", null, null, null, REMOVED, null, null)).data())
                .containsEntry("systemuuid.u", "x y");
    }

    @Test
    void aNodeIsExemptFromAnIdentityOnlyIfEveryTombstoneWithItRecordedItLive() {
        TombstoneBook one = TombstoneBook.empty().with(new Tombstone("vm-1", "u1", "uuid-v", "mid-1", REMOVED, null,
                "kim", null, List.of("vm-twin", "vm-3"), List.of("vm-3")));
        assertThat(one.data()).containsEntry("exempt.systemuuid.uuid-v", "vm-3 vm-twin")
                .containsEntry("exempt.machineid.mid-1", "vm-3");

        TombstoneBook two = one.with(new Tombstone("vm-2", "u2", "uuid-v", null, REMOVED.plusSeconds(60), null, "kim",
                null, List.of("vm-twin"), List.of()));
        assertThat(two.data()).containsEntry("exempt.systemuuid.uuid-v", "vm-twin");
        // the round trip keeps the live lists
        assertThat(TombstoneBook.parse(two.data()).get("vm-1").orElseThrow().liveSameSystemUuid())
                .containsExactly("vm-3", "vm-twin");
    }

    @Test
    void theGrowthBoundsHoldWhatAnEntryReallyAdds() {
        TombstoneBook book = TombstoneBook.empty();
        for (int i = 0; i < 200; i++) {
            Tombstone t = new Tombstone("gpu-" + i, "uid-" + i, "uuid-" + (i % 7), i % 3 == 0 ? null : "mid-" + i,
                    REMOVED, "ab".repeat(32), "kim via kubeconfig user ops-kim", i % 5 == 0 ? "cluster-b" : null,
                    i % 2 == 0 ? List.of("twin-" + i, "twin-x") : List.of(), List.of("twin-x"));
            TombstoneBook next = book.with(t);
            assertThat(next.bytes() - book.bytes()).as("entry %d", i).isLessThanOrEqualTo(TombstoneBook.growthBound(t))
                    .isGreaterThanOrEqualTo(book.leastGrowth(t));
            book = next;
        }
    }
}
