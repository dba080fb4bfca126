package io.nodegate.cli;

import picocli.CommandLine.Command;

/** NOT IMPLEMENTED YET: placeholder so every command has its room. */
@Command(name = "verify-gone", description = "Prove that nothing came back after removal (not implemented yet).")
public final class VerifyGoneCommand implements Runnable {
    @Override
    public void run() {
        throw new NodegateException(ExitCodes.USAGE, "'verify-gone' is not implemented yet");
    }
}
