package io.nodegate.source.kube;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Secret;

import java.util.HashMap;
import java.util.Map;

/** What nodegate keeps of a Secret: never its data. */
public final class SecretTrim {

    private static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

    private SecretTrim() {
    }

    /** A Secret with its metadata and type only; data, stringData and last-applied-configuration dropped. */
    public static Secret metadataOnly(Secret secret) {
        Secret out = new Secret();
        out.setApiVersion(secret.getApiVersion() == null ? "v1" : secret.getApiVersion());
        out.setKind(secret.getKind() == null ? "Secret" : secret.getKind());
        out.setType(secret.getType());
        out.setImmutable(secret.getImmutable());
        ObjectMeta meta = secret.getMetadata();
        if (meta != null && meta.getAnnotations() != null && meta.getAnnotations().containsKey(LAST_APPLIED)) {
            Map<String, String> annotations = new HashMap<>(meta.getAnnotations());
            annotations.remove(LAST_APPLIED);
            meta.setAnnotations(annotations);
        }
        out.setMetadata(meta);
        return out;
    }
}
