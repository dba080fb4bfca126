package io.nodegate.cli;

import io.nodegate.ExitCode;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;

import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static io.nodegate.testing.NodeFixtures.nodePassword;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AuditCommandTest {

    private static AuditCommand parse(String... args) {
        AuditCommand command = new AuditCommand();
        new CommandLine(command).parseArgs(args);
        return command;
    }

    @Test
    void exitsOneOnAWarningAndZeroOnInfoOnly() {
        var warning = cluster().healthy(node("a").internalIp("10.0.2.2")).healthy(node("b").internalIp("10.0.2.2"))
                .build();
        var infoOnly = cluster().healthy(node("keep-1"))
                .secret(nodePassword("keep-1.node-password.rke2", null))
                .secret(nodePassword("gone.node-password.rke2", null)).build();
        var clean = cluster().healthy(node("keep-1")).build();

        StringWriter out = new StringWriter();
        assertThat(parse().audit(warning, new PrintWriter(out))).isEqualTo(ExitCode.FINDINGS);
        assertThat(parse().audit(infoOnly, new PrintWriter(new StringWriter()))).isEqualTo(ExitCode.OK);
        assertThat(parse().audit(clean, new PrintWriter(new StringWriter()))).isEqualTo(ExitCode.OK);
        assertThat(out.toString()).contains("NG120");
    }

    @Test
    void flagsReachTheSettings() {
        AuditCommand c = parse("--batch-window", "1m", "--newcomer-window", "1d", "--abandoned-after", "7d",
                "--grace-period", "40s");
        assertThat(c.settings().batchWindow()).isEqualTo(Duration.ofMinutes(1));
        assertThat(c.settings().newcomerWindow()).isEqualTo(Duration.ofDays(1));
        assertThat(c.settings().abandonedAfter()).isEqualTo(Duration.ofDays(7));
        assertThat(c.settings().gracePeriod()).isEqualTo(Duration.ofSeconds(40));

        AuditCommand defaults = parse();
        assertThat(defaults.settings().batchWindow()).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.settings().newcomerWindow()).isEqualTo(Duration.ofHours(72));
        assertThat(defaults.settings().abandonedAfter()).isEqualTo(Duration.ofHours(72));
        assertThat(defaults.settings().gracePeriod()).isNull();
    }

    @Test
    void jsonOutputPipes() {
        var state = cluster().healthy(node("a")).build();
        StringWriter out = new StringWriter();
        parse("-o", "json").audit(state, new PrintWriter(out));
        assertThat(out.toString()).startsWith("{").contains("\"findings\" : [ ]");
    }

    @Test
    void badDurationIsAUsageErrorNamingTheFlag() {
        StringWriter err = new StringWriter();
        CommandLine cl = Nodegate.newCommandLine();
        cl.setErr(new PrintWriter(err));
        int code = cl.execute("audit", "--batch-window", "30 seconds");
        assertThat(code).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString()).contains("--batch-window").contains("1500ms, 30s, 5m, 1h30m, 3d");
    }

    @Test
    void helpTeachesWithExamplesAndDefaults() {
        StringWriter out = new StringWriter();
        CommandLine cl = Nodegate.newCommandLine();
        cl.setOut(new PrintWriter(out));
        assertThat(cl.execute("audit", "--help")).isEqualTo(0);
        assertThat(out.toString()).contains("Examples:").contains("nodegate audit -f")
                .contains("--batch-window").contains("(default: 30s)").contains("50s for apiserver v1.32");
    }

    @Test
    void noColorWinsOverATerminal() {
        assertThat(Terminal.colour(null, true)).isTrue();
        assertThat(Terminal.colour("1", true)).isFalse();
        assertThat(Terminal.colour("", true)).isTrue();
        assertThat(Terminal.colour(null, false)).isFalse();
        // tests run without a terminal: no format is coloured, and JSON never is
        OutputOptions json = OutputOptions.of(io.nodegate.render.AuditRenderer.Checked.class);
        json.format("json");
        assertThat(json.color()).isFalse();
    }

    @Test
    void skipRemovesADetectorAndSaysSo() {
        var state = cluster().healthy(node("a").internalIp("10.0.2.2")).healthy(node("b").internalIp("10.0.2.2"))
                .build();
        StringWriter out = new StringWriter();
        AuditCommand c = new AuditCommand();
        new CommandLine(c).parseArgs("--skip", "ng120", "-o", "json");
        assertThat(c.audit(state, new PrintWriter(out))).isEqualTo(ExitCode.OK);
        assertThat(out.toString()).doesNotContain("\"NG120\"").contains("not checked (--skip): NG120");
    }

    @Test
    void skipOfAnUnknownCodeIsAUsageError() {
        AuditCommand c = new AuditCommand();
        new CommandLine(c).parseArgs("--skip", "NG999");
        var state = cluster().healthy(node("a")).build();
        assertThatThrownBy(() -> c.audit(state, new PrintWriter(new StringWriter())))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("--skip")
                .hasMessageContaining("NG999");
    }

    @Test
    void unknownSkipCodeExitsTwoBeforeReadingTheCluster() {
        StringWriter err = new StringWriter();
        CommandLine cl = Nodegate.newCommandLine();
        cl.setErr(new PrintWriter(err));
        // SourceOptions.load would throw if reached; the usage error must come first.
        assertThat(cl.execute("audit", "--skip", "NG999")).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString()).contains("unknown code 'NG999'");
    }
}
