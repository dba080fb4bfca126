package io.nodegate.model;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The node-password name rule, written out for speed, agrees with the regex it replaced on every shape of name. */
class SecretMetaNodePasswordTest {

    private static final Pattern REGEX = Pattern.compile("^(.+)\\.node-password\\.(k3s|rke2)$");

    private static Optional<String> byRegex(String name) {
        Matcher m = REGEX.matcher(name);
        return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
    }

    @Test
    void agreesWithTheRegex() {
        List<String> names = List.of("w1.node-password.rke2", "w1.node-password.k3s", "node-1.example.node-password.k3s",
                ".node-password.k3s", "x.node-password.k3s.node-password.rke2", "w1.node-password.rke2x",
                "w1.node-password.K3S", "w1-node-password.k3s", "w\n1.node-password.k3s", "w\u20281.node-password.rke2",
                "a.node-password.k3s\n", "node-password.k3s", "w1.node-password.", "", "x.node-password.rke2.node-password.k3s");
        for (String name : names) {
            SecretMeta secret = new SecretMeta("kube-system", name, "u", null, "Opaque", null);
            assertThat(secret.nodePasswordOwner()).as(name).isEqualTo(byRegex(name));
            assertThat(SecretMeta.isNodePasswordName(name)).as(name).isEqualTo(byRegex(name).isPresent());
        }
        assertThat(new SecretMeta("kube-system", "w1.node-password.rke2", "u", null, "Opaque", null)
                .nodePasswordOwner()).contains("w1");
    }
}
