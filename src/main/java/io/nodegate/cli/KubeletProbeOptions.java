package io.nodegate.cli;

import io.nodegate.lifecycle.gate.HostInputs;
import io.nodegate.probe.KubeletProbe;
import picocli.CommandLine.Option;

import java.time.Duration;

/** --kubelet-port and --probe-timeout, the same for every command that knocks on kubelet ports (audit, gate, verify-gone). */
public final class KubeletProbeOptions {

    @Option(names = "--kubelet-port", paramLabel = "PORT", defaultValue = "10250",
            description = "Kubelet port the kubelet probe knocks on (default: ${DEFAULT-VALUE}).")
    int port = KubeletProbe.DEFAULT_PORT;

    @Option(names = "--probe-timeout", paramLabel = "DURATION", defaultValue = "3s",
            converter = DurationConverter.Positive.class,
            description = "One deadline per Node for the kubelet probe's connect and TLS handshake together "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration timeout = KubeletProbe.DEFAULT_TIMEOUT;

    /** A usage error for a port outside 1-65535 or a non-positive timeout. */
    void check() {
        ProbeKubeletCommand.checkPortAndTimeout(port, timeout);
    }

    /** The knock gate and verify-gone make when their flag asks for it (checked first), null when it does not. */
    HostInputs.Probe probe(boolean asked) {
        if (!asked) {
            return null;
        }
        check();
        return new HostInputs.Probe(port, timeout);
    }
}
