package io.nodegate.cli;

import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** One duration syntax on every flag: each duration flag of each command takes 1h30m and 1500ms alike. */
class DurationFlagsTest {

    record Flag(CommandSpec command, OptionSpec option) {
        @Override
        public String toString() {
            return command.qualifiedName() + " " + option.longestName();
        }
    }

    static List<Flag> durationFlags() {
        List<Flag> out = new ArrayList<>();
        collect(Nodegate.newCommandLine(), out);
        return out;
    }

    private static void collect(CommandLine cl, List<Flag> out) {
        for (OptionSpec o : cl.getCommandSpec().options()) {
            String name = o.longestName();
            boolean looksLikeADuration = "DURATION".equals(o.paramLabel()) || "SECONDS".equals(o.paramLabel())
                    || name.matches("--.*(timeout|window|deadline|-age|-after|period)");
            if (looksLikeADuration) {
                out.add(new Flag(cl.getCommandSpec(), o));
            }
        }
        cl.getSubcommands().values().forEach(sub -> collect(sub, out));
    }

    @Test
    void everyDurationFlagIsADurationWithTheOneSyntax() {
        List<Flag> flags = durationFlags();
        assertThat(flags).extracting(Flag::toString).contains("nodegate remove --timeout",
                "nodegate etcd --etcd-timeout", "nodegate audit --request-timeout", "nodegate audit --batch-window",
                "nodegate gate --match-window", "nodegate views --request-timeout");
        for (Flag f : flags) {
            assertThat(f.option().type()).as(f.toString()).isEqualTo(Duration.class);
            assertThat(f.option().paramLabel()).as(f.toString()).isEqualTo("DURATION");
            CommandLine.ITypeConverter<?> converter = f.option().converters()[0];
            for (String text : List.of("1h30m", "1500ms", "3d", "30s")) {
                try {
                    assertThat(converter.convert(text)).as(f + " " + text).isInstanceOf(Duration.class);
                } catch (Exception e) {
                    throw new AssertionError(f + " " + text + ": " + e.getMessage(), e);
                }
            }
            assertThat(((Duration) convert(converter, "1h30m"))).as(f.toString()).isEqualTo(Duration.ofMinutes(90));
        }
    }

    private static Object convert(CommandLine.ITypeConverter<?> converter, String text) {
        try {
            return converter.convert(text);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aBareNumberIsSecondsOnEveryDurationFlag() {
        for (Flag f : durationFlags()) {
            assertThat(convert(f.option().converters()[0], "5")).as(f.toString()).isEqualTo(Duration.ofSeconds(5));
        }
        // end to end, as kubectl takes --request-timeout 5
        CliRun audit = CliRun.run("audit", "-f", "examples/healthy", "--batch-window", "45", "--request-timeout", "5");
        assertThat(audit.exitCode()).as(audit.all()).isZero();
    }

    @Test
    void whatIsNotADurationIsRefusedNamingTheFlag() {
        CliRun run = CliRun.run("remove", "gpu-a11", "--baseline", "b.json", "--timeout", "1.5");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--timeout").contains("'1.5'").contains("a fraction needs a unit");
        CliRun etcd = CliRun.run("etcd", "--etcd-endpoint", "http://127.0.0.1:1", "--etcd-timeout", "0s");
        assertThat(etcd.exitCode()).isEqualTo(2);
        assertThat(etcd.err()).contains("--etcd-timeout").contains("longer than zero");
    }
}
