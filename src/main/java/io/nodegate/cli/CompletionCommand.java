package io.nodegate.cli;

import io.nodegate.ExitCode;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * `nodegate completion bash|zsh|fish`: the shell completion script, as `kubectl completion` prints its own. Like
 * kubectl's (cobra's), the script asks the program on every Tab ({@link CompleteCommand}, `nodegate __complete`),
 * so it completes what only the program knows: the contexts of the kubeconfig, the Nodes of the cluster the line
 * names, the formats each command's -o takes.
 */
@Command(name = "completion",
        mixinStandardHelpOptions = true,
        description = {"Print the shell completion script for bash, zsh or fish: commands, options, -o formats, "
                + "kubeconfig contexts after --context, and the cluster's Node names where a command takes NODE "
                + "(read with the --kubeconfig/--context already on the line)."},
        footer = {"", "Examples:",
                "  source <(nodegate completion bash)                      # this shell",
                "  nodegate completion bash > /etc/bash_completion.d/nodegate",
                "  source <(nodegate completion zsh)                       # in ~/.zshrc",
                "  nodegate completion fish > ~/.config/fish/completions/nodegate.fish"})
public final class CompletionCommand implements Callable<Integer> {

    enum Shell { bash, zsh, fish }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SHELL", description = "bash, zsh or fish.")
    Shell shell;

    /**
     * bash: the words before the cursor and the current one go to `nodegate __complete`; the last line of its
     * answer is the directive (0: also offer file names). COMP_WORDBREAKS splits at '=' and ':', so the word is
     * taken from COMP_LINE's own split rather than bash's.
     */
    static final String BASH = """
            # nodegate completion for bash (and zsh through bashcompinit); asks `nodegate __complete` on each Tab
            _complete_nodegate() {
                local cur="${COMP_WORDS[COMP_CWORD]}"
                local -a words=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
                local out directive
                out=$(nodegate __complete -- "${words[@]}" "$cur" 2>/dev/null) || return 0
                directive="${out##*:}"
                out="${out%:*}"
                local IFS=$'\\n'
                COMPREPLY=($(compgen -W "$out" -- "$cur"))
                if [[ "$directive" == 0 ]]; then
                    COMPREPLY+=($(compgen -f -- "$cur"))
                fi
            }
            complete -F _complete_nodegate nodegate
            """;

    static final String FISH = """
            # nodegate completion for fish; asks `nodegate __complete` on each Tab
            function __nodegate_complete
                set -l words (commandline -opc)
                set -e words[1]
                set -l current (commandline -ct)
                set -l out (nodegate __complete -- $words "$current" 2>/dev/null)
                or return
                set -l directive (string replace -r '^:' '' -- $out[-1])
                set -e out[-1]
                printf '%s\\n' $out
                if test "$directive" = 0
                    __fish_complete_path "$current"
                end
            end
            complete -c nodegate -f -a '(__nodegate_complete)'
            """;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        switch (shell) {
            case bash -> out.print(BASH);
            case zsh -> {
                // the bash script, run by zsh's bash-completion emulation
                out.println("autoload -U +X compinit && compinit");
                out.println("autoload -U +X bashcompinit && bashcompinit");
                out.print(BASH);
            }
            case fish -> out.print(FISH);
        }
        out.flush();
        return ExitCode.OK;
    }
}
