package io.nodegate.model;

import java.util.List;

/** A registered etcd member. IDs are unsigned 64-bit; render them with {@link EtcdIds#hex(long)}. */
public record EtcdMember(long id, String name, List<String> peerUrls, List<String> clientUrls, boolean learner) {
    public EtcdMember {
        peerUrls = peerUrls == null ? List.of() : List.copyOf(peerUrls);
        clientUrls = clientUrls == null ? List.of() : List.copyOf(clientUrls);
    }
}
