package io.nodegate.source.bmc;

import io.nodegate.model.bmc.PowerEvent;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Entry shapes no capture in ../shared/field/redfish holds (those are covered by RedfishFieldCapturesTest): the DMTF
 * ResourceEvent registry's power messages, an event about another system, and a failed attempt.
 */
class PowerEventsTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static JsonNode entry(String json) {
        return JSON.readTree(json);
    }

    @Test
    void dmtfResourcePoweredOffAndOnByMessageId() {
        // DMTF ResourceEvent 1.4.2: ResourcePoweredOff "The resource '%1' has powered off." (one argument, the resource)
        assertThat(PowerEvents.kind(entry("""
                {"Created": "2026-10-22T05:23:58Z", "MessageId": "ResourceEvent.1.4.2.ResourcePoweredOff",
                 "MessageArgs": ["System_0"], "Message": "The resource 'System_0' has powered off."}"""),
                "/redfish/v1/Systems/System_0")).isEqualTo(PowerEvent.Kind.OFF);
        assertThat(PowerEvents.kind(entry("""
                {"MessageId": "ResourceEvent.1.4.2.ResourcePoweredOn", "MessageArgs": ["System_0"]}"""),
                "/redfish/v1/Systems/System_0")).isEqualTo(PowerEvent.Kind.ON);
        // powering off is on the way, not there
        assertThat(PowerEvents.kind(entry("""
                {"MessageId": "ResourceEvent.1.4.2.ResourcePoweringOff", "MessageArgs": ["System_0"],
                 "Message": "The resource 'System_0' is powering off."}"""), "/redfish/v1/Systems/System_0")).isNull();
    }

    @Test
    void anEventWhoseOriginIsAnotherSystemIsThatSystems() {
        JsonNode e = entry("""
                {"MessageId": "ResourceEvent.1.4.2.ResourcePoweredOff", "MessageArgs": ["Node1"],
                 "Links": {"OriginOfCondition": {"@odata.id": "/redfish/v1/Systems/Node1"}}}""");
        assertThat(PowerEvents.kind(e, "/redfish/v1/Systems/Node0")).isNull();
        assertThat(PowerEvents.kind(e, "/redfish/v1/Systems/Node1/")).isEqualTo(PowerEvent.Kind.OFF);
    }

    @Test
    void aFailedPowerOffAndAnIloMessageIdFromAnotherRegistryAreNoEvents() {
        assertThat(PowerEvents.kind(entry("""
                {"Message": "SHDN_FORCE_L-O: RUN_POWER_PG-I failed to deassert after 40 seconds.  Power Off Host Failed."}
                """), null)).isNull();
        assertThat(PowerEvents.kind(entry("""
                {"MessageId": "Acme.1.0.ServerPoweredOff"}"""), null)).isNull();
        assertThat(PowerEvents.kind(entry("""
                {"MessageId": "iLOEvents.2.1.ServerPoweredOff", "Message": null}"""), null))
                .isEqualTo(PowerEvent.Kind.OFF);
        assertThat(PowerEvents.kind(entry("""
                {"Message": "Soft shutdown timer expired for sensor X at value 41.8. Performing soft shutdown."}"""),
                null)).as("a soft shutdown asks the host OS: not a power-off by itself").isNull();
    }
}
