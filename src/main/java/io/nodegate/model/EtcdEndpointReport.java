package io.nodegate.model;

import java.util.List;

/**
 * What one etcd endpoint said, queried on its own. Either {@code error} is set and nothing else is, or
 * status and members are what the endpoint answered. Split-brain detection depends on these being
 * per-endpoint answers, never merged.
 */
public record EtcdEndpointReport(String endpoint, EtcdStatus status, long memberListClusterId,
                                 List<EtcdMember> members, String error) {
    public EtcdEndpointReport {
        members = members == null ? List.of() : List.copyOf(members);
    }

    public static EtcdEndpointReport failed(String endpoint, String error) {
        return new EtcdEndpointReport(endpoint, null, 0L, List.of(), error);
    }

    public boolean ok() {
        return error == null;
    }

    /** The cluster this endpoint answered for: its status's, else the member list header's (0 when neither). */
    public long clusterId() {
        return status != null ? status.clusterId() : memberListClusterId;
    }
}
