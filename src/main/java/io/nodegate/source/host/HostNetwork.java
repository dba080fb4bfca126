package io.nodegate.source.host;

import io.nodegate.CollectionException;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Addresses and routes from the kernel's own files, so that the same code reads a live host and a copied tree:
 * /proc/net/route (IPv4 main table: which NIC each subnet and the default route leave through),
 * /proc/net/fib_trie (every local IPv4 address) and /proc/net/if_inet6 (IPv6 addresses with their NIC).
 * An IPv4 address belongs to the NIC whose connected route contains it, which is how `ip route` places it.
 */
final class HostNetwork {

    /** One row of /proc/net/route. Addresses are host-order ints (the file prints them little-endian). */
    record Route(String iface, int destination, int gateway, int mask, int metric) {
        boolean isDefault() {
            return mask == 0 && destination == 0;
        }

        boolean contains(int address) {
            return (address & mask) == (destination & mask);
        }

        int prefixLength() {
            return Integer.bitCount(mask);
        }
    }

    private HostNetwork() {
    }

    static List<Route> parseRoutes(String text, String file) {
        List<Route> routes = new ArrayList<>();
        String[] lines = text.split("\n");
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split("\\s+");
            if (f.length < 8) {
                throw new CollectionException(file + " line " + (i + 1) + " has " + f.length
                        + " fields, expected at least 8: '" + line + "'");
            }
            try {
                routes.add(new Route(f[0], leHex(f[1]), leHex(f[2]), leHex(f[7]), Integer.parseInt(f[6])));
            } catch (NumberFormatException e) {
                throw new CollectionException(file + " line " + (i + 1) + " is not a route: '" + line + "'");
            }
        }
        return routes;
    }

    /** The default route with the lowest metric, or null. */
    static Route defaultRoute(List<Route> routes) {
        Route best = null;
        for (Route r : routes) {
            if (r.isDefault() && (best == null || r.metric() < best.metric())) {
                best = r;
            }
        }
        return best;
    }

    /** The route the kernel would pick for an address: longest prefix, then lowest metric. */
    static Route routeFor(List<Route> routes, int address) {
        Route best = null;
        for (Route r : routes) {
            if (!r.contains(address)) {
                continue;
            }
            if (best == null || r.prefixLength() > best.prefixLength()
                    || (r.prefixLength() == best.prefixLength() && r.metric() < best.metric())) {
                best = r;
            }
        }
        return best;
    }

    /** Local IPv4 addresses in /proc/net/fib_trie: the "|-- ADDR" entries followed by "/32 host LOCAL". */
    static Set<String> parseFibTrieLocals(String text) {
        Set<String> locals = new LinkedHashSet<>();
        String last = null;
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            if (line.startsWith("|--")) {
                last = line.substring(3).strip();
            } else if (line.startsWith("/32 host LOCAL") && last != null) {
                locals.add(last);
            }
        }
        return locals;
    }

    /** IPv6 addresses per NIC from /proc/net/if_inet6 (link-local and loopback left out). */
    static Map<String, List<String>> parseIfInet6(String text) {
        Map<String, List<String>> out = new TreeMap<>();
        for (String raw : text.split("\n")) {
            String[] f = raw.strip().split("\\s+");
            if (f.length < 6 || f[0].length() != 32) {
                continue;
            }
            int scope = Integer.parseInt(f[3], 16);
            if (scope != 0) {
                continue; // 0x20 link-local, 0x10 host (loopback): not an address a kubelet registers
            }
            StringBuilder a = new StringBuilder();
            for (int i = 0; i < 32; i += 4) {
                if (i > 0) {
                    a.append(':');
                }
                a.append(Integer.toHexString(Integer.parseInt(f[0].substring(i, i + 4), 16)));
            }
            out.computeIfAbsent(f[5], k -> new ArrayList<>()).add(a + "/" + Integer.parseInt(f[2], 16));
        }
        return out;
    }

    static int leHex(String hex) {
        long v = Long.parseLong(hex, 16);
        int x = (int) v;
        return Integer.reverseBytes(x);
    }

    static String ipv4(int address) {
        return ((address >>> 24) & 0xff) + "." + ((address >>> 16) & 0xff) + "." + ((address >>> 8) & 0xff) + "."
                + (address & 0xff);
    }

    /** An IPv4 literal as an int, or null when the text is not one. */
    static Integer parseIpv4(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        int v = 0;
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit)) {
                return null;
            }
            int n = Integer.parseInt(p);
            if (n > 255) {
                return null;
            }
            v = (v << 8) | n;
        }
        return v;
    }
}
