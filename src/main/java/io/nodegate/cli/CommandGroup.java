package io.nodegate.cli;

import picocli.CommandLine;

import java.util.concurrent.Callable;

/**
 * A command that only groups subcommands (`baseline save`, `inventory init`, `host inspect`, `probe ...`): run on its
 * own it is a usage error naming the subcommands it has. picocli injects the {@code @Spec} field of a superclass.
 */
abstract class CommandGroup implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public final Integer call() {
        throw Nodegate.missingSubcommand(spec);
    }
}
