package io.nodegate.lifecycle.remove;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** remove's progress lines fit 120 columns, as every table line does, without splitting a word. */
class ProgressLineWidthTest {

    @Test
    void aLongLeftoverLineIsBrokenBetweenWordsOntoIndentedLines() {
        String line = "+0s: still there: Lease kube-node-lease/gpu-a07, Secret kube-system/gpu-a07.node-password.rke2, "
                + "5 pod(s) bound to gpu-a07: [gpu-operator/nvidia-driver-daemonset-x7k2p, "
                + "gpu-operator/nvidia-device-plugin-daemonset-2lq9z, kube-system/rke2-canal-8d7wq] …";
        assertThat(line.length()).isGreaterThan(200);

        String out = NodeRemover.withinWidth(line);

        String[] lines = out.split("\n");
        assertThat(lines).hasSizeGreaterThan(1).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(120));
        assertThat(Arrays.stream(lines).skip(1)).allSatisfy(l -> assertThat(l).startsWith("    "));
        assertThat(String.join(" ", out.split("\\s+"))).isEqualTo(String.join(" ", line.split("\\s+")));
    }

    @Test
    void aLineThatFitsIsLeftAsItIs() {
        String line = "+2s: still there: Lease kube-node-lease/gpu-a07";
        assertThat(NodeRemover.withinWidth(line)).isEqualTo(line);
    }
}
