package io.nodegate.cli;

import io.nodegate.InputException;
import io.nodegate.model.bmc.BmcReadings;
import io.nodegate.source.bmc.BmcCredentials;
import io.nodegate.source.bmc.BmcCredentialsFile;
import io.nodegate.source.bmc.BmcInventory;
import io.nodegate.source.bmc.BmcSource;
import io.nodegate.source.bmc.BmcTarget;
import io.nodegate.source.bmc.BmcTls;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * --bmc / --bmc-inventory and how to reach the BMCs (credentials, CA, timeouts), the same for every command that asks
 * the hosts' BMCs for their power state over Redfish: bmc, audit, gate, verify-gone and the watch. Read-only: see
 * docs/bmc.md.
 */
public final class BmcOptions {

    @Option(names = "--bmc", paramLabel = "URL",
            description = "A BMC to ask over Redfish (https://HOST[:PORT]); repeatable. Its systems are bound to "
                    + "Nodes by UUID = systemUUID, never by name.")
    List<String> urls = new ArrayList<>();

    @Option(names = "--bmc-inventory", paramLabel = "FILE",
            description = "A list of BMCs (YAML 'bmcs:' of URLs, or url: with credentials: FILE for that BMC).")
    Path inventory;

    @Option(names = "--bmc-credentials", paramLabel = "FILE",
            description = "BMC user and password: a kubernetes.io/basic-auth Secret manifest, 'username:' and "
                    + "'password:' keys, or such a Secret mounted as a volume (a directory with files username and "
                    + "password). Never printed or recorded.")
    Path credentials;

    @Option(names = "--bmc-ca", paramLabel = "FILE",
            description = "CA bundle (PEM) the BMCs' certificates must chain to (default: the JDK's trust store).")
    Path ca;

    @Option(names = "--bmc-insecure-skip-tls-verify",
            description = "Do not verify BMC certificates (self-signed BMCs). Said on every run: the password goes to "
                    + "whoever answers.")
    boolean insecure;

    @Option(names = "--bmc-session",
            description = "Log in with a Redfish session (POST SessionService/Sessions, X-Auth-Token, DELETE at the "
                    + "end) instead of HTTP Basic on every request.")
    boolean session;

    @Option(names = "--bmc-timeout", paramLabel = "DURATION", defaultValue = "10s",
            converter = DurationConverter.Positive.class,
            description = "The most one request to a BMC may take, connect to last byte (default: ${DEFAULT-VALUE}).")
    Duration timeout = Duration.ofSeconds(10);

    @Option(names = "--bmc-deadline", paramLabel = "DURATION", defaultValue = "2m",
            converter = DurationConverter.Positive.class,
            description = "The most reading all BMCs may take; a BMC not done by then is unreadable "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration deadline = Duration.ofMinutes(2);

    @Option(names = "--bmc-parallel", paramLabel = "N", defaultValue = "16",
            description = "BMCs read at once; each BMC gets one request at a time (default: ${DEFAULT-VALUE}).")
    int parallel = 16;

    /** True when BMCs were named (--bmc or --bmc-inventory). */
    public boolean given() {
        return !urls.isEmpty() || inventory != null;
    }

    /**
     * The BMCs to read, each with its credentials; a usage error for anything missing or contradictory, before any
     * BMC is asked.
     */
    List<BmcTarget> targets() {
        if (!given()) {
            String stray = credentials != null ? "--bmc-credentials" : ca != null ? "--bmc-ca"
                    : insecure ? "--bmc-insecure-skip-tls-verify" : session ? "--bmc-session" : null;
            if (stray != null) {
                throw new InputException(stray + " was given without --bmc or --bmc-inventory");
            }
            return List.of();
        }
        if (ca != null && insecure) {
            throw new InputException("--bmc-ca and --bmc-insecure-skip-tls-verify contradict each other: give one");
        }
        if (parallel < 1) {
            throw new InputException("--bmc-parallel " + parallel + ": must be at least 1");
        }
        BmcCredentials common = credentials == null ? null
                : BmcCredentialsFile.read(credentials, "--bmc-credentials");
        Map<String, BmcTarget> targets = new LinkedHashMap<>();
        for (String url : urls) {
            String base = BmcTarget.baseUrl(url, "--bmc");
            if (common == null) {
                throw new InputException("--bmc " + base + ": no credentials (give --bmc-credentials FILE)");
            }
            if (targets.put(base, new BmcTarget(base, common)) != null) {
                throw new InputException("--bmc " + base + " is given twice");
            }
        }
        if (inventory != null) {
            for (BmcInventory.Entry e : BmcInventory.read(inventory)) {
                BmcCredentials own = e.credentialsFile() == null ? common
                        : BmcCredentialsFile.read(e.credentialsFile(), "--bmc-inventory " + inventory + ": "
                        + e.url() + " credentials");
                if (own == null) {
                    throw new InputException("--bmc-inventory " + inventory + ": " + e.url() + " has no credentials "
                            + "(add credentials: FILE to it, or give --bmc-credentials)");
                }
                if (targets.put(e.url(), new BmcTarget(e.url(), own)) != null) {
                    throw new InputException(e.url() + " is given both with --bmc and in --bmc-inventory " + inventory);
                }
            }
        }
        return List.copyOf(targets.values());
    }

    BmcTls tls() {
        return insecure ? BmcTls.skippingVerification() : BmcTls.verifying(ca);
    }

    BmcSource.Settings settings() {
        return new BmcSource.Settings(tls(), session, timeout, deadline, parallel);
    }

    /**
     * Reads every BMC given; {@link BmcReadings#NOT_READ} when none was. The insecure warning and anything worth
     * saying (a session that could not be closed) go to {@code err}.
     */
    public BmcReadings read(Clock clock, PrintWriter err) {
        List<BmcTarget> targets = targets();
        if (targets.isEmpty()) {
            return BmcReadings.NOT_READ;
        }
        if (insecure) {
            err.println(BmcTls.INSECURE_WARNING);
            err.flush();
        }
        Consumer<String> notes = note -> {
            err.println("note: " + note);
            err.flush();
        };
        return new BmcSource(settings(), clock, notes).read(targets);
    }
}
