package io.nodegate.cli;

import picocli.CommandLine.Command;

/** NOT IMPLEMENTED YET: placeholder so every command has its room. */
@Command(name = "etcd", description = "Read every etcd endpoint: split brain, quorum, members (not implemented yet).")
public final class EtcdCommand implements Runnable {
    @Override
    public void run() {
        throw new NodegateException(ExitCodes.USAGE, "'etcd' is not implemented yet");
    }
}
