package io.nodegate.cli;

import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class CompletionCommandTest {

    @Test
    void bashLoadsTheScriptAndCompletesCommandsAndOptions(@TempDir Path tmp) throws Exception {
        CliRun run = CliRun.run("completion", "bash");
        assertThat(run.exitCode()).as(run.err()).isZero();
        Path script = Files.writeString(tmp.resolve("nodegate.bash"), run.out());
        // a real bash sources it, registers the function, and completes "nodegate ga" and "nodegate gate --re"
        String probe = "source " + script + "\n"
                + "complete -p nodegate\n"
                + "COMP_WORDS=(nodegate ga); COMP_CWORD=1; COMP_LINE='nodegate ga'; COMP_POINT=11\n"
                + "_complete_nodegate; echo \"cmds: ${COMPREPLY[*]}\"\n"
                + "COMP_WORDS=(nodegate gate --re); COMP_CWORD=2; COMP_LINE='nodegate gate --re'; COMP_POINT=18\n"
                + "_complete_nodegate; echo \"opts: ${COMPREPLY[*]}\"\n";
        Process p = new ProcessBuilder("bash", "-c", probe).redirectErrorStream(true).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(out).contains("-F _complete_nodegate nodegate").contains("cmds: gate")
                .containsPattern("opts: .*--removed-at").contains("--reply-covers");
    }

    @Test
    void zshGetsTheBashEmulationPreambleAndOtherShellsAreUsageErrors() {
        CliRun zsh = CliRun.run("completion", "zsh");
        assertThat(zsh.exitCode()).isZero();
        assertThat(zsh.out()).startsWith("autoload -U +X compinit && compinit").contains("bashcompinit")
                .contains("_complete_nodegate");
        CliRun fish = CliRun.run("completion", "fish");
        assertThat(fish.exitCode()).isEqualTo(2);
        assertThat(fish.err()).contains("fish");
    }
}
