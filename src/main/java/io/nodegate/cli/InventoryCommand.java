package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.nodegate.deploy.ManifestOutput;
import io.nodegate.lifecycle.inventory.InventoryStore;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NodeInventory;
import io.nodegate.model.TombstoneBook;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.InputException;
import io.nodegate.RefusedException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/** The declared inventory of hosts (docs/inventory.md): `inventory init` writes the first one from today's Nodes. */
@Command(name = "inventory", description = "The declared inventory of expected hosts (see 'inventory init').",
        subcommands = InventoryCommand.Init.class)
public final class InventoryCommand extends CommandGroup {

    @Command(name = "init", mixinStandardHelpOptions = true,
            header = "Print (or write) an inventory of the hosts today's Nodes are.",
            description = "Build the declared inventory from today's Nodes: one entry per Node with its name, "
                    + "systemUUID, machineID (an ID that identifies nothing, e.g. all zeros, is left out), roles and "
                    + "first InternalIP, as ConfigMap " + NodeInventory.CONFIGMAP + " in nodegate's namespace. "
                    + "Read it before you trust it: every Node there today is declared, including one that should "
                    + "not be. audit and the watch then report a Node the inventory does not place (NG112) and a "
                    + "declared host without a Node (NG113) or whose Node differs from its entry (NG114). Prints "
                    + "YAML unless --apply is given.",
            footer = {"", "Examples:",
                    "  nodegate inventory init > inventory.yaml        # read it, edit it, then:",
                    "  kubectl apply --server-side -f inventory.yaml   "
                            + "# (a plain apply fails at several hundred hosts)",
                    "  nodegate inventory init --apply                 # create it (never overwrites)",
                    "  nodegate inventory init --apply --replace       # write it over the one there",
                    "  nodegate inventory init -f nodes.json -o yaml   # from a saved 'kubectl get nodes -o json'"})
    public static final class Init implements Callable<Integer> {

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Mixin
        SourceOptions source;

        /** yaml by default, for `kubectl apply -f -`, as `policy` prints its manifests. */
        @Mixin
        OutputOptions output = OutputOptions.of(ManifestOutput.class, "yaml");

        @Option(names = {"-n", "--namespace"}, paramLabel = "NAMESPACE", defaultValue = TombstoneBook.DEFAULT_NAMESPACE,
                description = "nodegate's namespace, where the tombstones ledger is too (default: ${DEFAULT-VALUE}).")
        String namespace;

        @Option(names = "--apply", description = "Create the ConfigMap instead of printing it (refused when one "
                + "exists, unless --replace).")
        boolean apply;

        @Option(names = "--replace", description = "With --apply: replace an existing inventory (with the "
                + "resourceVersion it was read at: an edit made in between is refused, not lost).")
        boolean replace;

        @Override
        public Integer call() {
            if (replace && !apply) {
                throw new InputException("--replace goes with --apply");
            }
            if (apply && source.offline()) {
                throw new InputException("--apply writes to a live cluster; -f reads files only");
            }
            ClusterState state = source.load(false);
            NodeInventory inventory = NodeInventory.of(state.nodes());
            refuseWhatNoConfigMapHolds(inventory);
            PrintWriter out = spec.commandLine().getOut();
            var configMap = InventoryStore.configMap(inventory, namespace, null);
            if (!apply) {
                output.print(out, ManifestOutput.of(List.of(configMap)));
                return ExitCode.OK;
            }
            String done;
            try (KubeConnection connection = source.live.connect()) {
                done = new InventoryStore(new ApiReader(connection), namespace).write(inventory, replace);
            }
            output.print(out, new ManifestOutput(List.of(configMap), List.of(done + " ConfigMap " + namespace + "/"
                    + NodeInventory.CONFIGMAP + " (" + inventory.hosts().size() + " host(s))")));
            return ExitCode.OK;
        }

        /**
         * Refuses, before anything is printed or written, an inventory the API server would refuse: the ConfigMap
         * is the one place the hold policy and the watch read, and half an inventory would hold every host left out.
         */
        private static void refuseWhatNoConfigMapHolds(NodeInventory inventory) {
            long bytes = inventory.dataBytes();
            if (bytes <= NodeInventory.CONFIGMAP_LIMIT_BYTES) {
                return;
            }
            int hosts = inventory.hosts().size();
            throw new RefusedException("the inventory of " + hosts + " hosts is " + bytes + " bytes, and a ConfigMap "
                    + "holds at most " + NodeInventory.CONFIGMAP_LIMIT_BYTES + " (the API server refuses a longer "
                    + "one): about " + NodeInventory.CONFIGMAP_LIMIT_BYTES * (long) hosts / bytes + " hosts of these "
                    + "sizes fit. Nothing was printed or written. An inventory larger than one ConfigMap is not "
                    + "supported (docs/inventory.md, \"How large it can be\").");
        }
    }
}
