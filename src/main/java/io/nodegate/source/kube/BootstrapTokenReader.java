package io.nodegate.source.kube;

import io.nodegate.CollectionException;
import io.nodegate.model.BootstrapToken;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Set;

/**
 * Reads the bootstrap token Secrets of kube-system as {@link BootstrapToken}s: metadata and the three data keys the
 * API server's authenticator decides by ({@code expiration}, {@code usage-bootstrap-authentication},
 * {@code auth-extra-groups}). No other answer carries a token's expiry (the Secret Table's columns are Name, Type,
 * Data and Age), so the Secrets are read whole, asked for by the field selector {@code type=bootstrap.kubernetes.io/token}
 * ({@code k3s token list} asks the same, k3s {@code pkg/cli/token/token.go}) and parsed as a stream here: every data
 * key but those three ({@code token-secret}, {@code token-id}, {@code description}, anything else) is skipped token
 * by token, its text never turned into a string, so no token value is held, printed or stored.
 *
 * <p>The answer is filtered by type again here: a server that ignores the field selector cannot make another
 * Secret count, and what such a Secret holds is skipped like the token's secret.
 */
public final class BootstrapTokenReader {

    /** The data keys read; every other key's value is skipped unread. */
    static final Set<String> READ_KEYS = Set.of("expiration", "usage-bootstrap-authentication", "auth-extra-groups");

    private static final StreamedList.Shape SHAPE = new StreamedList.Shape("SecretList", "bootstrap token Secrets");

    private BootstrapTokenReader() {
    }

    /** kube-system's bootstrap token Secrets; a failed call or an unusable answer throws {@link CollectionException}. */
    public static List<BootstrapToken> read(KubeConnection connection) {
        String what = "LIST secrets in kube-system (type " + BootstrapToken.TYPE + ")";
        String path = "/api/v1/namespaces/kube-system/secrets?limit=500&fieldSelector="
                + URLEncoder.encode("type=" + BootstrapToken.TYPE, StandardCharsets.UTF_8);
        return StreamedList.read(connection, what, path, "", SHAPE, BootstrapTokenReader::parseSecret);
    }

    /** A SecretList (parser before its first token). */
    static List<BootstrapToken> parseList(JsonParser p, String where) throws IOException {
        return StreamedList.parse(p, where, SHAPE, BootstrapTokenReader::parseSecret);
    }

    /** One Secret (parser on its START_OBJECT), or null when it is not a bootstrap token. */
    private static BootstrapToken parseSecret(JsonParser p, String where) throws IOException {
        String name = null;
        String created = null;
        boolean deleting = false;
        String type = null;
        String expiration = null;
        String authentication = null;
        String groups = null;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if ("metadata".equals(field) && t == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                    String m = p.currentName();
                    JsonToken v = p.nextToken();
                    if ("name".equals(m) && v == JsonToken.VALUE_STRING) {
                        name = p.getString();
                    } else if ("creationTimestamp".equals(m) && v == JsonToken.VALUE_STRING) {
                        created = p.getString();
                    } else if ("deletionTimestamp".equals(m) && v == JsonToken.VALUE_STRING) {
                        deleting = true;
                    } else {
                        p.skipChildren(); // annotations too: last-applied-configuration repeats the data
                    }
                }
            } else if ("type".equals(field) && t == JsonToken.VALUE_STRING) {
                type = p.getString();
            } else if ("data".equals(field) && t == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                    String key = p.currentName();
                    JsonToken v = p.nextToken();
                    if (READ_KEYS.contains(key) && v == JsonToken.VALUE_STRING) {
                        String value = decode(p.getString(), key, where);
                        switch (key) {
                            case "expiration" -> expiration = value;
                            case "usage-bootstrap-authentication" -> authentication = value;
                            default -> groups = value;
                        }
                    } else {
                        p.skipChildren(); // a scalar's text is never decoded: token-secret stays unread
                    }
                }
            } else {
                p.skipChildren(); // stringData (never in an answer), immutable, anything else
            }
        }
        if (!BootstrapToken.TYPE.equals(type)) {
            return null;
        }
        if (name == null) {
            throw new CollectionException(where + ": a Secret without metadata.name");
        }
        Instant createdAt = created == null ? null : StateAssembler.parseOrNull(created);
        Instant expires = expiration == null ? null : StateAssembler.parseOrNull(expiration.trim());
        List<String> groupList = groups == null || groups.isBlank() ? List.of()
                : Arrays.stream(groups.split(",")).map(String::trim).filter(g -> !g.isEmpty()).toList();
        return new BootstrapToken(name, createdAt, expires, expiration, "true".equals(authentication), deleting,
                groupList);
    }

    private static String decode(String base64, String key, String where) {
        try {
            return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new CollectionException(where + ": data." + key + " of a bootstrap token Secret is not base64");
        }
    }
}
