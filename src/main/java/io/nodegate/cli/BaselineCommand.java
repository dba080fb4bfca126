package io.nodegate.cli;

import picocli.CommandLine.Command;

/** NOT IMPLEMENTED YET: placeholder so every command has its room. */
@Command(name = "baseline", description = "Record the state that gate and verify-gone compare against (not implemented yet).")
public final class BaselineCommand implements Runnable {
    @Override
    public void run() {
        throw new NodegateException(ExitCodes.USAGE, "'baseline' is not implemented yet");
    }
}
