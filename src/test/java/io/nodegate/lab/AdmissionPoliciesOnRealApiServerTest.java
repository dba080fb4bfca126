package io.nodegate.lab;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.lifecycle.quarantine.TombstoneLedger;
import io.nodegate.model.Tombstone;
import io.nodegate.testing.Await;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.RealControlPlane;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.nodegate.testing.RealControlPlane.agent;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admission policies that {@code nodegate policy} prints, on a real kube-apiserver (see
 * {@link RealControlPlane}): the apiserver type-checks them against its own schemas, evaluates them with its own CEL
 * environment, and sees a kubelet's real {@code request.userInfo} (system:node:NAME in system:nodes, after
 * NodeRestriction). The stand-in tests evaluate the same expressions with dev.cel; these are the ones the apiserver
 * itself answers.
 */
@ExtendWith(RealControlPlane.Resolver.class)
class AdmissionPoliciesOnRealApiServerTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String OPERATOR_AS = "--as=lab-operator";
    private static final String OPERATORS_GROUP = "--as-group=nodegate:operators";

    private static RealControlPlane lab;
    private static String printed;

    @BeforeAll
    static void applyPolicies(RealControlPlane controlPlane) {
        lab = controlPlane;
        // the hand-over cordon policy's parameter kind is the NodeHandover CRD: without it the apiserver cannot type
        // its params (install ships the CRD first, as here)
        CliRun crds = CliRun.run("install", "--crds-only");
        assertThat(crds.exitCode()).as(crds.all()).isZero();
        lab.kubectl(crds.out(), "apply", "-f", "-").requireOk("kubectl apply of install --crds-only");
        lab.kubectl(null, "wait", "--for=condition=Established", "--timeout=30s", "crd/nodehandovers.nodegate.io")
                .requireOk("the CRD established");
        CliRun policy = CliRun.run("policy", "--quarantine", "--no-rancher");
        assertThat(policy.exitCode()).as(policy.all()).isZero();
        printed = policy.out();
        lab.kubectl(null, "create", "namespace", "nodegate-system");
        lab.kubectl(printed, "apply", "-f", "-").requireOk("kubectl apply of nodegate policy --quarantine");
        // The apiserver enforces a new policy only once its informers have it (not at the apply's answer): wait
        // until a server-side dry run of a delete is refused, as it is from then on.
        lab.kubectl(LabNodes.probe("t-policy-probe"), "create", "-f", "-").requireOk("create the probe Node");
        Await.until("the gate policy enforced", Duration.ofSeconds(30), () -> lab.kubectl(null, "delete", "node",
                "t-policy-probe", "--dry-run=server").output().contains("ValidatingAdmissionPolicy 'nodegate-node-gate'"));
    }

    @AfterAll
    static void removePolicies() {
        // Only the policies and their bindings: the namespace and RBAC stay for the other classes of the run.
        if (lab != null && printed != null) {
            lab.kubectl(null, "delete", "--ignore-not-found", "node", "t-policy-probe", "--as=lab-admin",
                    "--as-group=system:masters", "--as-group=nodegate:break-glass");
            for (String name : policyNames(printed)) {
                lab.kubectl(null, "delete", "--ignore-not-found", "validatingadmissionpolicybinding", name);
                lab.kubectl(null, "delete", "--ignore-not-found", "validatingadmissionpolicy", name);
            }
        }
    }

    private static List<String> policyNames(String yaml) {
        List<String> names = new ArrayList<>();
        Matcher m = Pattern.compile("kind: \"ValidatingAdmissionPolicy\"\\n(?:.*\\n)*?  name: \"([^\"]+)\"").matcher(yaml);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    private static JsonNode json(RealControlPlane.Result r) {
        try {
            return JSON.readTree(r.output());
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + r.output(), e);
        }
    }

    @Test
    void everyPrintedPolicyIsAcceptedAndTypeChecksWithoutWarnings() {
        List<String> names = policyNames(printed);
        assertThat(names).contains("nodegate-node-gate", "nodegate-node-quarantine");
        CliRun install = CliRun.run("install", "--with-policy", "--no-rancher", "-o", "yaml",
                "--image", "registry.example/nodegate:lab");
        assertThat(install.exitCode()).as(install.all()).isZero();
        assertThat(names).as("install --with-policy prints the same policies").containsAll(policyNames(install.out()));
        for (String name : names) {
            JsonNode[] status = new JsonNode[1];
            // The apiserver type-checks asynchronously; its status names the generation it checked.
            Await.until("typeChecking of " + name, Duration.ofSeconds(30), () -> {
                JsonNode vap = json(lab.kubectl(null, "get", "validatingadmissionpolicy", name, "-o", "json")
                        .requireOk("get " + name));
                status[0] = vap.path("status");
                return status[0].path("observedGeneration").asLong(-1) == vap.path("metadata").path("generation").asLong()
                        && status[0].has("typeChecking");
            });
            assertThat(status[0].path("typeChecking").path("expressionWarnings")).as(name + ": " + status[0]).isEmpty();
        }
    }

    /** The apiserver's own check leaves the variables out (see PolicyTypeCheck): a typed copy checks them too. */
    @Test
    void everyVariableAndMatchConditionTypeChecksAgainstTheNodeSchema() {
        for (String name : policyNames(printed)) {
            JsonNode applied = json(lab.kubectl(null, "get", "validatingadmissionpolicy", name, "-o", "json")
                    .requireOk("get " + name));
            assertThat(PolicyTypeCheck.warnings(lab, applied, "t-typed-" + name, null)).as(name).isEmpty();
        }
    }

    @Test
    void gateRefusesAnAdminsDeleteWithoutAPassAndAdmitsItWithOne() {
        String node = "t-gate-probe";
        lab.kubectl(LabNodes.probe(node), "create", "-f", "-").requireOk("create Node " + node);

        RealControlPlane.Result refused = lab.kubectl(null, "delete", "node", node, "--wait=false");
        assertThat(refused.code()).as(refused.output()).isNotZero();
        assertThat(refused.output()).contains("ValidatingAdmissionPolicy 'nodegate-node-gate'")
                .contains("nodegate: node " + node + " may not be deleted: annotation nodegate.io/gate-verdict is missing");

        String uid = lab.kubectl(null, "get", "node", node, "-o", "jsonpath={.metadata.uid}").requireOk("uid").output();
        String gateAt = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        String[] annotations = {"nodegate.io/gate-verdict=PASS", "nodegate.io/gate-uid=" + uid, "nodegate.io/gate-at=" + gateAt};

        // An admin who is not an operator may not write the gate's annotations at all.
        RealControlPlane.Result notOperator = lab.kubectl(null, concat(new String[]{"annotate", "node", node}, annotations));
        assertThat(notOperator.code()).as(notOperator.output()).isNotZero();
        assertThat(notOperator.output()).contains("nodegate: only members of nodegate:operators may add, change or remove");

        lab.kubectl(null, concat(new String[]{"annotate", "node", node, OPERATOR_AS, OPERATORS_GROUP}, annotations))
                .requireOk("annotate as an operator");
        lab.kubectl(null, "delete", "node", node, "--wait=false").requireOk("delete with a PASS");
        RealControlPlane.Result gone = lab.kubectl(null, "get", "node", node);
        assertThat(gone.output()).contains("NotFound");
    }

    /**
     * The reasons are words anyone may write (an on-call engineer cordoning by hand, a drain tool): the gate policy
     * lets an admin who is not an operator write nodegate.io/cordon-reason and nodegate.io/uncordon-reason on a Node,
     * and still refuses the same request when it also writes a verdict, leaving the Node as it was.
     */
    @Test
    void anyoneMayWriteACordonReasonButNotAVerdict() {
        String node = "t-reason-probe";
        lab.kubectl(LabNodes.probe(node), "create", "-f", "-").requireOk("create Node " + node);
        try {
            lab.kubectl(null, "annotate", "node", node, "nodegate.io/cordon-reason=RMA 4411: bad DIMM")
                    .requireOk("a cordon reason written by an admin who is not an operator");
            lab.kubectl(null, "annotate", "--overwrite", "node", node, "nodegate.io/cordon-reason=RMA 4412",
                    "nodegate.io/uncordon-reason=case-2: back from RMA").requireOk("both reasons changed");

            RealControlPlane.Result withVerdict = lab.kubectl(null, "annotate", "--overwrite", "node", node,
                    "nodegate.io/cordon-reason=changed", "nodegate.io/gate-verdict=PASS");
            assertThat(withVerdict.code()).as(withVerdict.output()).isNotZero();
            assertThat(withVerdict.output()).contains("ValidatingAdmissionPolicy 'nodegate-node-gate'",
                    "nodegate: only members of nodegate:operators may add, change or remove");

            JsonNode annotations = json(lab.kubectl(null, "get", "node", node, "-o", "json").requireOk("get " + node))
                    .path("metadata").path("annotations");
            assertThat(annotations.path("nodegate.io/cordon-reason").asString()).isEqualTo("RMA 4412");
            assertThat(annotations.path("nodegate.io/uncordon-reason").asString()).isEqualTo("case-2: back from RMA");
            assertThat(annotations.has("nodegate.io/gate-verdict")).isFalse();
        } finally {
            lab.kubectl(null, "delete", "--ignore-not-found", "node", node, "--as=lab-admin",
                    "--as-group=system:masters", "--as-group=nodegate:break-glass");
        }
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @Test
    void quarantineRefusesATombstonedHostUnderANewNameAndLetsALiveClonesKubeletRestart() {
        String host = agent(6);
        String clone = host + "-clone";
        String renamed = host + "-renamed";
        lab.lab("kubelet", "clone", host, "--as", clone).requireOk("clone " + host);
        Await.until("the clone's Node " + clone + " registered", Duration.ofSeconds(30),
                () -> lab.kubeletLog(clone).contains("registered Node " + clone));

        try (KubernetesClient admin = lab.client("admin")) {
            Node removed = admin.nodes().withName(host).get();
            assertThat(removed).as("Node " + host).isNotNull();
            lab.lab("kubelet", "stop", host).requireOk("stop " + host);
            lab.kubectl(null, "delete", "node", host, "--as=lab-admin", "--as-group=system:masters",
                    "--as-group=nodegate:break-glass").requireOk("break-glass delete of " + host);
            // What remove records: the host's name and identity, and the live Node that shares it (the clone).
            new TombstoneLedger(admin, "nodegate-system").record(new Tombstone(host, removed.getMetadata().getUid(),
                    removed.getStatus().getNodeInfo().getSystemUUID(), removed.getStatus().getNodeInfo().getMachineID(),
                    Instant.now(), null, "lab-test", null, List.of(clone), List.of(clone)));
        }

        // The binding reads its ConfigMaps through an informer too: wait until the tombstone is in force.
        Await.until("the tombstone in force", Duration.ofSeconds(30), () -> lab.kubectl(LabNodes.probe(host), "create",
                "--dry-run=server", "-f", "-").output().contains("is a removed host"));
        // A VM built from the host's image: its machine-id under another firmware UUID is not the host, and is
        // admitted; the same machine-id with no firmware UUID to contradict it is refused.
        String machineId = lab.kubectl(null, "get", "node", clone, "-o", "jsonpath={.status.nodeInfo.machineID}")
                .requireOk("the clone's machineID").output().trim();
        RealControlPlane.Result fromImage = lab.kubectl(LabNodes.registering(host + "-image",
                "4c4c4544-0043-3010-8031-b4c04f433031", machineId), "create", "--dry-run=server", "-f", "-");
        assertThat(fromImage.code()).as(fromImage.output()).isZero();
        RealControlPlane.Result noUuid = lab.kubectl(LabNodes.registering(host + "-nouuid", "", machineId), "create",
                "--dry-run=server", "-f", "-");
        assertThat(noUuid.code()).as(noUuid.output()).isNotZero();
        assertThat(noUuid.output()).contains("(machineID " + machineId.toLowerCase() + " is tombstoned as " + host);

        lab.lab("kubelet", "rejoin", host, "--as", renamed).requireOk("rejoin " + host);
        Await.until("the renamed host's registration refused", Duration.ofSeconds(30),
                () -> lab.kubeletLog(host).contains("nodegate: node " + renamed + " is a removed host"));
        assertThat(lab.kubeletLog(host)).contains("ValidatingAdmissionPolicy 'nodegate-node-quarantine'");
        assertThat(lab.kubectl(null, "get", "node", renamed).output()).contains("NotFound");
        lab.lab("kubelet", "stop", host).requireOk("stop the renamed host");

        // The clone's kubelet restarts: it POSTs its Node again (a CREATE the quarantine sees before storage finds
        // the Node exists); its exemption lets it through to AlreadyExists, and it goes on as before.
        lab.lab("kubelet", "stop", clone).requireOk("stop " + clone);
        lab.lab("kubelet", "start", clone).requireOk("start " + clone);
        Await.until("the clone registered again after its restart", Duration.ofSeconds(30),
                () -> lab.kubeletLog(clone).split("registered Node " + clone, -1).length - 1 == 2);
        assertThat(lab.kubeletLog(clone)).doesNotContain("removed host").doesNotContain("unable to register");
    }
}
