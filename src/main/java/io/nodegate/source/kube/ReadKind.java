package io.nodegate.source.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;

import io.nodegate.source.json.KubeJson;
import io.nodegate.source.json.MetadataOnly;
import io.nodegate.source.json.Plain;

import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

/**
 * One row of the table of what nodegate reads ({@link Kinds#ALL}): which objects (type, namespace, label), whether
 * a cluster must have them, how they are trimmed on arrival, where `collect` writes them and how they map into the
 * model. The live source, the dump source, `collect`, the lifecycle reads and the watch's list-then-watch all go
 * through these rows, so adding a kind is adding a row.
 *
 * <p>The mapping into the model reads plain JSON values ({@link KubeJson}: what the API, a watch event or a dump
 * file sent, parsed without fabric8's typed model): {@link #fromJson}, the one mapping every source uses. Where a
 * fabric8 object still arrives (reads that still go through the fabric8 client), {@link FabricJson} turns it into
 * the same plain value first.
 *
 * @param <T> the fabric8 type of these objects (its API path, plural and kind; the fabric8 client's typed calls)
 * @param <M> what one object becomes in the model
 */
public final class ReadKind<T extends HasMetadata, M> {

    /** How absence of the whole kind is told apart from "present, and empty". */
    public enum Presence {
        /** Every cluster serves it: a 404 on the LIST is a broken answer, not absence. */
        REQUIRED,
        /** An API a cluster may not serve (e.g. CSINode): a 404 on the LIST proves it absent. */
        OPTIONAL_API,
        /** Objects in a namespace that may not exist (cattle-system without Rancher): GET namespace 404 proves it. */
        OPTIONAL_NAMESPACE,
        /** Read only when a command asks for it (pods). */
        ON_REQUEST
    }

    private final String id;
    private final Class<T> type;
    private final String kind;
    private final String namespace;
    private final String labelKey;
    private final String labelValue;
    private final Presence presence;
    private final String listWhat;
    private final String dumpFile;
    private final String absentNote;
    private final String notInInputWhat;
    private final UnaryOperator<T> trim;
    private final BiFunction<StateAssembler, Map<String, Object>, M> fromJson;
    private final MetadataOnly metadataOnly;

    private ReadKind(Builder<T, M> b) {
        this.id = b.id;
        this.type = b.type;
        this.kind = ApiResource.of(b.type).kind();
        this.namespace = b.namespace;
        this.labelKey = b.labelKey;
        this.labelValue = b.labelValue;
        this.presence = b.presence;
        this.listWhat = b.listWhat;
        this.dumpFile = b.dumpFile;
        this.absentNote = b.absentNote;
        this.notInInputWhat = b.notInInputWhat;
        this.trim = b.trim == null ? UnaryOperator.identity() : b.trim;
        this.fromJson = b.fromJson;
        this.metadataOnly = b.metadataOnly;
    }

    /**
     * A row, by name: {@code id}, the fabric8 type and the mapping into the model, then where the objects are, how
     * their absence is told, how `collect` names them. {@link Builder#build} refuses a row without presence,
     * LIST wording, dump file or "not in the input" wording, naming the row and the part.
     */
    static <T extends HasMetadata, M> Builder<T, M> builder(
            String id, Class<T> type, BiFunction<StateAssembler, Map<String, Object>, M> fromJson) {
        return new Builder<>(id, type, fromJson);
    }

    /** Named construction of a {@link ReadKind} row; see {@link #builder}. */
    static final class Builder<T extends HasMetadata, M> {
        private final String id;
        private final Class<T> type;
        private final BiFunction<StateAssembler, Map<String, Object>, M> fromJson;
        private String namespace;
        private String labelKey;
        private String labelValue;
        private Presence presence;
        private String listWhat;
        private String dumpFile;
        private String absentNote;
        private String notInInputWhat;
        private UnaryOperator<T> trim;
        private MetadataOnly metadataOnly;

        private Builder(String id, Class<T> type, BiFunction<StateAssembler, Map<String, Object>, M> fromJson) {
            this.id = Objects.requireNonNull(id, "id");
            this.type = Objects.requireNonNull(type, id + ": type");
            this.fromJson = Objects.requireNonNull(fromJson, id + ": fromJson");
        }

        /** The namespace read; not set: cluster-scoped, or every namespace of a namespaced type. */
        Builder<T, M> namespace(String value) {
            namespace = value;
            return this;
        }

        /** Only objects with this label. */
        Builder<T, M> label(String key, String value) {
            labelKey = key;
            labelValue = value;
            return this;
        }

        Builder<T, M> presence(Presence value) {
            presence = value;
            return this;
        }

        /** How error messages name the LIST call, e.g. "LIST leases in kube-node-lease". */
        Builder<T, M> listWhat(String value) {
            listWhat = value;
            return this;
        }

        /** The file `collect` writes these objects to. */
        Builder<T, M> dumpFile(String value) {
            dumpFile = value;
            return this;
        }

        /** The note both sources attach when the kind is proven absent; not set for kinds that cannot be. */
        Builder<T, M> absentNote(String value) {
            absentNote = value;
            return this;
        }

        /** Offline, when the input holds none of an optional kind: how the "not in the input" note names them. */
        Builder<T, M> notInInputWhat(String value) {
            notInInputWhat = value;
            return this;
        }

        /** What is kept of an object as it arrives; not set: all of it. */
        Builder<T, M> trim(UnaryOperator<T> value) {
            trim = value;
            return this;
        }

        /** How to read only these objects' metadata (Secrets); not set: they are read whole. */
        Builder<T, M> metadataOnly(MetadataOnly value) {
            metadataOnly = value;
            return this;
        }

        ReadKind<T, M> build() {
            require(presence, "presence");
            require(listWhat, "listWhat");
            require(dumpFile, "dumpFile");
            require(notInInputWhat, "notInInputWhat");
            return new ReadKind<>(this);
        }

        private void require(Object part, String name) {
            if (part == null) {
                throw new IllegalStateException("ReadKind " + id + ": " + name + " not set");
            }
        }
    }

    /** Short stable name: the `absent` token in collected.json, the {@code kind} label of the watch's metrics. */
    public String id() {
        return id;
    }

    public Class<T> type() {
        return type;
    }

    /** The Kubernetes kind of these objects ("Node", "Lease"). */
    public String kind() {
        return kind;
    }

    /** The namespace read, or null for a cluster-scoped kind or one read in all namespaces. */
    public String namespace() {
        return namespace;
    }

    /** True when objects are read from every namespace (namespaced type, no namespace given). */
    public boolean allNamespaces() {
        return namespace == null && io.fabric8.kubernetes.api.model.Namespaced.class.isAssignableFrom(type);
    }

    /** "key=value" or null. */
    public String labelSelector() {
        return labelKey == null ? null : labelKey + "=" + labelValue;
    }

    public Presence presence() {
        return presence;
    }

    /** How error messages name the LIST call, e.g. "LIST leases in kube-node-lease". */
    public String listWhat() {
        return listWhat;
    }

    /** The file `collect` writes these objects to. */
    public String dumpFile() {
        return dumpFile;
    }

    /** The note both sources attach when the kind is proven absent; null for kinds that cannot be. */
    public String absentNote() {
        return absentNote;
    }

    /** Offline, when the input holds none of an optional kind: how the "not in the input" note names them. */
    public String notInInputWhat() {
        return notInInputWhat;
    }

    /**
     * Non-null when only these objects' metadata may cross the wire (Secrets): live reads ask the API server for a
     * Table of metadata and the columns named here ({@link MetadataOnly}), never for the objects; what they yield
     * has this row's kind, so `collect` writes and the dump source reads them like any dump of this kind.
     */
    public MetadataOnly metadataOnly() {
        return metadataOnly;
    }

    /** What is kept of an object as it arrives (a Secret loses its data at once). */
    public T trim(T object) {
        return trim.apply(object);
    }

    /**
     * Maps one object, as plain JSON values, into the model: the one mapping every source uses.
     *
     * @throws io.nodegate.source.json.JsonReadException when a field the model reads has the wrong shape (the
     *                                                   message names the field; the caller adds which object)
     */
    public M fromJson(StateAssembler assembler, Map<String, Object> object) {
        return fromJson.apply(assembler, object);
    }

    /** Whether an object of {@code objectKind} from a dump is one of these (kind, namespace and label match). */
    public boolean selects(String objectKind, Map<String, Object> object) {
        if (!kind.equals(objectKind)) {
            return false;
        }
        Map<String, Object> meta = Plain.map(object, "metadata");
        if (meta == null) {
            return false;
        }
        if (namespace != null && !namespace.equals(Plain.string(meta, "namespace"))) {
            return false;
        }
        if (labelKey == null) {
            return true;
        }
        Map<String, Object> labels = Plain.map(meta, "labels");
        return labels != null && labelValue.equals(Plain.text(labels.get(labelKey), "metadata.labels." + labelKey));
    }

    /** Where these objects are, for notes: "default/kubernetes", "kube-node-lease/*", "*". */
    public String scopeText() {
        String ns = namespace == null ? "*" : namespace;
        if (labelKey != null && Objects.equals(labelKey, "kubernetes.io/service-name")) {
            return ns + "/" + labelValue;
        }
        return labelKey != null ? ns + "/*(" + labelSelector() + ")" : namespace == null ? "*" : ns + "/*";
    }

    @Override
    public String toString() {
        return id;
    }
}
