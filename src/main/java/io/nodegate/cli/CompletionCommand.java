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
     * answer is the directive (0: also offer file names). The answer is read line by line into COMPREPLY and kept
     * when it starts with the word typed (a plain string comparison), never handed to `compgen -W`, which expands
     * every word: a kubeconfig context or a Node name is data, and a name such as {@code prod-$(touch x)} must be
     * offered as written, not run. Each match is quoted with printf %q, so what bash puts on the line is that name
     * and nothing else (cobra's scripts do the same).
     */
    static final String BASH = """
            # nodegate completion for bash; asks `nodegate __complete` on each Tab. Candidates are data: they are
            # compared as strings and quoted, never expanded by the shell.
            _complete_nodegate() {
                local cur="${COMP_WORDS[COMP_CWORD]}"
                local -a words=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
                local out directive line quoted
                out=$(nodegate __complete -- "${words[@]}" "$cur" 2>/dev/null) || return 0
                directive="${out##*:}"
                out="${out%:*}"
                COMPREPLY=()
                while IFS='' read -r line; do
                    [[ -n "$line" && "$line" == "$cur"* ]] || continue
                    printf -v quoted '%q' "$line"
                    COMPREPLY+=("$quoted")
                done <<<"$out"
                if [[ "$directive" == 0 ]]; then
                    while IFS='' read -r line; do
                        [[ -n "$line" ]] || continue
                        printf -v quoted '%q' "$line"
                        COMPREPLY+=("$quoted")
                    done < <(compgen -f -- "$cur")
                fi
            }
            complete -F _complete_nodegate nodegate
            """;

    /**
     * zsh: its own completion function (not bash's through bashcompinit, whose compgen emulation expands the
     * words and whose compadd -Q inserts them unquoted). The answer's lines go to compadd as an array: zsh matches
     * them against the word typed and quotes whatever it inserts. File names on directive 0, by zsh's _files.
     */
    static final String ZSH = """
            #compdef nodegate
            # nodegate completion for zsh; asks `nodegate __complete` on each Tab. Candidates are data: they go to
            # compadd as an array (zsh quotes what it inserts), never through eval or word expansion.
            (( $+functions[compdef] )) || { autoload -U +X compinit && compinit; }
            _nodegate() {
                local out directive line
                local -a lines candidates
                out=$(nodegate __complete -- "${(@Q)words[2,CURRENT-1]}" "${(Q)PREFIX}" 2>/dev/null) || return 1
                lines=("${(@f)out}")
                directive="${lines[-1]#:}"
                lines[-1]=()
                for line in "${lines[@]}"; do
                    [[ -n "$line" ]] && candidates+=("$line")
                done
                local ret=1
                if (( ${#candidates} )); then
                    compadd -a candidates && ret=0
                fi
                if [[ "$directive" == 0 ]]; then
                    _files && ret=0
                fi
                return ret
            }
            if [[ "$funcstack[1]" == _nodegate ]]; then
                _nodegate "$@"
            else
                compdef _nodegate nodegate
            fi
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
            case zsh -> out.print(ZSH);
            case fish -> out.print(FISH);
        }
        out.flush();
        return ExitCode.OK;
    }
}
