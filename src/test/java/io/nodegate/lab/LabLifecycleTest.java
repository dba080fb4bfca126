package io.nodegate.lab;

import io.nodegate.testing.RealControlPlane;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bin/lab itself: a second lab runs beside the run's shared one (its own ports), its contexts work, and
 * {@code bin/lab down} leaves no process behind.
 */
@ExtendWith(RealControlPlane.Resolver.class)
class LabLifecycleTest {

    /** Every process whose command line names the lab's directory (all of them do: data dir, certificates, kubeconfigs). */
    private static List<ProcessHandle> processesOf(RealControlPlane lab) {
        String dir = lab.dir() + "/";
        return ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().map(c -> c.contains(dir)).orElse(false))
                .filter(p -> p.pid() != ProcessHandle.current().pid())
                .toList();
    }

    @Test
    void aSecondLabRunsBesideTheSharedOneAndDownLeavesNothingRunning(RealControlPlane shared) throws IOException {
        RealControlPlane solo = RealControlPlane.start(1, 1, "solo");
        try {
            assertThat(solo.kubectl(null, "get", "nodes", "-o", "name").requireOk("get nodes").output().trim())
                    .isEqualTo("node/solo-server-1");
            assertThat(shared.kubectl(null, "get", "node", RealControlPlane.server(1), "-o", "name").requireOk("shared")
                    .output().trim()).isEqualTo("node/" + RealControlPlane.server(1));
            RealControlPlane.Result viewerWrite = solo.kubectl(null, "--context", "viewer", "label", "node",
                    "solo-server-1", "x=y");
            assertThat(viewerWrite.code()).isNotZero();
            assertThat(viewerWrite.output()).contains("forbidden");
            String status = solo.status().requireOk("status").output();
            assertThat(status).contains("running  etcd").contains("running  kube-apiserver")
                    .contains("running  kube-controller-manager").contains("running  kubelet-solo-server-1");
            assertThat(processesOf(solo)).hasSize(4);
        } finally {
            solo.down().requireOk("bin/lab down");
        }
        assertThat(processesOf(solo)).as("processes left after bin/lab down").isEmpty();
    }
}
