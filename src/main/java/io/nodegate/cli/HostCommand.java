package io.nodegate.cli;

import io.nodegate.time.TimeFlags;
import io.nodegate.ExitCode;
import io.nodegate.model.host.HostReport;
import io.nodegate.model.host.HostVerdict;
import io.nodegate.render.HostReportRenderer;
import io.nodegate.InputException;
import io.nodegate.source.host.HostInspector;
import io.nodegate.source.host.HostReportJson;
import io.nodegate.source.host.ServiceManager;
import io.nodegate.source.host.SystemctlServices;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** `nodegate host`: evidence read on the host itself, where the cluster API cannot see. */
@Command(name = "host",
        mixinStandardHelpOptions = true,
        description = {"Read evidence on a host itself (run there, as root): what no Kubernetes API shows."},
        subcommands = {HostCommand.Inspect.class},
        footer = {"", "Examples:", "  sudo nodegate host inspect --out /tmp/$(hostname)-host-report.json"})
public final class HostCommand extends CommandGroup {

    @Command(name = "inspect",
            sortOptions = false,
            mixinStandardHelpOptions = true,
            description = {
                    "Write a host report: identity (hostname, /etc/machine-id, DMI product UUID, boot ID), the "
                            + "RKE2/k3s agent config (server, node-name, node-ip from config.yaml and config.yaml.d; "
                            + "the token only as set/not set), the agent load-balancer file, whether "
                            + "/etc/rancher/node/password exists (never its content), the agent services as "
                            + "`systemctl show` reports them (enabled and active separately), what a stopped agent "
                            + "leaves (containerd-shims, CNI interfaces, pod volume mounts, uninstall/killall "
                            + "scripts), and each NIC's addresses with the default route.",
                    "Verdict: clean (nothing left that can rejoin), stopped (config remains: a start or reboot "
                            + "rejoins), points-elsewhere (the server is not --expect-server), running.",
                    "Needs only Java 17: no cluster access, nothing is changed. The JSON report carries a sha256 "
                            + "of its canonical body; hand it to `nodegate gate --host-report FILE`.%n"},
            footer = {"",
                    "Examples:",
                    "  sudo nodegate host inspect",
                    "  sudo nodegate host inspect --out /tmp/gpu-a07-host-report.json",
                    "  sudo nodegate host inspect --expect-server https://192.0.2.10:9345 -o json",
                    "  nodegate host inspect --root /mnt/gpu-a07 --systemctl ./systemctl-answers.sh",
                    "",
                    "Exit codes: 0 clean and no warning, 1 not clean or a warning, 2 usage or input error,",
                    "            3 the host could not be read (e.g. not root, systemctl failed)."})
    public static final class Inspect implements Callable<Integer> {

        @Option(names = "--root", paramLabel = "DIR", defaultValue = "/",
                description = "Read the host's files under DIR (default: ${DEFAULT-VALUE}); e.g. a mounted disk.")
        Path root = Path.of("/");

        @Option(names = "--out", paramLabel = "FILE",
                description = "Also write the JSON report to FILE (written whole, then moved into place).")
        Path out;

        @Option(names = "--expect-server", paramLabel = "URL", split = ",",
                description = "The cluster's server address(es) (URL or host); a config naming another server is "
                        + "points-elsewhere. Repeatable.")
        List<String> expectServer = new ArrayList<>();

        @Option(names = "--removed-at", paramLabel = "TIME",
                description = "When you ran the uninstall script (ISO-8601, or local time with --tz). Recorded in "
                        + "the report when systemd no longer knows the agent unit.")
        String removedAt;

        @Option(names = "--tz", paramLabel = "ZONE", description = "Zone for a --removed-at without offset.")
        String tz;

        @Option(names = "--systemctl", paramLabel = "COMMAND", defaultValue = "systemctl",
                description = "The systemctl to ask (default: ${DEFAULT-VALUE} on PATH). With --root other than /, "
                        + "services are read only when this is given, since the running systemd is not the root's.")
        String systemctl = "systemctl";

        @Mixin
        OutputOptions output = OutputOptions.of(HostReportRenderer.Output.class);

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        private final Environment env;

        Inspect() {
            this(Environment.system());
        }

        Inspect(Environment env) {
            this.env = env;
        }

        @Override
        public Integer call() {
            if (!Files.isDirectory(root)) {
                throw new InputException("--root " + root + " is not a directory");
            }
            for (String s : expectServer) {
                if (s.isBlank()) {
                    throw new InputException("--expect-server: empty address");
                }
            }
            Instant ownerRemovedAt = TimeFlags.parseTime(removedAt, tz, "--removed-at");
            boolean liveRoot = root.toAbsolutePath().normalize().equals(Path.of("/"));
            boolean systemctlGiven = spec.commandLine().getParseResult().hasMatchedOption("--systemctl");
            ServiceManager services = liveRoot || systemctlGiven ? new SystemctlServices(systemctl) : null;
            HostInspector inspector = new HostInspector(root, services, env.clock(),
                    liveRoot ? HostInspector::resolveWithJdk : name -> List.of());
            HostReport report = HostReportJson.seal(inspector.inspect(expectServer, ownerRemovedAt));
            if (out != null) {
                write(out, HostReportJson.write(report));
            }
            output.print(spec.commandLine().getOut(), new HostReportRenderer.Output(report,
                    HostReportJson.tree(report), out == null ? null : out.toString()));
            return report.verdict() == HostVerdict.CLEAN && report.warnings().isEmpty()
                    ? ExitCode.OK : ExitCode.FINDINGS;
        }

        private static void write(Path file, String text) {
            Path abs = file.toAbsolutePath();
            Path tmp = abs.resolveSibling(abs.getFileName() + ".tmp");
            try {
                Files.writeString(tmp, text, StandardCharsets.UTF_8);
                Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                throw new InputException("--out " + file + ": cannot write (" + e.getMessage() + ")", e);
            }
        }
    }
}
