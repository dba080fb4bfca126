package io.nodegate.model;

import java.util.List;

/** Addresses of kube-apiservers as published in the default/kubernetes EndpointSlice(s). */
public record ApiEndpoints(List<String> addresses, Integer port) {
    public static final ApiEndpoints NONE = new ApiEndpoints(List.of(), null);

    public ApiEndpoints {
        addresses = addresses == null ? List.of() : List.copyOf(addresses);
    }
}
