package io.nodegate.model;

public record PodInfo(String namespace, String name, String uid, String nodeName, String phase,
                      String ownerKind, String lastTerminationMessage) {
}
