package io.nodegate.source.kube;

import io.fabric8.kubernetes.client.Config;
import io.nodegate.InputException;

import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The proxy to reach one API server through, as kubectl chooses it: the kubeconfig cluster's {@code proxy-url}
 * when set, else {@code HTTPS_PROXY}/{@code HTTP_PROXY} (either case) unless {@code NO_PROXY} names the host.
 * http:// and socks5:// proxies are supported; a proxy that needs a password or speaks https:// to the client is
 * refused with a clear message rather than silently bypassed.
 *
 * <p>Why nodegate decides this and not fabric8's {@code Config}: fabric8 (8.0.0) files a kubeconfig's proxy-url
 * under the proxy URL's scheme and then picks by the server's scheme, so {@code proxy-url: http://...} for an
 * {@code https://} server is dropped and the client connects directly (fabric8 pull request #7948); it reads only
 * the upper-case variables; its NO_PROXY test is a plain suffix match ("example.com" also matches
 * "badexample.com") and is not public API. The decision made here is written into the config
 * ({@link #applyTo}), so fabric8's client follows it.
 *
 * @param url the proxy URL as written (null = connect directly)
 */
public record ProxySetting(String url, Proxy proxy) {

    public static final ProxySetting NONE = new ProxySetting(null, Proxy.NO_PROXY);

    /** A proxy-url from a kubeconfig (or the environment); {@code where} names its origin for messages. */
    static ProxySetting parse(String url, String where) {
        if (url == null || url.isBlank()) {
            return NONE;
        }
        URI uri;
        try {
            uri = URI.create(url.trim().contains("://") ? url.trim() : "http://" + url.trim());
        } catch (IllegalArgumentException e) {
            throw new InputException(where + ": proxy URL '" + url + "' is not a URL: " + e.getMessage());
        }
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        if (uri.getHost() == null) {
            throw new InputException(where + ": proxy URL '" + url + "' has no host");
        }
        if (uri.getUserInfo() != null) {
            throw new InputException(where + ": proxy URL '" + redact(uri) + "' carries a user name/password; nodegate"
                    + " does not send proxy credentials: use a proxy that does not require them, or a local forwarder");
        }
        Proxy.Type type = switch (scheme) {
            case "http" -> Proxy.Type.HTTP;
            case "socks5", "socks5h" -> Proxy.Type.SOCKS;
            default -> throw new InputException(where + ": proxy URL '" + url + "' has scheme '" + scheme
                    + "'; nodegate supports http:// and socks5:// proxies");
        };
        int port = uri.getPort() > 0 ? uri.getPort() : type == Proxy.Type.SOCKS ? 1080 : 80;
        return new ProxySetting(url.trim(), new Proxy(type, InetSocketAddress.createUnresolved(uri.getHost(), port)));
    }

    /**
     * The proxy a fabric8 config built elsewhere names for its server (a client handed in): its https or http proxy,
     * unless its noProxy list names the host.
     */
    static ProxySetting of(Config config, String where) {
        String server = config.getMasterUrl();
        boolean https = server != null && server.regionMatches(true, 0, "https:", 0, 6);
        String url = https ? config.getHttpsProxy() : config.getHttpProxy();
        if (url == null || url.isBlank() || server == null) {
            return NONE;
        }
        URI target = URI.create(server);
        if (bypassed(target.getHost(), target.getPort(), config.getNoProxy() == null ? null
                : String.join(",", config.getNoProxy()))) {
            return NONE;
        }
        return parse(url, where + " proxy");
    }

    /**
     * Writes this decision into a fabric8 config, so fabric8's client goes the same way as the lean reads: the same
     * proxy for http and https (fabric8 would otherwise pick its proxy by the server's scheme, and drop an http://
     * proxy-url for an https:// server), and no noProxy list (the decision is made).
     */
    void applyTo(Config config) {
        String normalized = url == null ? null : url.contains("://") ? url : "http://" + url;
        config.setHttpProxy(normalized);
        config.setHttpsProxy(normalized);
        config.setNoProxy(null);
        config.setProxyUsername(null);
        config.setProxyPassword(null);
    }

    /** kubectl's default (Go's ProxyFromEnvironment) for a server without proxy-url. */
    static ProxySetting fromEnvironment(String server, Map<String, String> env) {
        URI target = URI.create(server);
        boolean https = "https".equalsIgnoreCase(target.getScheme());
        String url = https ? first(env, "HTTPS_PROXY", "https_proxy") : first(env, "HTTP_PROXY", "http_proxy");
        if (url == null || url.isBlank() || bypassed(target.getHost(), target.getPort(), first(env, "NO_PROXY", "no_proxy"))) {
            return NONE;
        }
        return parse(url, "$" + (https ? "HTTPS_PROXY" : "HTTP_PROXY"));
    }

    private static String first(Map<String, String> env, String upper, String lower) {
        String v = env.get(upper);
        return v != null && !v.isBlank() ? v : env.get(lower);
    }

    /** NO_PROXY: "*", host names (a leading dot or none: the domain and its subdomains), IPs, host:port. */
    static boolean bypassed(String host, int port, String noProxy) {
        if (noProxy == null || noProxy.isBlank() || host == null) {
            return false;
        }
        String h = host.toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        List<String> entries = Arrays.stream(noProxy.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        for (String raw : entries) {
            String e = raw.toLowerCase(Locale.ROOT);
            if (e.equals("*")) {
                return true;
            }
            int colon = e.lastIndexOf(':');
            if (colon > 0 && e.indexOf(':') == colon && e.substring(colon + 1).matches("\\d+")) {
                if (Integer.parseInt(e.substring(colon + 1)) != port) {
                    continue;
                }
                e = e.substring(0, colon);
            }
            if (e.contains("/") && cidrContains(e, h)) {
                return true;
            }
            String domain = e.startsWith(".") ? e.substring(1) : e;
            if (h.equals(domain) || h.endsWith("." + domain)) {
                return true;
            }
        }
        return false;
    }

    private static boolean cidrContains(String cidr, String host) {
        try {
            String[] parts = cidr.split("/");
            byte[] net = java.net.InetAddress.getByName(parts[0]).getAddress();
            if (!host.matches("[0-9.]+") && !host.contains(":")) {
                return false; // a name is not looked up for NO_PROXY, as in Go
            }
            byte[] addr = java.net.InetAddress.getByName(host).getAddress();
            int bits = Integer.parseInt(parts[1]);
            if (net.length != addr.length) {
                return false;
            }
            for (int i = 0; i < bits; i++) {
                int mask = 0x80 >> (i % 8);
                if ((net[i / 8] & mask) != (addr[i / 8] & mask)) {
                    return false;
                }
            }
            return true;
        } catch (java.io.IOException | RuntimeException e) {
            return false;
        }
    }

    private static String redact(URI uri) {
        return uri.getScheme() + "://***@" + uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "");
    }
}
