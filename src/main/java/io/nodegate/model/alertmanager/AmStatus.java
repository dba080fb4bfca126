package io.nodegate.model.alertmanager;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.util.List;

/**
 * GET /api/v2/status (prometheus/alertmanager api/v2/openapi.yaml, definitions {@code alertmanagerStatus}): the
 * cluster this replica gossips with (its own name, ready|settling|disabled, and its peers) and the configuration
 * as loaded ({@code config.original}, YAML).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record AmStatus(Cluster cluster, Config config, VersionInfo versionInfo) {

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Cluster(String name, String status, List<Peer> peers) {
        public Cluster {
            peers = peers == null ? List.of() : List.copyOf(peers);
        }
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Peer(String name, String address) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Config(String original) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record VersionInfo(String version) {
    }

    /** The names of the cluster members this replica sees, itself included. */
    public List<String> memberNames() {
        if (cluster == null) {
            return List.of();
        }
        java.util.TreeSet<String> names = new java.util.TreeSet<>();
        if (cluster.name() != null && !cluster.name().isEmpty()) {
            names.add(cluster.name());
        }
        cluster.peers().forEach(p -> names.add(p.name()));
        return List.copyOf(names);
    }
}
