package io.nodegate.detect.fleet;

import io.nodegate.detect.controlplane.NamedView;
import io.nodegate.model.ClusterState;
import io.nodegate.model.Collected;
import io.nodegate.model.Tombstone;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Builds a {@link Fleet} from named cluster snapshots, for the fleet detector tests. */
final class FleetFixtures {

    static final String UUID_A07 = "4C4C4544-0037-3010-8047-B4C04F443037";
    static final String MID_A07 = "9b1f0c5e2d7a4e6f8a3b2c1d0e9f8a07";

    private FleetFixtures() {
    }

    static Fleet fleet(Object... nameStatePairs) {
        return fleet(Map.of(), nameStatePairs);
    }

    static Fleet fleet(Map<String, List<Tombstone>> tombstones, Object... nameStatePairs) {
        List<NamedView> views = new java.util.ArrayList<>();
        for (int i = 0; i < nameStatePairs.length; i += 2) {
            views.add(new NamedView((String) nameStatePairs[i], (ClusterState) nameStatePairs[i + 1]));
        }
        Map<String, Collected<Tombstone>> books = new LinkedHashMap<>();
        tombstones.forEach((cluster, list) -> books.put(cluster, Collected.of(list)));
        return Fleet.of(views, books);
    }
}
