package io.nodegate.source.json;

import java.util.Map;

/**
 * How objects of one kind are read so that only their metadata crosses the wire: the API server is asked for a
 * Table ({@link #ACCEPT}), whose rows carry each object's metadata (as a {@code PartialObjectMetadata}) and the
 * printed columns of its kind, and never the object's other fields. nodegate reads kube-system Secrets this way:
 * the node-password ones for their names, creation times, owner references and type, never their values.
 *
 * <p>Why a Table and not a {@code PartialObjectMetadataList}: both keep values off the wire, but a partial object is
 * metadata only, and a Secret's {@code type} is not metadata. The type is evidence (NG140's {@code secretType}, the
 * baseline: k3s/RKE2 type node-password Secrets since late 2025, older ones are untyped); kube-apiserver's Secret
 * printer puts it in the Table's "Type" column (next to Name, Data, the number of keys, and Age). See
 * kubernetes/pkg/printers/internalversion/printers.go (secretColumnDefinitions) and
 * staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go (asTable: with includeObject=Metadata, the
 * default, each row's object is the item's PartialObjectMetadata in meta.k8s.io/v1).
 *
 * <p>A server that does not serve Tables answers the plain list ({@code application/json} is the fallback of the
 * Accept header); its Secrets are then read as before, values skipped while parsing.
 *
 * @param kind         the kind of the objects ("Secret"); every row becomes an object of this kind
 * @param apiVersion   their apiVersion ("v1")
 * @param columnFields Table column name → the object's top-level field it fills ("Type" → "type"); an empty cell
 *                     leaves the field out, as an untyped object has none
 */
public record MetadataOnly(String kind, String apiVersion, Map<String, String> columnFields) {

    /** What a metadata-only read asks for: a Table in meta.k8s.io/v1, or else the plain answer. */
    public static final String ACCEPT = "application/json;as=Table;g=meta.k8s.io;v=v1,application/json";

    /**
     * What a write or re-read of one Secret asks for (readmit deletes a node-password Secret and may read it again):
     * its metadata as a PartialObjectMetadata, which is all those steps look at (uid, deletionTimestamp), so the
     * DELETE's answer does not carry the deleted Secret's values back either.
     */
    public static final String ACCEPT_OBJECT_METADATA =
            "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

    /** The query parameter that asks for each row's object as its metadata (the server's default, said aloud). */
    public static final String INCLUDE_OBJECT = "includeObject=Metadata";

    /** Secrets: metadata and type. Secret values never cross the wire. */
    public static final MetadataOnly SECRET = new MetadataOnly("Secret", "v1", Map.of("Type", "type"));

    public MetadataOnly {
        columnFields = Map.copyOf(columnFields);
    }

    /**
     * The metadata-only read of objects of {@code kind}, or null to read them whole. Every read of a Secret gets one
     * whoever asks, so no caller can bring a Secret's values over the wire by forgetting to ask.
     */
    public static MetadataOnly forKind(String kind) {
        return SECRET.kind.equals(kind) ? SECRET : null;
    }
}
