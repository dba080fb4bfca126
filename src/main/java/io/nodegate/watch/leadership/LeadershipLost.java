package io.nodegate.watch.leadership;

/**
 * This replica may not write any more (it lost the leader Lease): whatever it was writing (a pass's Events, a
 * status) stops at once.
 */
public final class LeadershipLost extends RuntimeException {
    public LeadershipLost(String message) {
        super(message);
    }
}
