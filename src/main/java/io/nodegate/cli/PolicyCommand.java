package io.nodegate.cli;

import picocli.CommandLine.Command;

/** NOT IMPLEMENTED YET: placeholder so every command has its room. */
@Command(name = "policy", description = "Emit the admission policy that enforces the gate (not implemented yet).")
public final class PolicyCommand implements Runnable {
    @Override
    public void run() {
        throw new NodegateException(ExitCodes.USAGE, "'policy' is not implemented yet");
    }
}
