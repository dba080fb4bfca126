package io.nodegate.source.bmc;

import io.nodegate.InputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What an operator gives: credentials in a basic-auth Secret's shape, the BMC inventory, BMC URLs. */
class BmcInputsTest {

    static final String PASSWORD = "PW-MARKER-inputs-3d2e";

    @TempDir
    Path dir;

    private Path write(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    private BmcCredentials read(Path file) {
        return BmcCredentialsFile.read(file, "--bmc-credentials");
    }

    @Test
    void aBasicAuthSecretAsKubectlWritesItWithBase64Data() throws Exception {
        // kubectl create secret generic bmc --type=kubernetes.io/basic-auth --from-literal=... -o yaml --dry-run
        Path f = write("secret.yaml", """
                apiVersion: v1
                kind: Secret
                metadata:
                  name: bmc-rack-a
                type: kubernetes.io/basic-auth
                data:
                  username: %s
                  password: %s
                """.formatted(Base64.getEncoder().encodeToString("root".getBytes()),
                Base64.getEncoder().encodeToString(PASSWORD.getBytes())));

        BmcCredentials c = read(f);

        assertThat(c.username()).isEqualTo("root");
        assertThat(c.basicAuthorization()).isEqualTo("Basic " + Base64.getEncoder().encodeToString(("root:" + PASSWORD)
                .getBytes()));
        assertThat(c.toString()).doesNotContain(PASSWORD).contains("password not shown");
    }

    @Test
    void stringDataWinsOverDataAsTheApiServerMergesThem() throws Exception {
        Path f = write("secret.json", "{\"kind\":\"Secret\",\"type\":\"kubernetes.io/basic-auth\",\"data\":{\"username\":"
                + "\"b2xk\",\"password\":\"b2xk\"},\"stringData\":{\"username\":\"admin\",\"password\":\"" + PASSWORD + "\"}}");

        BmcCredentials c = read(f);

        assertThat(c.username()).isEqualTo("admin");
        assertThat(c.sessionLogin()).containsEntry("Password", PASSWORD);
    }

    @Test
    void justTheTwoKeysAndAMountedSecretDirectoryAreAccepted() throws Exception {
        assertThat(read(write("plain.yaml", "username: root\npassword: " + PASSWORD + "\n")).username()).isEqualTo("root");

        Path mounted = Files.createDirectories(dir.resolve("mounted"));
        Files.writeString(mounted.resolve("username"), "root");
        Files.writeString(mounted.resolve("password"), PASSWORD);
        assertThat(read(mounted).sessionLogin()).containsEntry("UserName", "root").containsEntry("Password", PASSWORD);

        Files.delete(mounted.resolve("password"));
        assertThatThrownBy(() -> read(mounted)).isInstanceOf(InputException.class)
                .hasMessageContaining("a directory without the file password");
    }

    @Test
    void wrongShapesAreNamedAndNeverQuoted() throws Exception {
        assertThatThrownBy(() -> read(write("opaque.yaml", "kind: Secret\ntype: Opaque\nstringData:\n  username: r\n"
                + "  password: " + PASSWORD + "\n"))).hasMessageEndingWith("a Secret of type Opaque, expected "
                + "kubernetes.io/basic-auth");
        assertThatThrownBy(() -> read(write("cm.yaml", "kind: ConfigMap\ndata:\n  password: x\n")))
                .hasMessageContaining("kind ConfigMap, expected a Secret");
        assertThatThrownBy(() -> read(write("nopw.yaml", "kind: Secret\nstringData:\n  username: root\n")))
                .hasMessageContaining("the Secret has no password (in stringData or data)");
        assertThatThrownBy(() -> read(write("b64.yaml", "kind: Secret\ndata:\n  username: '%%%'\n  password: x\n")))
                .hasMessageContaining("data.username is not base64");
        assertThatThrownBy(() -> read(write("user.yaml", "password: " + PASSWORD + "\n")))
                .hasMessageContaining("no username");
        Throwable broken = org.assertj.core.api.Assertions.catchThrowable(() -> read(write("broken.yaml",
                "username: root\npassword: [" + PASSWORD + "\n")));
        assertThat(broken).isInstanceOf(InputException.class).hasMessageContaining("not valid YAML or JSON (line");
        assertThat(broken.getMessage()).doesNotContain(PASSWORD);
        assertThatThrownBy(() -> read(dir.resolve("missing.yaml"))).hasMessageEndingWith("missing.yaml: no such file");
    }

    @Test
    void aPipeOrADeviceGivenAsCredentialsOrInventoryIsRefusedNotWaitedOn() throws Exception {
        Path fifo = dir.resolve("creds.fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        // nothing ever writes to the pipe: reading it would block until the overall deadline
        assertThatThrownBy(() -> read(fifo)).isInstanceOf(InputException.class).hasMessageContaining("not a regular file");
        assertThatThrownBy(() -> BmcInventory.read(Path.of("/dev/zero"))).isInstanceOf(InputException.class)
                .hasMessageContaining("--bmc-inventory /dev/zero").hasMessageContaining("not a regular file");
    }

    @Test
    void bmcUrlsAreHttpsHostAndPortOnly() {
        assertThat(BmcTarget.baseUrl("https://10.0.30.7", "--bmc")).isEqualTo("https://10.0.30.7");
        assertThat(BmcTarget.baseUrl("https://iDRAC-A07.example:8443/redfish/v1/", "--bmc"))
                .isEqualTo("https://idrac-a07.example:8443");
        assertThat(BmcTarget.baseUrl("https://[fd00::7]/", "--bmc")).isEqualTo("https://[fd00::7]");
        assertThatThrownBy(() -> BmcTarget.baseUrl("http://10.0.30.7", "--bmc"))
                .hasMessageContaining("plain HTTP would send the BMC password in the clear");
        assertThatThrownBy(() -> BmcTarget.baseUrl("https://root:" + PASSWORD + "@10.0.30.7", "--bmc"))
                .hasMessageContaining("credentials go in --bmc-credentials, never in the URL");
        assertThatThrownBy(() -> BmcTarget.baseUrl("https://10.0.30.7/redfish/v1/Systems", "--bmc"))
                .hasMessageContaining("the path must be empty or /redfish/v1");
        assertThatThrownBy(() -> BmcTarget.baseUrl("10.0.30.7", "--bmc")).hasMessageContaining("expected https://");
    }

    @Test
    void theInventoryListsUrlsWithOptionalCredentialsRelativeToIt() throws Exception {
        Path inv = write("bmcs.yaml", """
                bmcs:
                - https://10.0.30.7
                - url: https://10.0.30.8/redfish/v1
                  credentials: rack-b.yaml
                """);

        List<BmcInventory.Entry> entries = BmcInventory.read(inv);

        assertThat(entries).containsExactly(new BmcInventory.Entry("https://10.0.30.7", null),
                new BmcInventory.Entry("https://10.0.30.8", dir.resolve("rack-b.yaml")));
        assertThatThrownBy(() -> BmcInventory.read(write("dup.yaml", "bmcs:\n- https://10.0.30.7\n- https://10.0.30.7/\n")))
                .hasMessageContaining("bmcs[1]: https://10.0.30.7 is listed twice");
        assertThatThrownBy(() -> BmcInventory.read(write("key.yaml", "bmcs:\n- url: https://a\n  node: gpu-a07\n")))
                .hasMessageContaining("bmcs[0]: unknown key 'node' (url, credentials)");
        assertThatThrownBy(() -> BmcInventory.read(write("empty.yaml", "bmcs: []\n")))
                .hasMessageContaining("the list under 'bmcs:' is empty");
        assertThatThrownBy(() -> BmcInventory.read(write("flat.yaml", "- https://a\n")))
                .hasMessageContaining("expected a list under 'bmcs:'");
    }

    @Test
    void aPasswordWrittenIntoABmcUrlIsNeverEchoedInTheError() throws Exception {
        for (String url : List.of("https://root:" + PASSWORD + "@10.0.30.7", "https://root:" + PASSWORD + "@10.0.30.7/redfish/v1",
                "https://root:" + PASSWORD + " x@10.0.30.7", "https://root:a/" + PASSWORD + "@10.0.30.7",
                "http://root:" + PASSWORD + "@10.0.30.7", "root:" + PASSWORD + "@10.0.30.7")) {
            assertThatThrownBy(() -> BmcTarget.baseUrl(url, "--bmc")).isInstanceOf(InputException.class)
                    .message().doesNotContain(PASSWORD).doesNotContain("a/PW").contains("--bmc");
        }
        Path inventory = write("bmcs.yaml", "bmcs:\n  - https://admin:" + PASSWORD + "@10.0.30.8\n  - url: https://root:"
                + PASSWORD + "@10.0.30.9\n");
        assertThatThrownBy(() -> BmcInventory.read(inventory)).isInstanceOf(InputException.class)
                .message().doesNotContain(PASSWORD).contains("10.0.30.8").contains("never in the URL");
    }
}
