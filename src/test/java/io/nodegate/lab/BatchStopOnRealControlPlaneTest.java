package io.nodegate.lab;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.testing.Await;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.RealControlPlane;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.nodegate.testing.RealControlPlane.agent;
import static io.nodegate.lab.LabNodes.ready;
import static io.nodegate.lab.LabNodes.unreachable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seed's batch stop on a real control plane: four hosts power off together, the real node lifecycle controller
 * (kube-controller-manager at its 1.34 defaults: --node-monitor-grace-period 50s) marks their Nodes Unknown and
 * taints them unreachable, and {@code nodegate audit} reads that and reports NG101 and NG103; when the hosts come
 * back their kubelets make the Nodes Ready again.
 */
@ExtendWith(RealControlPlane.Resolver.class)
class BatchStopOnRealControlPlaneTest {

    private static RealControlPlane lab;

    @BeforeAll
    static void lab(RealControlPlane controlPlane) {
        lab = controlPlane;
    }

    @Test
    void fourKubeletsStopTheControllerMarksThemUnknownAndAuditReportsNg101AndNg103() {
        String[] stopped = {agent(1), agent(2), agent(3), agent(4)};
        try (KubernetesClient admin = lab.client("admin")) {
            for (String name : stopped) {
                assertThat(ready(admin.nodes().withName(name).get())).as(name + " before").isEqualTo("True");
            }
            lab.lab("kubelet", "stop", stopped).requireOk("stop four kubelets");
            try {
                Duration took = Await.until("the node lifecycle controller marks the four Unknown and unreachable",
                        Duration.ofSeconds(120), () -> {
                            for (String name : stopped) {
                                Node n = admin.nodes().withName(name).get();
                                if (!"Unknown".equals(ready(n)) || !unreachable(n, "NoSchedule")) {
                                    return false;
                                }
                            }
                            return true;
                        });
                System.out.println("Unknown and tainted " + took.toSeconds() + " s after the stop");
                assertThat(ready(admin.nodes().withName(agent(5)).get())).as("a running kubelet's Node").isEqualTo("True");

                CliRun audit = CliRun.run("audit", "--kubeconfig", lab.kubeconfig().toString(), "--context", "admin",
                        "-o", "json");
                List<String> codes = new ArrayList<>();
                for (JsonNode f : JsonMapper.builder().build().readTree(audit.out()).get("findings")) {
                    codes.add(f.get("code").asString());
                }
                assertThat(codes).as(audit.all()).contains("NG101", "NG103");
            } finally {
                lab.lab("kubelet", "start", stopped).requireOk("start the four kubelets again");
            }
            Await.until("the four Ready again", Duration.ofSeconds(60), () -> {
                for (String name : stopped) {
                    Node n = admin.nodes().withName(name).get();
                    if (!"True".equals(ready(n)) || unreachable(n, "NoSchedule")) {
                        return false;
                    }
                }
                return true;
            });
        }
    }
}
