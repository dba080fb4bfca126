package io.nodegate.source.kube;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.model.jackson.Jackson2JdkTypesModule;
import tools.jackson.databind.json.JsonMapper;

/**
 * fabric8's JSON parsing (same mapper set-up as its default) minus the fields the model never reads, skipped
 * token by token without building objects. On a real Node, managedFields and status.images are most of its
 * JSON; parsing them into maps was most of a live audit's CPU time at 5,000 nodes.
 *
 * <p>Secret data and stringData are skipped too, so with this parsing Secret values never become Java objects.
 *
 * <p>When the model starts reading one of these fields, take it out of here; {@code StateAssembler} is the
 * only reader of what this parses.
 */
final class ModelOnlyParsing {

    private ModelOnlyParsing() {
    }

    static KubernetesSerialization serialization() {
        JsonMapper mapper = JsonMapper.builderWithJackson2Defaults()
                .addModule(new Jackson2JdkTypesModule())
                .addMixIn(ObjectMeta.class, SkipManagedFields.class)
                .addMixIn(NodeStatus.class, SkipImages.class)
                .addMixIn(Secret.class, SkipSecretValues.class)
                .build();
        return new KubernetesSerialization(mapper, true);
    }

    @JsonIgnoreProperties({"managedFields"})
    private abstract static class SkipManagedFields {
    }

    @JsonIgnoreProperties({"images"})
    private abstract static class SkipImages {
    }

    @JsonIgnoreProperties({"data", "stringData"})
    private abstract static class SkipSecretValues {
    }
}
