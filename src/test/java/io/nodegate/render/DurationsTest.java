package io.nodegate.render;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class DurationsTest {

    @Test
    void twoLargestUnits() {
        assertThat(Durations.human(Duration.ofSeconds(52))).isEqualTo("52s");
        assertThat(Durations.human(Duration.ofSeconds(0))).isEqualTo("0s");
        assertThat(Durations.human(Duration.ofSeconds(302))).isEqualTo("5m2s");
        assertThat(Durations.human(Duration.ofMinutes(5))).isEqualTo("5m");
        assertThat(Durations.human(Duration.ofMinutes(130))).isEqualTo("2h10m");
        assertThat(Durations.human(Duration.ofHours(76).plusMinutes(59))).isEqualTo("3d4h");
        assertThat(Durations.human(Duration.ofDays(18))).isEqualTo("18d");
    }

    @Test
    void negativeAndMissing() {
        assertThat(Durations.human(Duration.ofSeconds(-3))).isEqualTo("-3s");
        assertThat(Durations.human(null)).isEqualTo("-");
    }
}
