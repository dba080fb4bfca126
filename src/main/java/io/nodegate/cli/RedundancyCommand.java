package io.nodegate.cli;

import picocli.CommandLine.Command;

/** NOT IMPLEMENTED YET: placeholder so every command has its room. */
@Command(name = "redundancy", description = "Count redundancy per control-plane role (not implemented yet).")
public final class RedundancyCommand implements Runnable {
    @Override
    public void run() {
        throw new NodegateException(ExitCodes.USAGE, "'redundancy' is not implemented yet");
    }
}
