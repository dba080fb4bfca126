package io.nodegate.cli;

import picocli.CommandLine.Command;

/** NOT IMPLEMENTED YET: placeholder so every command has its room. */
@Command(name = "views", description = "Compare what several API servers of one cluster say (not implemented yet).")
public final class ViewsCommand implements Runnable {
    @Override
    public void run() {
        throw new NodegateException(ExitCodes.USAGE, "'views' is not implemented yet");
    }
}
