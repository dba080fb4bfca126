package io.nodegate.source.kube;

/**
 * Which API server one command invocation asked last: every call of {@link ApiCalls} records its server here, and
 * the overall deadline of the command (cli/Nodegate) names it when the command has to be stopped ("last API server
 * asked: https://..."). One per invocation, handed down by the command's Environment to every connection it opens,
 * so two commands running in one JVM (the tests run many) never see each other's server.
 */
public final class LastServerAsked {

    private volatile String server;

    /** Records that a call to {@code apiServer} is about to be made. */
    public void asking(String apiServer) {
        this.server = apiServer;
    }

    /** The server last asked, or null when nothing has been asked yet. */
    public String server() {
        return server;
    }
}
