package io.nodegate.source.rancher;

import io.nodegate.CollectionException;
import io.nodegate.model.RegistrationToken;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.source.kube.StateAssembler;
import io.nodegate.source.kube.StreamedList;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;

import java.io.IOException;
import java.time.Instant;
import java.util.List;

/**
 * Reads the ClusterRegistrationTokens of one management namespace ({@code c-m-…}) as {@link RegistrationToken}s.
 *
 * <p>No answer without the token exists: the CRD has no printer columns that would give the expiry, and metadata alone
 * does not carry it, so the list is read whole and parsed here as a stream. Of {@code status} only
 * {@code tokenSecretName}, {@code expiresAt} and {@code gracePeriodExpiresAt} are turned into strings; every other
 * field ({@code token}, {@code command}, {@code insecureCommand}, {@code nodeCommand}, {@code insecureNodeCommand},
 * {@code windowsNodeCommand}, {@code insecureWindowsNodeCommand}, {@code manifestUrl}: each carries the token in the
 * shape older Rancher releases store) is skipped token by token, its text never turned into a string; of
 * {@code status.token} only whether it is empty is asked. {@code metadata.annotations} and {@code managedFields} are
 * skipped too (a {@code kubectl apply} leaves the whole object in an annotation). So no token value is held, printed
 * or stored.
 */
public final class RegistrationTokenReader {

    private static final StreamedList.Shape SHAPE = new StreamedList.Shape("ClusterRegistrationTokenList",
            "ClusterRegistrationTokens");

    private RegistrationTokenReader() {
    }

    public static String path(String namespace) {
        return "/apis/" + RegistrationToken.API_VERSION + "/namespaces/" + namespace
                + "/clusterregistrationtokens?limit=500";
    }

    /**
     * The namespace's ClusterRegistrationTokens. A failed call, a 404 (the management cluster does not serve the
     * type: not Rancher's), a 403 or an unusable answer throws {@link CollectionException}: never "none".
     */
    public static List<RegistrationToken> read(KubeConnection connection, String namespace) {
        String what = "LIST clusterregistrationtokens." + RegistrationToken.API_VERSION + " in " + namespace;
        return StreamedList.read(connection, what, path(namespace), " (the API server does not serve Rancher's "
                + "ClusterRegistrationTokens: is this Rancher's management cluster?)", SHAPE,
                RegistrationTokenReader::parseItem);
    }

    /** A ClusterRegistrationTokenList (parser before its first token). */
    static List<RegistrationToken> parseList(JsonParser p, String where) throws IOException {
        return StreamedList.parse(p, where, SHAPE, RegistrationTokenReader::parseItem);
    }

    /** One ClusterRegistrationToken (parser on its START_OBJECT). */
    private static RegistrationToken parseItem(JsonParser p, String where) throws IOException {
        String namespace = null;
        String name = null;
        String created = null;
        boolean deleting = false;
        String clusterName = null;
        Long ttl = null;
        String secretName = null;
        String expiresAt = null;
        String graceEnds = null;
        boolean tokenInStatus = false;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if ("metadata".equals(field) && t == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                    String m = p.currentName();
                    JsonToken v = p.nextToken();
                    if ("name".equals(m) && v == JsonToken.VALUE_STRING) {
                        name = p.getString();
                    } else if ("namespace".equals(m) && v == JsonToken.VALUE_STRING) {
                        namespace = p.getString();
                    } else if ("creationTimestamp".equals(m) && v == JsonToken.VALUE_STRING) {
                        created = p.getString();
                    } else if ("deletionTimestamp".equals(m) && v == JsonToken.VALUE_STRING) {
                        deleting = true;
                    } else {
                        p.skipChildren(); // annotations (last-applied-configuration), managedFields, labels
                    }
                }
            } else if ("spec".equals(field) && t == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                    String s = p.currentName();
                    JsonToken v = p.nextToken();
                    if ("clusterName".equals(s) && v == JsonToken.VALUE_STRING) {
                        clusterName = p.getString();
                    } else if ("ttl".equals(s) && v == JsonToken.VALUE_NUMBER_INT) {
                        ttl = p.getLongValue();
                    } else {
                        p.skipChildren();
                    }
                }
            } else if ("status".equals(field) && t == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                    String s = p.currentName();
                    JsonToken v = p.nextToken();
                    if (v == JsonToken.VALUE_STRING && "tokenSecretName".equals(s)) {
                        secretName = blankToNull(p.getString());
                    } else if (v == JsonToken.VALUE_STRING && "expiresAt".equals(s)) {
                        expiresAt = blankToNull(p.getString());
                    } else if (v == JsonToken.VALUE_STRING && "gracePeriodExpiresAt".equals(s)) {
                        graceEnds = blankToNull(p.getString());
                    } else if (v == JsonToken.VALUE_STRING && "token".equals(s)) {
                        // only whether it is empty: its length, never its text as a string
                        tokenInStatus = p.getStringLength() > 0;
                    } else {
                        p.skipChildren(); // the commands and the manifest URL: they spell the token out
                    }
                }
            } else {
                p.skipChildren();
            }
        }
        if (name == null) {
            throw new CollectionException(where + ": a ClusterRegistrationToken without metadata.name");
        }
        Instant expires = expiresAt == null ? null : StateAssembler.parseOrNull(expiresAt.trim());
        Instant grace = graceEnds == null ? null : StateAssembler.parseOrNull(graceEnds.trim());
        return new RegistrationToken(namespace, name, clusterName,
                created == null ? null : StateAssembler.parseOrNull(created), deleting, ttl, secretName, expires,
                expiresAt, grace, tokenInStatus);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
