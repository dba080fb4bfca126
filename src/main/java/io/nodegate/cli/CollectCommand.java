package io.nodegate.cli;

import picocli.CommandLine.Command;

/** NOT IMPLEMENTED YET: placeholder so every command has its room. */
@Command(name = "collect", description = "Save what the live cluster says, for offline audit (not implemented yet).")
public final class CollectCommand implements Runnable {
    @Override
    public void run() {
        throw new NodegateException(ExitCodes.USAGE, "'collect' is not implemented yet");
    }
}
