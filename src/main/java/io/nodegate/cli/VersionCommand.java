package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.nodegate.render.VersionOutput;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** `nodegate version`, beside --version as kubectl has both: -o json|yaml for scripts and bug reports. */
@Command(name = "version", mixinStandardHelpOptions = true,
        description = "Print nodegate's version (the same line as --version); -o wide adds the Java runtime and the "
                + "platform, -o json|yaml give them as data.",
        footer = {"", "Examples:", "  nodegate version", "  nodegate version -o json"})
public final class VersionCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    OutputOptions output = OutputOptions.of(VersionOutput.class);

    @Override
    public Integer call() {
        output.print(spec.commandLine().getOut(), VersionOutput.of(VersionProvider.version()));
        return ExitCode.OK;
    }
}
