package io.nodegate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The BMCs of examples/cluster-a-batch-stop's batch (seed 000, D+15): gpu-a07, a08 and a09 had been restarted against
 * cluster B 3 s after their Leases stopped, so their machines are running; gpu-a10 was powered off 6 s after its
 * Lease's last renewal (05:23:52Z). One BMC per host, each a different vendor's layout, as in a rack bought over
 * years. The UUIDs are the hosts' SMBIOS UUIDs as the BMCs print them (lower case; the kubelet printed upper case).
 */
public final class BmcStory implements AutoCloseable {

    public static final String PASSWORD = "PW-MARKER-bmc-9e41";
    public static final String A07 = "ed7f385e-42fb-567e-9e1e-d2b8596f6a5e";
    public static final String A08 = "feb06a68-acde-56b6-b6f2-1b5d0de61148";
    public static final String A09 = "fe7bc79a-c980-52f8-b9f8-c01dd24ebbe1";
    public static final String A10 = "86b33749-d5e7-5841-97e2-c7c53768970f";
    public static final String EXAMPLE = "examples/cluster-a-batch-stop";

    public final RedfishTestServer a07;
    public final RedfishTestServer a08;
    public final RedfishTestServer a09;
    public final RedfishTestServer a10;
    public final Path credentials;
    public final Path ca;

    private BmcStory(TestCerts certs, Path dir) {
        // booted on D+9 (2026-10-16 ~04:13Z, the bootID the Nodes still report) and running since: only the agent
        // was restarted, against cluster B, on D+15
        a07 = RedfishTestServer.start(certs.serverCert, certs.serverKey, RedfishTestServer.Layout.IDRAC)
                .account("root", PASSWORD).system("System.Embedded.1", A07, "On")
                .booted("System.Embedded.1", "2026-10-16T13:11:40+09:00", "2026-10-16T13:13:02+09:00");
        a08 = RedfishTestServer.start(certs.serverCert, certs.serverKey, RedfishTestServer.Layout.OPENBMC)
                .account("root", PASSWORD).system("system", A08, "On")
                .booted("system", "2026-10-16T13:10:58+09:00", "2026-10-16T13:12:31+09:00");
        a09 = RedfishTestServer.start(certs.serverCert, certs.serverKey, RedfishTestServer.Layout.ILO)
                .account("root", PASSWORD).system("1", A09, "On")
                .booted("1", "2026-10-16T13:12:05+09:00", "2026-10-16T13:13:47+09:00");
        a10 = RedfishTestServer.start(certs.serverCert, certs.serverKey, RedfishTestServer.Layout.DMTF)
                .account("root", PASSWORD).system("437XR1138R2", A10, "Off")
                .logEntry("2026-10-09T11:02:10+09:00", null, "System ACPI Power State: S5/G2: soft-off", "Assert")
                .logEntry("2026-10-16T13:12:44+09:00", null, "System ACPI Power State: S0/G0: working", "Assert")
                .logEntry("2026-10-22T14:23:58+09:00", null, "System ACPI Power State: S5/G2: soft-off", "Assert");
        ca = certs.caCert;
        credentials = dir.resolve("bmc-rack-a.yaml");
        try {
            // a kubernetes.io/basic-auth Secret as kubectl writes it: data, base64
            Files.writeString(credentials, """
                    apiVersion: v1
                    kind: Secret
                    type: kubernetes.io/basic-auth
                    metadata:
                      name: bmc-rack-a
                      namespace: nodegate-system
                    data:
                      username: cm9vdA==
                      password: %s
                    """.formatted(java.util.Base64.getEncoder().encodeToString(PASSWORD.getBytes())));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static BmcStory start(TestCerts certs, Path dir) {
        return new BmcStory(certs, dir);
    }

    public List<RedfishTestServer> all() {
        return List.of(a07, a08, a09, a10);
    }

    /** --bmc URL for every BMC, then --bmc-credentials and --bmc-ca. */
    public List<String> flags() {
        List<String> out = new java.util.ArrayList<>();
        for (RedfishTestServer s : all()) {
            out.add("--bmc");
            out.add(s.url());
        }
        out.addAll(List.of("--bmc-credentials", credentials.toString(), "--bmc-ca", ca.toString()));
        return out;
    }

    @Override
    public void close() {
        all().forEach(RedfishTestServer::close);
    }
}
