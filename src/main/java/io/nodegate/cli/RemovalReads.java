package io.nodegate.cli;

import io.nodegate.detect.controlplane.NamedView;
import io.nodegate.lifecycle.gate.MachineSource;
import io.nodegate.model.bmc.BmcReadings;

import java.io.PrintWriter;
import java.util.List;

/**
 * What gate and verify-gone read before they judge a removal, in the same order for both: the BMC flags are checked
 * first (a bad --bmc, inventory or credentials file fails before anything is read), then this cluster (the session
 * with its evidence store), the fleet's other clusters, the BMCs, and Rancher's management cluster last, whose
 * connection {@link #close()} ends.
 *
 * @param fleet    null without --fleet-context/--fleet-kubeconfig
 * @param bmc      null without --bmc/--bmc-inventory
 * @param machines null without --machine-context/--machine-kubeconfig
 */
record RemovalReads(BaselineFileOptions.Session session, FleetFlags.Views fleet, BmcReadings bmc,
                    MachineSource machines) implements AutoCloseable {

    static RemovalReads read(Environment env, LifecyclePrelude prelude, FleetFlags fleet, BmcOptions bmc,
                             MachineFlags machines, PrintWriter err) {
        bmc.targets();
        BaselineFileOptions.Session session = prelude.connect(env);
        FleetFlags.Views views = fleet.read(prelude.live(), env.clock());
        BmcReadings readings = bmc.given() ? bmc.read(env.clock(), err) : null;
        return new RemovalReads(session, views, readings, machines.open(prelude.live()));
    }

    /** The other clusters' views, null when no fleet was given. */
    List<NamedView> fleetViews() {
        return fleet == null ? null : fleet.views();
    }

    /** Why the fleet could not be read, null when it was (or none was given). */
    String fleetError() {
        return fleet == null ? null : fleet.error();
    }

    @Override
    public void close() {
        MachineFlags.close(machines);
    }
}
