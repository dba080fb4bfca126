package io.nodegate.render.output;

/**
 * Kubernetes objects to hand to kubectl: -o yaml prints them as separate YAML documents (what {@code kubectl apply -f}
 * takes, each object as its own serializer writes it), rather than one YAML tree of the JSON shape.
 */
public interface DocumentsReport extends TreeReport {

    String yamlDocuments();
}
