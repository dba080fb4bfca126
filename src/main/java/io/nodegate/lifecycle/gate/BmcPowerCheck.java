package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.verdict.Check;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.BmcBinding;
import io.nodegate.model.bmc.BmcReadings;
import io.nodegate.model.bmc.NodePower;
import io.nodegate.time.Durations;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * (bmc) What the target's own machine says, read from its BMC over Redfish (--bmc/--bmc-inventory) and bound to the
 * Node by its SMBIOS UUID. Off = PASS (with the logged power-off time compared with the Lease stop, printed on the
 * time-match line too); On = not cleaned up: FAIL when the Lease is also silent (the host is up but not here: a
 * network cut, a hung kubelet, another cluster), HOLD otherwise; PoweringOn/Off, Paused, unknown and no BMC carrying the
 * UUID = HOLD; a BMC that failed or two claiming the UUID = INVALID; no BMC given = "not checked", never PASS.
 *
 * <p>Why Off supports a PASS but never replaces anything: the BMC's answer comes from the machine itself, over TLS,
 * read by nodegate, unlike a report a person carries (which can only make the gate stricter). But power says nothing
 * about cleanup: a host powered off with RKE2 still installed rejoins when it is switched on. So Off is required when
 * BMC evidence is asked for, and it never stands in for the reply (b) or the time match (c). See docs/bmc.md.
 */
final class BmcPowerCheck implements GateCheck {

    /**
     * The input this check reads: what the hosts' BMCs said (--bmc/--bmc-inventory); absent when none was given (this
     * check then says "not checked"). A BMC that failed is in it with its error, not a collection error: it makes this
     * check INVALID, and so the run.
     */
    static final LaterInputs.Key<BmcReadings> INPUT = new LaterInputs.Key<>("bmc");

    /**
     * A Lease older than this is silent: the node lifecycle controller's grace period since v1.32 (the longer of the
     * two defaults, so a late renewal is never called silence).
     */
    static final Duration SILENT_AFTER = Duration.ofSeconds(50);

    @Override
    public String id() {
        return "bmc";
    }

    @Override
    public String title() {
        return "host powered off (its BMC)";
    }

    @Override
    public String notGiven(GateInput in) {
        BmcReadings readings = in.evidence().input(INPUT);
        return readings == null || !readings.read() ? "no --bmc or --bmc-inventory given: what the host's BMC says "
                + "about its power was not checked" : null;
    }

    @Override
    public Check evaluate(GateInput in) {
        BmcReadings readings = in.evidence().input(INPUT);
        Map<String, String> evid = new LinkedHashMap<>();
        NodeInfo target = in.evidence().target();
        NodePower power = BmcBinding.bind(List.of(target), readings).of(target.name());
        LeaseInfo lease = in.evidence().targetLease();
        evid.put("power", power.verdict().label());
        evid.put("source", power.source());
        if (power.reading() != null) {
            evid.put("readAt", String.valueOf(power.reading().readAt()));
        }
        evid.put("leaseRenewTime", lease == null ? "NotFound" : String.valueOf(lease.renewTime()));
        return switch (power.verdict()) {
            case UNREADABLE -> new Check(id(), title(), Verdict.INVALID, List.of("the BMC evidence is unreadable ("
                    + power.source() + "): never evidence either way"), evid);
            case NOT_FOUND -> new Check(id(), title(), Verdict.HOLD, List.of("BMC evidence was asked for and none "
                    + "carries this host: " + power.source()), evid);
            case TRANSITIONING -> new Check(id(), title(), Verdict.HOLD, List.of("the BMC reports "
                    + (power.system().powerState() == null ? "no PowerState" : "PowerState " + power.system().powerState())
                    + ": no power state to rely on yet"), evid);
            case RUNNING -> running(in, lease, evid);
            case POWERED_OFF -> poweredOff(in, power, lease, evid);
        };
    }

    private Check running(GateInput in, LeaseInfo lease, Map<String, String> evid) {
        Instant at = in.evidence().observedAt();
        boolean silent = lease == null || lease.renewTime() == null
                || !lease.renewTime().plus(SILENT_AFTER).isAfter(at);
        if (silent) {
            return new Check(id(), title(), Verdict.FAIL, List.of("a running host is not cleaned up: its BMC says "
                    + "PowerState On while its Lease is silent" + (lease == null || lease.renewTime() == null ? ""
                    : " since " + lease.renewTime()) + ". The host is up: a network cut, a hung kubelet, or another "
                    + "cluster. Not a shutdown"), evid);
        }
        return new Check(id(), title(), Verdict.HOLD, List.of("a running host is not cleaned up: its BMC says "
                + "PowerState On"), evid);
    }

    private Check poweredOff(GateInput in, NodePower power, LeaseInfo lease, Map<String, String> evid) {
        Instant off = power.powerOffTime();
        if (off == null) {
            evid.put("poweredOffAt", "unknown (see source)");
            return pass(evid);
        }
        evid.put("poweredOffAt", off.toString());
        if (lease == null || lease.renewTime() == null) {
            return pass(evid);
        }
        Duration gap = Duration.between(lease.renewTime(), off);
        Duration window = in.request().matchWindow();
        evid.put("timeMatch", timeMatch(lease.renewTime(), off, window));
        if (gap.isNegative() && gap.abs().compareTo(window) > 0) {
            return new Check(id(), title(), Verdict.HOLD, List.of("the BMC's last logged power-off (" + off + ") is "
                    + Durations.format(gap.abs()) + " before the Lease's last renewal (" + lease.renewTime() + "): a "
                    + "later power-off was not logged, or the BMC's clock or its binding to this Node is wrong"), evid);
        }
        return pass(evid);
    }

    private Check pass(Map<String, String> evid) {
        return new Check(id(), title(), Verdict.PASS, List.of(), evid);
    }

    /** The words for the power-off against the Lease stop: within the window it is positive evidence. */
    static String timeMatch(Instant leaseStop, Instant off, Duration window) {
        Duration gap = Duration.between(leaseStop, off);
        String when = Durations.format(gap.abs()) + (gap.isNegative() ? " before" : " after") + " the Lease's last "
                + "renewal";
        if (gap.abs().compareTo(window) <= 0) {
            return "powered off at " + off + ", " + when + " (within ±" + Durations.format(window) + "): the Lease "
                    + "stopped when the power went off, positive evidence of a shutdown";
        }
        return "powered off at " + off + ", " + when + " (outside ±" + Durations.format(window) + ")"
                + (gap.isNegative() ? "" : ": the agent stopped first, the host was powered off later");
    }

    /**
     * The line the time-match check (c) prints when the target's BMC logged its power-off: null without BMC evidence,
     * or without a logged power-off time.
     */
    static String timeMatchLine(GateInput in) {
        BmcReadings readings = in.evidence().input(INPUT);
        LeaseInfo lease = in.evidence().targetLease();
        if (readings == null || !readings.read() || lease == null || lease.renewTime() == null) {
            return null;
        }
        NodePower power = BmcBinding.bind(List.of(in.evidence().target()), readings).of(in.evidence().target().name());
        Instant off = power.powerOffTime();
        return off == null ? null : timeMatch(lease.renewTime(), off, in.request().matchWindow()) + " (BMC "
                + power.bmc() + ", " + power.powerOff().entry() + ")";
    }
}
