package io.nodegate.model;

import java.util.List;

/**
 * Objects of an optional API. {@code present == false} means the API (or namespace) does not exist in
 * this cluster, proven by a NotFound answer; it never stands for a failed call, which aborts collection.
 */
public record Collected<T>(boolean present, List<T> items) {

    public Collected {
        items = items == null ? List.of() : List.copyOf(items);
    }

    public static <T> Collected<T> of(List<T> items) {
        return new Collected<>(true, items);
    }

    public static <T> Collected<T> absent() {
        return new Collected<>(false, List.of());
    }
}
