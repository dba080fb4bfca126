package io.nodegate.cli;

import picocli.CommandLine.Command;

/** NOT IMPLEMENTED YET: placeholder so every command has its room. */
@Command(name = "readmit", description = "Re-admit a host that came back, keeping its Node object (not implemented yet).")
public final class ReadmitCommand implements Runnable {
    @Override
    public void run() {
        throw new NodegateException(ExitCodes.USAGE, "'readmit' is not implemented yet");
    }
}
