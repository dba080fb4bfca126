package io.nodegate.model;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Where a tombstone goes: fill order, replacement in place, a new shard, and a full ledger. */
class TombstoneShardsTest {

    private static final Instant REMOVED = Instant.parse("2026-10-26T06:31:10Z");
    private static final Map<String, String> LABELS = Map.of(TombstoneShards.LABEL, TombstoneShards.LABEL_VALUE);

    /**
     * A tombstone shaped like the field's: an RKE2 worker name, a Dell-style DMI UUID (upper case in DMI, stored
     * lower case), a 32-hex /etc/machine-id, the gate record's sha256 and who removed it.
     */
    static Tombstone fieldShaped(int i) {
        String hex = HexFormat.of().formatHex(java.nio.ByteBuffer.allocate(16).putLong(0x4c4c4544_00373010L)
                .putLong(0x8047b4c0_00000000L + i).array());
        String uuid = hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-"
                + hex.substring(16, 20) + "-" + hex.substring(20);
        return new Tombstone(String.format("gpu-w%05d", i), java.util.UUID.nameUUIDFromBytes(("n" + i).getBytes())
                .toString(), uuid.toUpperCase(), String.format("%032x", 0x9b1f0c5e2d7aL * 31 + i),
                REMOVED.plusSeconds(i), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                "kim via kubeconfig user ops-kim");
    }

    private static TombstoneShards.Shard shard(String name, TombstoneBook book) {
        return new TombstoneShards.Shard(name, book, "1", LABELS);
    }

    @Test
    void shardNamesAreTheFirstConfigMapThenNumberedOnes() {
        assertThat(TombstoneShards.names()).hasSize(TombstoneShards.MAX_SHARDS)
                .startsWith("nodegate-tombstones", "nodegate-tombstones-1");
        assertThat(TombstoneShards.isShard("nodegate-tombstones-15")).isTrue();
        assertThat(TombstoneShards.isShard("nodegate-tombstones-16")).isFalse();
        assertThat(TombstoneShards.isShard("nodegate-tombstones-x")).isFalse();
        assertThat(TombstoneShards.isShard("kube-root-ca.crt")).isFalse();
    }

    @Test
    void twoThousandSixHundredTombstonesFillShardsInOrderEachWithinItsBudget() {
        List<TombstoneShards.Shard> shards = new ArrayList<>();
        for (int i = 0; i < 2_600; i++) {
            Tombstone t = fieldShaped(i);
            TombstoneShards.Placement p = TombstoneShards.place(shards, t).orElseThrow();
            TombstoneShards.Shard written = shard(p.shard(), p.book());
            shards.removeIf(s -> s.name().equals(p.shard()));
            shards.add(written);
        }

        assertThat(shards).extracting(TombstoneShards.Shard::name)
                .containsExactlyInAnyOrder("nodegate-tombstones", "nodegate-tombstones-1");
        int total = 0;
        for (TombstoneShards.Shard s : shards) {
            TombstoneBook asStored = TombstoneBook.parse(s.book().data());
            assertThat(asStored.bytes()).isLessThanOrEqualTo(TombstoneShards.BUDGET);
            assertThat(asStored.problems()).isEmpty();
            total += s.book().size();
        }
        assertThat(total).isEqualTo(2_600);
        TombstoneShards.Shard first = shards.stream().filter(s -> s.name().equals("nodegate-tombstones")).findFirst()
                .orElseThrow();
        // the first shard is full before the second is used: it holds as many as its budget allows
        assertThat(first.book().bytes() + TombstoneBook.growthBound(fieldShaped(9_999)))
                .isGreaterThan(TombstoneShards.BUDGET);
        // capacity, for docs/policy.md: bytes per field-shaped tombstone (entry and both index keys)
        long perTombstone = first.book().bytes() / first.book().size();
        System.out.printf("ledger capacity: %d bytes per tombstone, %d per shard, %d in %d shards%n", perTombstone,
                first.book().size(), first.book().size() * TombstoneShards.MAX_SHARDS, TombstoneShards.MAX_SHARDS);
        assertThat(first.book().size()).isBetween(2_000, 2_400);
        assertThat(TombstoneShards.read("nodegate-system", shards).tombstones().items()).hasSize(2_600);
    }

    @Test
    void aTombstoneOfANameAlreadyHeldReplacesItInItsShard() {
        TombstoneBook old = TombstoneBook.empty().with(fieldShaped(1)).with(fieldShaped(2));
        List<TombstoneShards.Shard> shards = List.of(shard("nodegate-tombstones", TombstoneBook.empty()),
                shard("nodegate-tombstones-1", old));
        Tombstone again = new Tombstone("gpu-w00002", "uid-new", fieldShaped(2).systemUuid(), null,
                REMOVED.plusSeconds(86_400), null, "lee");

        TombstoneShards.Placement p = TombstoneShards.place(shards, again).orElseThrow();

        assertThat(p.shard()).isEqualTo("nodegate-tombstones-1");
        assertThat(TombstoneBook.parse(p.data()).get("gpu-w00002").orElseThrow().uid()).isEqualTo("uid-new");
    }

    @Test
    void whenEveryShardIsFullThereIsNoPlaceAndTheReasonSaysSo() {
        List<TombstoneShards.Shard> shards = new ArrayList<>();
        for (String name : TombstoneShards.names()) {
            // one tombstone with a removedBy of 999,800 bytes: nothing else fits next to it
            shards.add(shard(name, TombstoneBook.empty().with(new Tombstone(name + "-x", null, null, null, REMOVED,
                    null, "x".repeat(999_800)))));
        }

        assertThat(TombstoneShards.place(shards, fieldShaped(1))).as("no place").matches(java.util.Optional::isEmpty);
        assertThat(TombstoneShards.full(shards, fieldShaped(1))).startsWith("all 16 shards are full (16 entries;");
        // with one shard missing, that one is created
        assertThat(TombstoneShards.place(shards.subList(0, 15), fieldShaped(1)).orElseThrow())
                .satisfies(p -> {
                    assertThat(p.shard()).isEqualTo("nodegate-tombstones-15");
                    assertThat(p.creates()).isTrue();
                });
    }

    @Test
    void anUnlabelledShardAndADamagedEntryAreNotedByTheReader() {
        Map<String, String> data = new java.util.TreeMap<>(TombstoneBook.empty().with(fieldShaped(1)).data());
        data.put("node.gpu-a10", "{\"name\":\"gpu-a10\",\"removedAt\":\"2026-13-01\"}");
        var read = TombstoneShards.read("nodegate-system", List.of(
                new TombstoneShards.Shard("nodegate-tombstones", TombstoneBook.parse(data), "7", Map.of())));

        assertThat(read.tombstones().items()).hasSize(1);
        assertThat(read.notes()).hasSize(2);
        assertThat(read.notes().get(0)).contains("unreadable tombstone skipped: tombstone node.gpu-a10: removedAt"
                + " '2026-13-01'", "ConfigMap nodegate-system/nodegate-tombstones");
        assertThat(read.notes().get(1)).contains("has no label nodegate.io/ledger=tombstones",
                "does not see its 2 tombstone(s)", "kubectl -n nodegate-system label configmap nodegate-tombstones");
    }
}
