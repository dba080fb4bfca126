package io.nodegate.cli;

import picocli.CommandLine.Command;

/** NOT IMPLEMENTED YET: placeholder so every command has its room. */
@Command(name = "remove", description = "Delete a gated node, preserving its record, and follow the cascade (not implemented yet).")
public final class RemoveCommand implements Runnable {
    @Override
    public void run() {
        throw new NodegateException(ExitCodes.USAGE, "'remove' is not implemented yet");
    }
}
