package io.nodegate.watch.informer;

import io.nodegate.model.Condition;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.NodeSystemInfo;
import io.nodegate.model.Taint;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One copy of each text that many Nodes repeat, for the watch's cache. Each Node event is parsed into new strings, so
 * a cache of 20,000 Nodes held 20,000 copies of "KubeletReady", of the kubelet's version, of the OS image, of each
 * label value ("amd64", "true", a GPU model) and of each condition's message. Here a held Node's repeated texts are
 * replaced by the one copy seen first: label and annotation values, taints, condition types, statuses, reasons and
 * messages, the node info's versions and images, capacity quantities and address types. What is unique to a Node
 * (name, uid, resourceVersion, IP addresses, bootID, systemUUID, machineID) is left as it is: sharing it saves
 * nothing.
 *
 * <p>The table is a fixed number of slots, each holding the last text whose hash fell there (as Jackson's own name
 * table does): a text that meets another in its slot replaces it, so the table never grows, a text that no Node carries
 * any more leaves it as soon as another takes its slot, and a collision only costs a copy. Equal texts stay equal:
 * sharing changes which instance a model holds, never what it says ({@code String.equals} everywhere, nothing
 * compares references). Used on the watch thread of one kind only; not thread-safe.
 */
final class SharedStrings {

    /** 16,384 slots (128 KB of references): the texts repeated across a field-sized cluster are a few hundred. */
    private static final int SLOTS = 1 << 14;

    private final String[] slots = new String[SLOTS];

    /** The copy of {@code text} this table holds, after holding {@code text} itself if it had none. */
    String shared(String text) {
        if (text == null) {
            return null;
        }
        int h = text.hashCode();
        int slot = (h ^ (h >>> 16)) & (SLOTS - 1);
        String held = slots[slot];
        if (text.equals(held)) {
            return held;
        }
        slots[slot] = text;
        return text;
    }

    /**
     * The same Node with its repeated texts shared: a NodeInfo equal to {@code node} ({@code equals} holds
     * field by field), whose label and annotation values, taints, conditions, node info and capacity are the
     * copies held here.
     */
    NodeInfo node(NodeInfo node) {
        List<Taint> taints = new ArrayList<>(node.taints().size());
        for (Taint t : node.taints()) {
            taints.add(new Taint(shared(t.key()), shared(t.value()), shared(t.effect()), t.timeAdded()));
        }
        List<NodeInfo.NodeAddress> addresses = new ArrayList<>(node.addresses().size());
        for (NodeInfo.NodeAddress a : node.addresses()) {
            addresses.add(new NodeInfo.NodeAddress(shared(a.type()), a.address()));
        }
        List<Condition> conditions = new ArrayList<>(node.conditions().size());
        for (Condition c : node.conditions()) {
            conditions.add(new Condition(shared(c.type()), shared(c.status()), shared(c.reason()),
                    shared(c.message()), c.lastHeartbeatTime(), c.lastTransitionTime()));
        }
        NodeSystemInfo i = node.systemInfo();
        NodeSystemInfo info = i == NodeSystemInfo.EMPTY ? i : new NodeSystemInfo(i.bootId(), i.systemUuid(),
                i.machineId(), shared(i.kernelVersion()), shared(i.osImage()), shared(i.kubeletVersion()),
                shared(i.containerRuntimeVersion()));
        return new NodeInfo(node.name(), node.uid(), node.resourceVersion(), node.created(), values(node.labels()),
                values(node.annotations()), taints, node.unschedulable(), node.podCidr(), addresses,
                conditions, info, values(node.capacity()), node.cordonOwner());
    }

    /** The map with its keys and values shared (keys are usually shared already: the JSON parser interns names). */
    private Map<String, String> values(Map<String, String> map) {
        if (map.isEmpty()) {
            return map;
        }
        Map<String, String> out = new HashMap<>(map.size() * 4 / 3 + 1);
        map.forEach((k, v) -> out.put(shared(k), shared(v)));
        return out;
    }
}
