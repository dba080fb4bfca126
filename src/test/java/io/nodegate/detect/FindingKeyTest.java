package io.nodegate.detect;

import io.nodegate.audit.Audit;
import io.nodegate.detect.node.DuplicateInternalIpDetector;
import io.nodegate.detect.node.OrphanNodePasswordDetector;
import io.nodegate.model.ClusterState;
import io.nodegate.render.output.Structured;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static io.nodegate.testing.NodeFixtures.NOW;
import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static io.nodegate.testing.NodeFixtures.nodePassword;
import static org.assertj.core.api.Assertions.assertThat;

/** A finding's key is its identity across passes: code, nodes, discriminator; never an age or a time. */
class FindingKeyTest {

    /** A host silent since 05:00 and a renamed rejoin, read at two times an hour apart. */
    private static ClusterState silentAndRenamed(Instant now) {
        return cluster().now(now)
                .node(node("gpu-a11").unknownSince(Instant.parse("2026-10-19T05:00:00Z"),
                        Instant.parse("2026-10-19T05:00:50Z")).systemUuid("uuid-a11"))
                .lease("gpu-a11", Instant.parse("2026-10-19T05:00:00Z"))
                .healthy(node("gpu-a10").systemUuid("uuid-shared").created(Instant.parse("2026-01-01T00:00:00Z")))
                .healthy(node("gpu-a10-new").systemUuid("uuid-shared").created(now.minus(Duration.ofHours(2))))
                .build();
    }

    @Test
    void aFindingThatPersistsKeepsItsKeyWhileItsAgesMove() {
        List<Finding> first = Audit.run(silentAndRenamed(NOW), AuditSettings.DEFAULTS).findings();
        List<Finding> later = Audit.run(silentAndRenamed(NOW.plus(Duration.ofHours(1))), AuditSettings.DEFAULTS)
                .findings();
        Map<String, Finding> firstByKey = first.stream().collect(Collectors.toMap(Finding::key, Function.identity()));
        Map<String, Finding> laterByKey = later.stream().collect(Collectors.toMap(Finding::key, Function.identity()));

        assertThat(firstByKey).containsKey("NG101|gpu-a11|").containsKey("NG110|gpu-a10,gpu-a10-new|uuid-shared");
        assertThat(laterByKey.keySet()).isEqualTo(firstByKey.keySet());
        // the same finding, though what it says about time changed
        assertThat(laterByKey.get("NG101|gpu-a11|").message())
                .isNotEqualTo(firstByKey.get("NG101|gpu-a11|").message());
    }

    @Test
    void findingsWithTheSameCodeAndNodesAreToldApartByWhatTheyAreAbout() {
        // two nodes sharing two addresses: two NG120 findings naming the same pair
        var state = cluster()
                .healthy(node("a").internalIp("10.0.2.2").internalIp("10.0.3.3"))
                .healthy(node("b").internalIp("10.0.2.2").internalIp("10.0.3.3"))
                .build();
        List<Finding> found = new DuplicateInternalIpDetector().detect(state, AuditSettings.DEFAULTS);
        assertThat(found).hasSize(2);
        assertThat(found).extracting(Finding::key).containsExactlyInAnyOrder("NG120|a,b|10.0.2.2", "NG120|a,b|10.0.3.3");

        // an rke2 and a k3s node-password Secret for the same absent node: one finding each
        var secrets = cluster().healthy(node("keep"))
                .secret(nodePassword("keep.node-password.rke2", "Opaque"))
                .secret(nodePassword("gone.node-password.rke2", "Opaque"))
                .secret(nodePassword("gone.node-password.k3s", "Opaque")).build();
        List<Finding> orphans = new OrphanNodePasswordDetector().detect(secrets, AuditSettings.DEFAULTS);
        assertThat(orphans).extracting(Finding::key).doesNotHaveDuplicates().hasSize(2);
    }

    @Test
    void theKeyIsNotPartOfTheAuditJsonShape() {
        Finding f = new Finding("NG120", "DuplicateInternalIP", Severity.WARNING, List.of("a"), "m", Map.of(), "h")
                .withDiscriminator("10.0.2.2");
        assertThat(Structured.json(Structured.tree(f))).doesNotContain("discriminator").doesNotContain("\"key\"");
    }
}
