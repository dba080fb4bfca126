package io.nodegate.watch;

import io.nodegate.model.ClusterState;
import io.nodegate.model.OpenHandovers;

import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The open NodeHandovers as the watch's passes judge them: NG171 (a cordon with no reason) asks whether an open
 * hand-over names the Node, as `audit` does. The hand-overs are not watched by an informer; they are read with one
 * LIST (through the API layer, whose deadline covers the whole answer) on the watch's periodic thread, never on the
 * passes' thread, and each pass takes the last answer.
 *
 * <p>The leader's hand-over looks ({@link HandoverReconciler}) LIST the same collection; each of their good answers is
 * {@link #offer offered} here, and the next periodic read is then skipped, so a leader does not read the collection
 * twice in one interval. An answer a pass judges is thus at most about two intervals old.
 *
 * <p>The last answer is all that counts: a read that failed, timed out or was refused makes the hand-overs unread
 * (NG171 then stays at info and says so), never "no hand-over", and an earlier good read is not kept in its place
 * (it would say a hand-over is still open, or still absent, on evidence the cluster no longer gave). Only the API's
 * NotFound for the whole collection (the NodeHandover CRD is not installed) is read as "none open".
 */
public final class OpenHandoverReads {

    /** Before the first read has ended. */
    static final OpenHandovers NOT_YET = OpenHandovers.unread("NodeHandovers not read yet (the first read has not "
            + "ended)");

    private final Supplier<OpenHandovers> read;
    private final Consumer<String> log;
    private volatile OpenHandovers last = NOT_YET;
    /** An answer was offered since the last periodic read: the next one is not needed. */
    private final java.util.concurrent.atomic.AtomicBoolean offered = new java.util.concurrent.atomic.AtomicBoolean();

    /** @param read one whole read of the open hand-overs; a failure it reports as unread or throws counts alike */
    public OpenHandoverReads(Supplier<OpenHandovers> read, Consumer<String> log) {
        this.read = read;
        this.log = log;
    }

    /** Reads now, in the caller's thread; what every later pass judges. */
    public OpenHandovers read() {
        OpenHandovers now;
        try {
            now = read.get();
            if (now == null) {
                now = OpenHandovers.unread("NodeHandovers could not be read (no answer)");
            }
        } catch (RuntimeException e) {
            now = OpenHandovers.unread("NodeHandovers could not be read (" + e.getMessage() + ")");
        }
        if (!now.read() && (last.read() || last == NOT_YET)) {
            log.accept(now.why() + ": NG171 stays at info until a read succeeds");
        }
        last = now;
        return now;
    }

    /**
     * The periodic read: reads now, unless an answer was {@link #offer offered} since the last periodic read.
     *
     * @return whether it read
     */
    public boolean readUnlessOffered() {
        if (offered.getAndSet(false)) {
            return false;
        }
        read();
        return true;
    }

    /**
     * A whole LIST of the NodeHandovers another reader made just now (the leader's hand-over look): from now on the
     * passes judge it, and the next periodic read is skipped. Only a good answer is offered: after a failed look the
     * periodic read finds out for itself.
     */
    public void offer(OpenHandovers answer) {
        if (answer == null || !answer.read()) {
            return;
        }
        last = answer;
        offered.set(true);
    }

    /** The last answer ({@link #NOT_YET} before the first read ended). */
    public OpenHandovers last() {
        return last;
    }

    /**
     * The state a pass judges, with the last answer in it; when it is unread, a note says why, as `audit`'s does.
     */
    public ClusterState feed(ClusterState state) {
        OpenHandovers now = last;
        ClusterState fed = state.withHandovers(now);
        if (now.read()) {
            return fed;
        }
        java.util.List<String> notes = new java.util.ArrayList<>(state.notes());
        notes.add(now.why() + ": NG171 cannot rule an open hand-over out");
        return fed.toBuilder().notes(notes).build();
    }
}
