package io.nodegate.watch.publishing;

import io.nodegate.detect.Finding;

/** Where the leader's Events go: the API server in production, a list in tests of the engine alone. */
public interface EventSink {

    /** A finding appeared: one Event on each Node it names. */
    void appeared(Finding finding);

    /** A finding went away: one Normal NodegateResolved Event on each Node it named. */
    void resolved(Finding finding);
}
