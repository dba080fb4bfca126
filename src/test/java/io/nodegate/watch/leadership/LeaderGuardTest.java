package io.nodegate.watch.leadership;

import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.nodegate.source.kube.ApiCalls;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.testing.ApiTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The read before every write: the elector's word and the Lease itself, read at quorum. */
class LeaderGuardTest {

    private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

    private ApiTestServer api;
    private KubeConnection connection;
    private final AtomicBoolean elected = new AtomicBoolean(true);

    @BeforeEach
    void server() {
        api = ApiTestServer.start();
        connection = KubeConnection.wrapping(api.newClient(), Duration.ofSeconds(5));
    }

    @AfterEach
    void stop() {
        connection.close();
        api.close();
    }

    private LeaderGuard guard(String identity) {
        return new LeaderGuard(new ApiCalls(connection), "nodegate-system", "nodegate-watch", identity, elected::get,
                Clock.fixed(NOW, ZoneOffset.UTC));
    }

    private void lease(String holder, Instant renewed) {
        api.apply(new LeaseBuilder().withNewMetadata().withName("nodegate-watch").withNamespace("nodegate-system")
                .endMetadata().withNewSpec().withHolderIdentity(holder).withLeaseDurationSeconds(15)
                .withRenewTime(ZonedDateTime.ofInstant(renewed, ZoneOffset.UTC)).endSpec().build());
    }

    @Test
    void aHolderWithAValidLeaseMayWriteAndNobodyElse() {
        lease("replica-a", NOW.minusSeconds(3));
        assertThat(guard("replica-a").whyNot()).isNull();
        assertThat(guard("replica-b").whyNot()).isEqualTo("the leader Lease nodegate-system/nodegate-watch is held "
                + "by replica-a");
        assertThat(api.requests("GET", "/apis/coordination.k8s.io/v1/namespaces/nodegate-system/leases/"
                + "nodegate-watch")).as("read, not remembered").isEqualTo(2);
    }

    @Test
    void aLeaseTakenOverOrExpiredOrUnreadableStopsTheWrite() {
        lease("replica-b", NOW.minusSeconds(1));
        assertThatThrownBy(() -> guard("replica-a").require()).isInstanceOf(LeadershipLost.class)
                .hasMessageContaining("held by replica-b");

        // this replica's own renewals failed for longer than the lease duration: another may take it any moment
        lease("replica-a", NOW.minusSeconds(16));
        assertThat(guard("replica-a").whyNot()).contains("expired at 2026-12-01T09:59:59Z");

        lease("replica-a", NOW);
        api.failOn("GET", "/apis/coordination.k8s.io/v1/namespaces/nodegate-system/leases/nodegate-watch", 500);
        assertThat(guard("replica-a").whyNot()).startsWith("cannot read the leader Lease").contains("500");
    }

    @Test
    void theElectorsWordComesFirstAndAMissingLeaseIsNoLeadership() {
        assertThat(guard("replica-a").whyNot()).contains("does not exist");
        lease("replica-a", NOW);
        elected.set(false);
        assertThat(guard("replica-a").whyNot()).isEqualTo("this replica no longer leads");
        assertThat(LeaderGuard.NONE.whyNot()).as("a single process without election").isNull();
    }
}
