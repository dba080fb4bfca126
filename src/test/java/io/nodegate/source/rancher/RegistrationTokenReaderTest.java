package io.nodegate.source.rancher;

import io.nodegate.CollectionException;
import io.nodegate.model.RegistrationToken;
import io.nodegate.source.json.KubeJson;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonParser;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The ClusterRegistrationToken list, parsed from the shapes Rancher stores (src/test/resources/rancher/
 * registration-tokens, see its README for the rancher/rancher sources): what is kept, and that the token, planted in
 * every field that carries it, is in nothing kept.
 */
class RegistrationTokenReaderTest {

    static final String TOKEN = "plantedcrt7q2wzx9v5k4m8n6p2r4t6x8z2b4d6f8h2j4l6n8p2r4t";

    static String recorded(String file) {
        try (InputStream in = RegistrationTokenReaderTest.class.getResourceAsStream(
                "/rancher/registration-tokens/" + file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("CRT_TOKEN", TOKEN);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<RegistrationToken> parse(String json) throws IOException {
        try (JsonParser p = KubeJson.parser(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)))) {
            return RegistrationTokenReader.parseList(p, "test");
        }
    }

    @Test
    void theOlderShapeHoldsTheTokenInStatusAndEveryCommandAndNoneOfItIsKept() throws IOException {
        String json = recorded("crt-list-rancher-2.12.json");
        assertThat(json).contains("\"token\": \"" + TOKEN + "\"", "--token " + TOKEN, "-Token " + TOKEN,
                "/v3/import/" + TOKEN + "_c-m-7w2kx.yaml");
        List<RegistrationToken> tokens = parse(json);
        assertThat(tokens).containsExactly(new RegistrationToken("c-m-7w2kx", "default-token", "c-m-7w2kx",
                Instant.parse("2026-04-02T01:12:47Z"), false, null, null, null, null, null, true));
        RegistrationToken t = tokens.get(0);
        assertThat(t.rotates()).isFalse();
        assertThat(t.holdsToken()).isTrue();
        assertThat(tokens.toString()).doesNotContain(TOKEN, "plantedcrt");
    }

    @Test
    void rancher215KeepsTheTokenInASecretAndSaysWhenItRotates() throws IOException {
        List<RegistrationToken> tokens = parse(recorded("crt-list-rancher-2.15.json")
                .replace("EXPIRES_AT", "2026-05-02T03:40:11Z").replace("GRACE_ENDS", "2026-04-30T14:02:00Z"));
        RegistrationToken t = tokens.get(0);
        assertThat(t.tokenInStatus()).isFalse();
        assertThat(t.tokenSecretName()).isEqualTo("crt-token-default-token");
        assertThat(t.holdsToken()).isTrue();
        assertThat(t.rotates()).isTrue();
        assertThat(t.expiresAt()).isEqualTo(Instant.parse("2026-05-02T03:40:11Z"));
        assertThat(t.gracePeriodEndsAt()).isEqualTo(Instant.parse("2026-04-30T14:02:00Z"));

        // no grace period running: Rancher empties the field
        RegistrationToken calm = parse(recorded("crt-list-rancher-2.15.json")
                .replace("EXPIRES_AT", "2026-05-02T03:40:11Z").replace("GRACE_ENDS", "")).get(0);
        assertThat(calm.gracePeriodEndsAt()).isNull();
        // an expiry that does not parse is kept as written: it still rotates, the time is not known
        RegistrationToken odd = parse(recorded("crt-list-rancher-2.15.json")
                .replace("EXPIRES_AT", "soon").replace("GRACE_ENDS", "")).get(0);
        assertThat(odd.expiresAt()).isNull();
        assertThat(odd.expiresAtText()).isEqualTo("soon");
        assertThat(odd.rotates()).isTrue();
    }

    @Test
    void aTokenInAnnotationsOrUnknownFieldsIsSkippedToo() throws IOException {
        // kubectl apply keeps the whole object in an annotation; a field of a later release may carry it as well
        String json = "{\"kind\":\"ClusterRegistrationTokenList\",\"items\":[{\"metadata\":{\"name\":\"extra\","
                + "\"namespace\":\"c-m-7w2kx\",\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":"
                + "\"{\\\"status\\\":{\\\"token\\\":\\\"" + TOKEN + "\\\"}}\"}},\"spec\":{\"clusterName\":\"c-m-7w2kx\","
                + "\"ttl\":0},\"status\":{\"token\":\"" + TOKEN + "\",\"futureCommand\":{\"text\":\"" + TOKEN
                + "\"},\"expiresAt\":\"\"}}]}";
        List<RegistrationToken> tokens = parse(json);
        assertThat(tokens).hasSize(1);
        assertThat(tokens.get(0).ttlMinutes()).isZero();
        assertThat(tokens.get(0).rotates()).isFalse();
        assertThat(tokens.toString()).doesNotContain(TOKEN);
    }

    @Test
    void anEmptyListIsNoneAndABrokenAnswerIsAnError() throws IOException {
        assertThat(parse("{\"kind\":\"ClusterRegistrationTokenList\",\"items\":[]}")).isEmpty();
        assertThatThrownBy(() -> parse("{\"kind\":\"Status\",\"code\":403}"))
                .isInstanceOf(CollectionException.class).hasMessageContaining("not a ClusterRegistrationTokenList");
        assertThatThrownBy(() -> parse("{\"kind\":\"SecretList\",\"items\":[]}"))
                .isInstanceOf(CollectionException.class);
        assertThatThrownBy(() -> parse("{\"kind\":\"ClusterRegistrationTokenList\",\"items\":[{\"spec\":{}}]}"))
                .isInstanceOf(CollectionException.class).hasMessageContaining("without metadata.name");
        assertThatThrownBy(() -> parse("{\"kind\":\"ClusterRegistrationTokenList\",\"metadata\":{\"continue\":"
                + "\"abc\"},\"items\":[]}")).isInstanceOf(CollectionException.class)
                .hasMessageContaining("more than 500");
    }
}
