package io.nodegate.lifecycle.gate;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A gate run's inputs by name: what is not given stays "not given", never a default that reads as evidence. */
class GateRunInputsTest {

    private static final GateRequest REQ = new GateRequest("gpu-a07", null, null, null, null);

    @Test
    void nothingOptionalIsGivenUnlessNamed() {
        GateRunInputs in = GateRunInputs.builder(GateDecisionTest.BASE, REQ).build();
        assertThat(in.baseline()).isSameAs(GateDecisionTest.BASE);
        assertThat(in.request()).isSameAs(REQ);
        assertThat(in.annotate()).isFalse();
        assertThat(in.host()).isSameAs(HostInputs.NONE);
        assertThat(in.baselineFile()).isNull();
        assertThat(in.fleet()).isNull();
        assertThat(in.fleetError()).isNull();
        assertThat(in.machines()).isNull();
        assertThat(in.bmc()).isNull();
    }

    @Test
    void eachNamedInputLandsInItsOwnField() {
        GateRunInputs in = GateRunInputs.builder(GateDecisionTest.BASE, REQ).baselineFile(Path.of("b.json"))
                .etcd(List.of()).annotate(true).host(null).fleet(null, "--fleet-context b: LIST nodes: forbidden")
                .build();
        assertThat(in.baselineFile()).isEqualTo(Path.of("b.json"));
        assertThat(in.etcd()).isEmpty();
        assertThat(in.annotate()).isTrue();
        assertThat(in.host()).as("no host input is the empty one, not null").isSameAs(HostInputs.NONE);
        assertThat(in.fleet()).isNull();
        assertThat(in.fleetError()).isEqualTo("--fleet-context b: LIST nodes: forbidden");
    }
}
