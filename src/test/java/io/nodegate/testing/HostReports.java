package io.nodegate.testing;

import io.nodegate.model.host.HostReport;
import io.nodegate.source.host.HostReportJson;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Host reports for the lifecycle tests: `host inspect` runs on a fake host tree (src/test/resources/host-trees),
 * then the report is given the identity of the seed cluster's host it stands for (the trees carry their own
 * machine-ids) and sealed again, as `host inspect` on that host would have written it.
 */
public final class HostReports {

    public static final Path TREES = Path.of("src/test/resources/host-trees");

    private HostReports() {
    }

    /** Runs `host inspect` on a tree through {@code cli}; returns the written report. */
    public static Path inspect(Function<String[], CliRun> cli, Path dir, String treeCase, String... extra) {
        Path raw = dir.resolve(treeCase + "-raw.json");
        List<String> args = new ArrayList<>(List.of("host", "inspect", "--root", TREES.resolve(treeCase + "/tree").toString(),
                "--systemctl", TREES.resolve(treeCase + "/systemctl").toString(), "--out", raw.toString()));
        args.addAll(List.of(extra));
        CliRun run = cli.apply(args.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.all()).isIn(0, 1);
        return raw;
    }

    /** The report re-sealed with {@code change} applied (e.g. another identity). */
    public static Path rewrite(Path report, Path out, UnaryOperator<HostReport> change) throws IOException {
        HostReport changed = change.apply(HostReportJson.read(report)).withSha256(null);
        Files.writeString(out, HostReportJson.write(HostReportJson.seal(changed)));
        return out;
    }

    public static UnaryOperator<HostReport> identity(String hostname, String machineId, String productUuid) {
        return r -> new HostReport(r.kind(), r.schemaVersion(), r.inspectedAt(), r.root(), r.distribution(),
                new HostReport.Identity(hostname == null ? r.identity().hostname() : hostname, machineId, productUuid,
                        r.identity().bootId()),
                r.config(), r.loadBalancer(), r.nodePasswordFile(), r.services(), r.leftovers(), r.network(),
                r.expectedServer(), r.removal(), r.verdict(), r.verdictReasons(), r.warnings(), null);
    }

    public static UnaryOperator<HostReport> services(UnaryOperator<HostReport.Service> change) {
        return r -> new HostReport(r.kind(), r.schemaVersion(), r.inspectedAt(), r.root(), r.distribution(),
                r.identity(), r.config(), r.loadBalancer(), r.nodePasswordFile(),
                r.services().stream().map(change).toList(), r.leftovers(), r.network(),
                r.expectedServer(), r.removal(), r.verdict(), r.verdictReasons(), r.warnings(), null);
    }
}
