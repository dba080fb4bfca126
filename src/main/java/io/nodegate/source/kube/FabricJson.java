package io.nodegate.source.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.source.json.KubeJson;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The one edge where a fabric8 object (from an informer, or a read that still goes through the fabric8 client)
 * becomes the plain JSON value every mapping reads: it is serialized as the server would have sent it and read
 * back by {@link KubeJson}, so the same skip rules apply (Secret values never come out) and {@link StateAssembler}
 * has a single input shape. The reverse ({@link #toTyped}) exists for callers that want fabric8 objects.
 */
public final class FabricJson {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private FabricJson() {
    }

    /** The object as plain JSON values, read in {@code mode} (its kind decides the Secret and ConfigMap rules). */
    public static Map<String, Object> toPlain(HasMetadata object, KubeJson mode) {
        byte[] json = SERIALIZATION.asJson(object).getBytes(StandardCharsets.UTF_8);
        String kind = object.getKind() != null ? object.getKind() : HasMetadata.getKind(object.getClass());
        return mode.readObject(new ByteArrayInputStream(json), kind + " " + name(object), kind);
    }

    /** A plain object as a fabric8 object of {@code type}. */
    public static <T extends HasMetadata> T toTyped(Map<String, Object> object, Class<T> type) {
        return SERIALIZATION.convertValue(object, type);
    }

    private static String name(HasMetadata object) {
        return object.getMetadata() == null ? "(no metadata)" : object.getMetadata().getName();
    }
}
