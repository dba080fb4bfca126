package io.nodegate.source;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.Resource;

import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

/**
 * One row of the table of what nodegate reads ({@link Kinds#ALL}): which objects (type, namespace, label), whether
 * a cluster must have them, how they are trimmed on arrival, where `collect` writes them and how they map into the
 * model. The live source, the dump source, `collect`, the lifecycle reads and the watch's informers all go through
 * these rows, so adding a kind is adding a row.
 *
 * @param <T> the fabric8 type read
 * @param <M> what one object becomes in the model (the fabric8 type itself where the model aggregates later)
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
    private final String namespace;
    private final String labelKey;
    private final String labelValue;
    private final Presence presence;
    private final String listWhat;
    private final String dumpFile;
    private final String absentNote;
    private final String notInInputWhat;
    private final UnaryOperator<T> trim;
    private final BiFunction<StateAssembler, T, M> toModel;

    ReadKind(String id, Class<T> type, String namespace, String labelKey, String labelValue, Presence presence,
             String listWhat, String dumpFile, String absentNote, String notInInputWhat, UnaryOperator<T> trim,
             BiFunction<StateAssembler, T, M> toModel) {
        this.id = id;
        this.type = type;
        this.namespace = namespace;
        this.labelKey = labelKey;
        this.labelValue = labelValue;
        this.presence = presence;
        this.listWhat = listWhat;
        this.dumpFile = dumpFile;
        this.absentNote = absentNote;
        this.notInInputWhat = notInInputWhat;
        this.trim = trim == null ? UnaryOperator.identity() : trim;
        this.toModel = toModel;
    }

    /** Short stable name: the `absent` token in collected.json, the {@code kind} label of the watch's metrics. */
    public String id() {
        return id;
    }

    public Class<T> type() {
        return type;
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

    /** What is kept of an object as it arrives (a Secret loses its data at once). */
    public T trim(T object) {
        return trim.apply(object);
    }

    /** Maps one (trimmed) object into the model. */
    public M toModel(StateAssembler assembler, T object) {
        return toModel.apply(assembler, object);
    }

    /** The client operation that lists and watches exactly these objects (namespace and label applied). */
    public FilterWatchListDeletable<T, KubernetesResourceList<T>, Resource<T>> operation(KubernetesClient client) {
        var all = client.resources(type);
        FilterWatchListDeletable<T, KubernetesResourceList<T>, Resource<T>> op = namespace != null
                ? all.inNamespace(namespace) : allNamespaces() ? all.inAnyNamespace() : all;
        return labelKey == null ? op : op.withLabel(labelKey, labelValue);
    }

    /** Whether an object from a dump is one of these (type, namespace and label match). */
    public boolean selects(HasMetadata object) {
        if (!type.isInstance(object) || object.getMetadata() == null) {
            return false;
        }
        if (namespace != null && !namespace.equals(object.getMetadata().getNamespace())) {
            return false;
        }
        return labelKey == null || (object.getMetadata().getLabels() != null
                && labelValue.equals(object.getMetadata().getLabels().get(labelKey)));
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
