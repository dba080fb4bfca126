package io.nodegate.cli;

import picocli.CommandLine.Command;

/** NOT IMPLEMENTED YET: placeholder so every command has its room. */
@Command(name = "audit", description = "Show where Node objects and hosts disagree (not implemented yet).")
public final class AuditCommand implements Runnable {
    @Override
    public void run() {
        throw new NodegateException(ExitCodes.USAGE, "'audit' is not implemented yet");
    }
}
