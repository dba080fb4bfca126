package io.nodegate.handover;

/**
 * The six steps of seed 000's hand-over procedure (plus the request, step 0), who does each, and what nodegate checks
 * before a person's "step N done" is recorded. The four roles are the requester, the cluster giving the nodes, the
 * infra team who own the hosts, and the receiving cluster.
 */
public enum Step {
    REQUEST(0, "request", "requester", "targets exist; destination, type and due are set"),
    EMPTY(1, "empty", "giving cluster", "each target cordoned; no pods but DaemonSet or mirror pods; silences effective"),
    HOST_CLEANUP(2, "host cleanup", "infra team", "the owner's reply with a removal time per node; host reports clean"),
    GATE_DELETE(3, "gate, delete, first check", "giving cluster",
            "the gate's PASS record per node; the removal record; verify-gone PASS"),
    HOST_PREPARED(4, "host prepared", "infra team", "infra's reply: new name, IP, OS, driver per host"),
    ADMITTED(5, "admitted", "receiving cluster",
            "each host Ready in the destination with the expected version, role, taints and GPUs; verify-gone PASS again"),
    RECORD(6, "record", "requester", "membership, period, return date");

    public static final int LAST = 6;

    private final int number;
    private final String title;
    private final String role;
    private final String checks;

    Step(int number, String title, String role, String checks) {
        this.number = number;
        this.title = title;
        this.role = role;
        this.checks = checks;
    }

    public int number() {
        return number;
    }

    public String title() {
        return title;
    }

    /** Who does the step (one of the procedure's four roles). */
    public String role() {
        return role;
    }

    /** What nodegate checks before the step's "done" is recorded, in one line. */
    public String checks() {
        return checks;
    }

    /** "3: gate, delete, first check", as the STEP column shows it. */
    public String label() {
        return number + ": " + title;
    }

    public static Step of(int number) {
        if (number < 0 || number > LAST) {
            throw new IllegalArgumentException("step " + number + " does not exist: the procedure has steps 0 to " + LAST);
        }
        return values()[number];
    }
}
