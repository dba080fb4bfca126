package io.nodegate.bench;

import java.util.List;

/** A listable resource in one namespace (or cluster-wide), in the stable order a real LIST returns (by key). */
interface Collection {

    String kind();

    String apiVersion();

    int size();

    Item get(int index);

    static Collection of(String kind, String apiVersion, List<Item> items) {
        return new Collection() {
            public String kind() {
                return kind;
            }

            public String apiVersion() {
                return apiVersion;
            }

            public int size() {
                return items.size();
            }

            public Item get(int index) {
                return items.get(index);
            }
        };
    }
}
