package io.nodegate.cli;

import io.nodegate.ExitCode;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/** `nodegate completion bash|zsh`: the shell completion script, as kubectl completion prints its own. */
@Command(name = "completion",
        mixinStandardHelpOptions = true,
        description = {"Print the shell completion script for bash or zsh (commands, subcommands and options)."},
        footer = {"", "Examples:",
                "  source <(nodegate completion bash)                      # this shell",
                "  nodegate completion bash > /etc/bash_completion.d/nodegate",
                "  source <(nodegate completion zsh)                       # in ~/.zshrc"})
public final class CompletionCommand implements Callable<Integer> {

    enum Shell { bash, zsh }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SHELL", description = "bash or zsh.")
    Shell shell;

    @Override
    public Integer call() {
        // the script covers every command, so it is built from the full tree, not the one-command tree of this run
        String script = AutoComplete.bash("nodegate", Nodegate.newCommandLine());
        PrintWriter out = spec.commandLine().getOut();
        if (shell == Shell.zsh) {
            // picocli's script is bash; zsh runs it through its bash-completion emulation
            out.println("autoload -U +X compinit && compinit");
            out.println("autoload -U +X bashcompinit && bashcompinit");
        }
        out.print(script);
        out.flush();
        return ExitCode.OK;
    }
}
