package io.nodegate.source.bmc;

import io.nodegate.InputException;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * One BMC to read: its base URL (https://host[:port], the service root is /redfish/v1 under it) and the account to
 * read it with.
 */
public record BmcTarget(String url, BmcCredentials credentials) {

    /**
     * The BMC's base URL from what a person wrote: {@code https://10.0.0.7}, {@code https://bmc-a07:8443} or either
     * with {@code /redfish/v1}. Only HTTPS: Redfish over plain HTTP would send the BMC password in the clear.
     */
    public static String baseUrl(String text, String where) {
        String raw = text == null ? "" : text.strip();
        // every message below quotes what was written: never with a password someone put in it (https://user:PW@host)
        String t = withoutCredentials(raw);
        URI uri;
        try {
            uri = new URI(raw);
        } catch (URISyntaxException e) {
            throw new InputException(where + " '" + t + "': not a URL (expected https://HOST[:PORT])");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("https")) {
            throw new InputException(where + " '" + t + "': " + (scheme.equals("http")
                    ? "plain HTTP would send the BMC password in the clear; use https://"
                    : "expected https://HOST[:PORT]"));
        }
        if (uri.getHost() == null || uri.getUserInfo() != null || uri.getQuery() != null || uri.getFragment() != null) {
            throw new InputException(where + " '" + t + "': expected https://HOST[:PORT] (credentials go in "
                    + "--bmc-credentials, never in the URL)");
        }
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        if (!path.isEmpty() && !path.equals("/") && !path.replaceAll("/+$", "").equals("/redfish/v1")) {
            throw new InputException(where + " '" + t + "': the path must be empty or /redfish/v1 (the service root)");
        }
        String host = uri.getHost().contains(":") && !uri.getHost().startsWith("[") ? "[" + uri.getHost() + "]"
                : uri.getHost();
        return "https://" + host.toLowerCase(Locale.ROOT) + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
    }

    /**
     * The text with whatever stands before its last '@' (a user and password) replaced, so that an error
     * can quote it: "https://root:secret@10.0.0.7/x" becomes "https://<user:password hidden>@10.0.0.7/x". Works on text
     * that does not parse as a URI too (a password with a space or a '%').
     */
    static String withoutCredentials(String text) {
        int scheme = text.indexOf("://");
        int start = scheme < 0 ? 0 : scheme + 3;
        // the last '@' anywhere: a password may hold '/', '?' or '#' (the URL is then not what was meant, and still
        // nothing before the '@' is quoted); a BMC URL has no other use for an '@'
        int at = text.lastIndexOf('@');
        if (at < start) {
            return text;
        }
        return text.substring(0, start) + "<user:password hidden>" + text.substring(at);
    }

    @Override
    public String toString() {
        return url;
    }
}
