package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.policy.MachinePolicySettings;
import io.nodegate.deploy.ManifestOutput;
import io.nodegate.policy.PolicyApplier;
import io.nodegate.policy.PolicyBundle;
import io.nodegate.policy.PolicySettings;
import io.nodegate.source.kube.ApiCalls;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.source.rancher.RancherMachines;
import io.nodegate.InputException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** Emits (or applies) the admission policy that enforces the gate, and the operators' least-privilege RBAC. */
@Command(name = "policy",
        header = "Emit (or apply) the admission policy and RBAC that make the API server enforce the gate.",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
                "Emit the ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1, Kubernetes",
                ">= 1.30) that makes the API server enforce the gate, and least-privilege RBAC",
                "for the operators group:",
                "  * DELETE of a Node is denied unless its nodegate.io/gate-verdict annotation",
                "    is PASS (members of the break-glass group excepted);",
                "  * adding, changing or removing nodegate.io/* annotations on a Node (also",
                "    through nodes/status) is denied unless the requester is an operator;",
                "  * with --quarantine: registering a Node whose name, systemUUID or",
                "    machineID is tombstoned by 'nodegate remove' is denied;",
                "  * with --hold: a MutatingAdmissionPolicy (admissionregistration.k8s.io/v1beta1,",
                "    Kubernetes 1.34 with its feature gate and API on) adds the taint",
                "    nodegate.io/unaccepted:NoSchedule at CREATE to a Node that is tombstoned or",
                "    that the declared inventory does not place, until 'nodegate accept'",
                "    (--hold-effect NoExecute for hosts that must not run anything).",
                "With --machines, the policy for Rancher's management cluster instead: DELETE of",
                "a Rancher custom node's Machine is denied unless it carries a PASS bound to",
                "that Machine and the Node it points at (gate --machine-context --annotate).",
                "Prints YAML (nothing changes) unless --apply is given. See docs/policy.md.",
                "--apply then waits (up to 30 s) until the API server enforces the gate, and says",
                "so on stderr: a new policy is in force only once the API server's informers have it."},
        footer = {"",
                "Examples:",
                "  nodegate policy > gate.yaml && kubectl apply -f gate.yaml",
                "  nodegate policy --operators-group platform:node-ops --no-rancher -o json",
                "  nodegate policy --node-password-secret worker-7.node-password.rke2",
                "  # also refuse removed hosts at registration (tombstones in nodegate-system):",
                "  nodegate policy --quarantine | kubectl apply -f -",
                "  # hold newcomers at CREATE (kube-apiserver serving MutatingAdmissionPolicy v1beta1):",
                "  nodegate policy --hold | kubectl apply -f -",
                "  nodegate policy --apply --kubeconfig ~/.kube/prod.yaml",
                "  # on Rancher's management cluster: gate the Machine delete of Rancher custom nodes",
                "  nodegate policy --machines --apply --context rancher"})
public final class PolicyCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--operators-group", paramLabel = "GROUP", defaultValue = PolicySettings.DEFAULT_OPERATORS_GROUP,
            description = "Group allowed to write nodegate.io/* annotations, bound to the RBAC (default: ${DEFAULT-VALUE}).")
    String operatorsGroup;

    @Option(names = "--break-glass-group", paramLabel = "GROUP",
            defaultValue = PolicySettings.DEFAULT_BREAK_GLASS_GROUP,
            description = "Group whose members may delete a Node without a PASS verdict (default: ${DEFAULT-VALUE}).")
    String breakGlassGroup;

    @Option(names = "--no-rancher",
            description = "Leave out the cattle-system Role/RoleBinding (for clusters without Rancher, where that "
                    + "namespace does not exist and the Role could not be created).")
    boolean noRancher;

    @Option(names = "--node-password-secret", paramLabel = "NAME",
            description = "Grant delete only on these kube-system Secrets (exact names, repeatable, e.g. "
                    + "worker-7.node-password.rke2). Default: delete on any Secret in kube-system.")
    List<String> nodePasswordSecrets = new ArrayList<>();

    @Option(names = "--quarantine",
            description = "Also emit the quarantine policy: the API server refuses to register a Node whose name, "
                    + "systemUUID or machineID is tombstoned by 'nodegate remove' (until 'nodegate readmit').")
    boolean quarantine;

    @Option(names = "--hold",
            description = "Also emit the newcomer hold: a MutatingAdmissionPolicy (admissionregistration.k8s.io/v1beta1) "
                    + "that taints a Node nodegate.io/unaccepted:NoSchedule at CREATE when its name, systemUUID or "
                    + "machineID is tombstoned or the declared inventory does not place it (until 'nodegate accept'). "
                    + "Needs kube-apiserver 1.34 with --feature-gates MutatingAdmissionPolicy=true and --runtime-config "
                    + "admissionregistration.k8s.io/v1beta1=true; see docs/inventory.md.")
    boolean hold;

    @Option(names = "--hold-effect", paramLabel = "EFFECT", defaultValue = "NoSchedule",
            description = "With --hold: the taint's effect, NoSchedule (default: nothing new is scheduled there) or "
                    + "NoExecute (also keeps off, and evicts, every pod without a toleration for it, DaemonSet pods "
                    + "included). Give the watch the same --hold-effect.")
    String holdEffect;

    @Option(names = {"-n", "--namespace"}, paramLabel = "NAMESPACE", defaultValue = "nodegate-system",
            description = "Namespace of the nodegate-tombstones ConfigMap: created here with the Role that lets "
                    + "operators record and release tombstones (default: ${DEFAULT-VALUE}).")
    String namespace;

    @Option(names = "--machines",
            description = "Emit the Machine policy for Rancher's management (local) cluster instead: a Rancher custom "
                    + "node's Cluster API Machine may be deleted only with a PASS from 'nodegate gate --machine-context "
                    + "--annotate' bound to that Machine and the Node it points at; plus the operators' Role in "
                    + "--machine-namespace. Apply it there (--apply --context RANCHER).")
    boolean machines;

    @Option(names = "--exempt-user", paramLabel = "USER",
            description = "With --machines: a user whose Machine deletes are not gated, printed in the policy "
                    + "(repeatable). For deleting a whole cluster deliberately: see docs/policy.md.")
    List<String> exemptUsers = new ArrayList<>();

    @Option(names = "--exempt-group", paramLabel = "GROUP",
            description = "With --machines: a group whose Machine deletes are not gated (repeatable).")
    List<String> exemptGroups = new ArrayList<>();

    @Option(names = "--machine-namespace", paramLabel = "NAMESPACE",
            defaultValue = RancherMachines.DEFAULT_NAMESPACE,
            description = "With --machines: the Fleet workspace namespace of the Machines, where the operators' Role "
                    + "goes (default: ${DEFAULT-VALUE}).")
    String machineNamespace;

    @Option(names = "--apply",
            description = "Server-side apply the objects (field manager 'nodegate') instead of printing them, then "
                    + "wait until the API server enforces the gate (a refused server-side dry run; up to 30 s). Needs "
                    + "rights to create admission policies and RBAC (cluster-admin).")
    boolean apply;

    /** yaml by default, for `kubectl apply -f -`; with --apply, table says what was applied. */
    @Mixin
    OutputOptions output = OutputOptions.of(ManifestOutput.class, "yaml");

    @Mixin
    LiveOptions source = new LiveOptions();

    @Override
    public Integer call() {
        PolicyBundle bundle = machines ? machineBundle() : downstreamBundle();
        PrintWriter out = spec.commandLine().getOut();
        if (!apply) {
            output.print(out, ManifestOutput.of(bundle.objects()));
            return ExitCode.OK;
        }
        PolicyApplier.Result result;
        try (KubeConnection connection = source.connect()) {
            result = PolicyApplier.apply(new ApiCalls(connection), bundle,
                    PolicyApplier.ENFORCEMENT_DEADLINE);
        }
        List<String> actions = new ArrayList<>();
        result.applied().forEach(what -> actions.add("applied " + what));
        result.skipped().forEach(what -> actions.add("skipped " + what));
        // on stderr, whatever -o prints: whether the apiserver enforces what was applied
        result.enforcement().forEach(line -> spec.commandLine().getErr().println("nodegate: " + line));
        // -o yaml/json/name after --apply print the objects as applied, as `kubectl apply -o` does
        output.print(out, new ManifestOutput(bundle.objects(), actions));
        return ExitCode.OK;
    }

    private PolicyBundle downstreamBundle() {
        for (String machineOnly : List.of("--exempt-user", "--exempt-group", "--machine-namespace")) {
            if (spec.commandLine().getParseResult().hasMatchedOption(machineOnly)) {
                throw new InputException(machineOnly + " belongs to the Machine policy: add --machines");
            }
        }
        if (!hold && spec.commandLine().getParseResult().hasMatchedOption("--hold-effect")) {
            throw new InputException("--hold-effect goes with --hold: it is the effect of the newcomer hold's taint");
        }
        return PolicyBundle.of(new PolicySettings(operatorsGroup, breakGlassGroup, !noRancher, nodePasswordSecrets,
                quarantine, namespace, hold, holdEffect));
    }

    private PolicyBundle machineBundle() {
        for (String downstreamOnly : List.of("--no-rancher", "--node-password-secret", "--quarantine", "--hold",
                "--hold-effect", "--namespace")) {
            if (spec.commandLine().getParseResult().hasMatchedOption(downstreamOnly)) {
                throw new InputException(downstreamOnly + " belongs to the downstream cluster's Node policy,"
                        + " not to --machines (Rancher's management cluster)");
            }
        }
        return PolicyBundle.ofMachines(new MachinePolicySettings(operatorsGroup, breakGlassGroup, exemptUsers,
                exemptGroups, machineNamespace));
    }
}
