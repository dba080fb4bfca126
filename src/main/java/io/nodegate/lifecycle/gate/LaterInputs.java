package io.nodegate.lifecycle.gate;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The gate's inputs read after the cluster's own answers and only when the user gave their source: the other
 * clusters' Nodes (--fleet-context), the target's Rancher Machine (--machine-kubeconfig), the hosts' BMC readings
 * (--bmc). One typed map, keyed by the input: each key lives in the check that reads it, the step that reads the
 * source fills it ({@link GateEvidence#with}), and {@link GateEvidence} carries the map whole, so a new input adds
 * no field, builder method or copy there. An input that was not given has no entry (it reads as null).
 */
public record LaterInputs(Map<Key<?>, Object> values) {

    /** No later input given. */
    public static final LaterInputs NONE = new LaterInputs(Map.of());

    /** One input; {@code name} tells it apart (and names it when the map is printed). */
    public record Key<T>(String name) {
    }

    public LaterInputs {
        values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /** The input's value; null when it was not given. */
    @SuppressWarnings("unchecked")
    public <T> T get(Key<T> key) {
        return (T) values.get(key);
    }

    /** These inputs with {@code key} set to {@code value} (null: not given). */
    public <T> LaterInputs with(Key<T> key, T value) {
        Map<Key<?>, Object> next = new LinkedHashMap<>(values);
        if (value == null) {
            next.remove(key);
        } else {
            next.put(key, value);
        }
        return new LaterInputs(next);
    }
}
