package io.nodegate.cli;

import picocli.CommandLine.Command;

/** NOT IMPLEMENTED YET: placeholder so every command has its room. */
@Command(name = "gate", description = "Decide, on evidence, whether a node may be deleted (not implemented yet).")
public final class GateCommand implements Runnable {
    @Override
    public void run() {
        throw new NodegateException(ExitCodes.USAGE, "'gate' is not implemented yet");
    }
}
