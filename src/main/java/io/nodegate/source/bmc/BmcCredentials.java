package io.nodegate.source.bmc;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Objects;

/**
 * A BMC account: user name and password, and where they came from (a file, a Secret) so messages can name the
 * source. The password is never printed: {@link #toString()} leaves it out, and nothing else hands it out except the
 * two places that send it to the BMC (the Basic header, the session POST body).
 */
public final class BmcCredentials {

    private final String username;
    private final String password;
    private final String from;

    public BmcCredentials(String username, String password, String from) {
        this.username = Objects.requireNonNull(username, "username");
        this.password = Objects.requireNonNull(password, "password");
        this.from = from;
    }

    public String username() {
        return username;
    }

    /** Where these came from, e.g. "--bmc-credentials rack-a.yaml" or "Secret nodegate-system/bmc-rack-a". */
    public String from() {
        return from;
    }

    /** {@code Basic base64(user:password)} (RFC 7617), for the Authorization header only. */
    String basicAuthorization() {
        return "Basic " + Base64.getEncoder().encodeToString((username + ":" + password)
                .getBytes(StandardCharsets.UTF_8));
    }

    /** The SessionService login body (DSP0266 13.3.4: UserName and Password), for the session POST only. */
    java.util.Map<String, String> sessionLogin() {
        return java.util.Map.of("UserName", username, "Password", password);
    }

    @Override
    public String toString() {
        return "BmcCredentials[user " + username + ", password not shown, from " + from + "]";
    }
}
