package io.nodegate.detect.controlplane;

import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdIds;
import io.nodegate.model.EtcdMember;

import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The etcd endpoint reports of a snapshot, grouped the way the detectors reason about them: one {@link Side}
 * per cluster ID among the endpoints that answered. Nothing here merges answers across cluster IDs.
 */
final class EtcdView {

    /** k3s and RKE2 name members {@code <node>-<8 hex>} (pkg/etcd: name + "-" + random suffix). */
    private static final Pattern K3S_MEMBER_NAME = Pattern.compile("(.+)-[0-9a-f]{8}");

    private EtcdView() {
    }

    /** The endpoints that answered with one cluster ID. */
    record Side(long clusterId, List<EtcdEndpointReport> endpoints) {

        /** Every member any endpoint of this side lists, first seen first (by ID). */
        List<EtcdMember> allListedMembers() {
            Map<Long, EtcdMember> byId = new LinkedHashMap<>();
            for (EtcdEndpointReport r : endpoints) {
                r.members().forEach(m -> byId.putIfAbsent(m.id(), m));
            }
            return List.copyOf(byId.values());
        }

        /**
         * The registered member list used for quorum: the leader's own view when the leader answered (raft
         * configuration is what the leader applies), else the longest list any endpoint gave. Endpoints read
         * without a member list (an `endpoint status` dump alone) do not count.
         */
        List<EtcdMember> registered() {
            List<EtcdEndpointReport> withList = endpoints.stream().filter(EtcdView::hasMemberList).toList();
            Optional<EtcdEndpointReport> leaderView = withList.stream()
                    .filter(r -> r.status() != null && r.status().memberId() == r.status().leader())
                    .max(Comparator.comparingInt(r -> r.members().size()));
            return leaderView.or(() -> withList.stream().max(Comparator.comparingInt(r -> r.members().size())))
                    .map(EtcdEndpointReport::members).orElse(List.of());
        }

        List<EtcdMember> voters() {
            return registered().stream().filter(m -> !m.learner()).toList();
        }

        /** Member IDs that some endpoint of this side answered as. */
        Set<Long> answeredIds() {
            Set<Long> ids = new LinkedHashSet<>();
            endpoints.forEach(r -> answeringMemberId(r).ifPresent(ids::add));
            return ids;
        }

        Set<Long> leaders() {
            Set<Long> ids = new LinkedHashSet<>();
            endpoints.stream().filter(r -> r.status() != null).forEach(r -> ids.add(r.status().leader()));
            return ids;
        }

        /** A member's display name as this side knows it: "name (hex)", or just hex when no list names it. */
        String label(long memberId) {
            return allListedMembers().stream().filter(m -> m.id() == memberId).findFirst()
                    .map(EtcdView::label).orElse(EtcdIds.hex(memberId));
        }

        List<String> endpointNames() {
            return endpoints.stream().map(EtcdEndpointReport::endpoint).toList();
        }
    }

    /**
     * Answering endpoints grouped by cluster ID (of the status answer; of the member list header when an
     * offline dump had no status for that endpoint), in order of first appearance.
     */
    static List<Side> sides(List<EtcdEndpointReport> reports) {
        Map<Long, List<EtcdEndpointReport>> groups = new LinkedHashMap<>();
        for (EtcdEndpointReport r : reports) {
            if (!r.ok()) {
                continue;
            }
            if (r.status() != null || hasMemberList(r)) {
                groups.computeIfAbsent(r.clusterId(), k -> new ArrayList<>()).add(r);
            }
        }
        List<Side> out = new ArrayList<>();
        groups.forEach((id, eps) -> out.add(new Side(id, List.copyOf(eps))));
        return out;
    }

    /** A real member list always holds at least the answering member; empty = no member list was read. */
    static boolean hasMemberList(EtcdEndpointReport r) {
        return !r.members().isEmpty();
    }

    /**
     * The member an endpoint answered as: from its status, or, for a member-list-only dump, the listed member
     * whose client URL is the endpoint (how offline reports without status are named).
     */
    static Optional<Long> answeringMemberId(EtcdEndpointReport r) {
        if (!r.ok()) {
            return Optional.empty();
        }
        if (r.status() != null) {
            return Optional.of(r.status().memberId());
        }
        String at = hostPort(r.endpoint());
        return r.members().stream().filter(m -> m.clientUrls().stream().anyMatch(u -> hostPort(u).equals(at)))
                .map(EtcdMember::id).findFirst();
    }

    static String label(EtcdMember m) {
        return name(m) + " (" + EtcdIds.hex(m.id()) + ")";
    }

    /** Members added but never started have no name yet. */
    static String name(EtcdMember m) {
        return m.name() == null || m.name().isEmpty() ? "(unstarted)" : m.name();
    }

    /** The Node name a member name points at: k3s/RKE2 strip the 8-hex suffix; plain etcd names are kept. */
    static String nodeNameOf(String memberName) {
        if (memberName == null) {
            return "";
        }
        Matcher m = K3S_MEMBER_NAME.matcher(memberName);
        return m.matches() ? m.group(1) : memberName;
    }

    static String nodeNameOf(EtcdMember m) {
        return nodeNameOf(m.name());
    }

    static Optional<String> host(String url) {
        try {
            return Optional.ofNullable(new URI(url.trim()).getHost())
                    .map(h -> h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h);
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    /** host:port of a URL, lower-cased, for comparing an endpoint flag with a member's client URL. */
    static String hostPort(String url) {
        try {
            URI u = new URI(url.trim());
            int port = u.getPort() != -1 ? u.getPort() : "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
            return (u.getHost() == null ? url : u.getHost()).toLowerCase(Locale.ROOT) + ":" + port;
        } catch (Exception e) {
            return url.toLowerCase(Locale.ROOT);
        }
    }

    static List<String> labels(List<EtcdMember> members) {
        return members.stream().map(EtcdView::label).toList();
    }
}
