package io.nodegate.model;

/** An etcd endpoint's own answer to Maintenance.Status. */
public record EtcdStatus(long clusterId, long memberId, long leader, long raftTerm, long raftIndex,
                         String version, long dbSize, boolean learner) {
}
