package io.nodegate.model;

import java.math.BigInteger;

/** etcd IDs are uint64: JSON gateway sends them as strings, etcdctl -w json as (possibly > 2^63) numbers. */
public final class EtcdIds {
    private EtcdIds() {
    }

    public static long parse(String text) {
        return new BigInteger(text.trim()).longValue();
    }

    public static String hex(long id) {
        return Long.toHexString(id);
    }
}
