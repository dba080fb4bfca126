package io.nodegate.time;

import io.nodegate.InputException;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationsTest {

    @Test
    void printsTheTwoLargestUnitsAsKubectlAgesDo() {
        assertThat(Durations.format(Duration.ofSeconds(52))).isEqualTo("52s");
        assertThat(Durations.format(Duration.ofSeconds(45))).isEqualTo("45s");
        assertThat(Durations.format(Duration.ofSeconds(0))).isEqualTo("0s");
        assertThat(Durations.format(Duration.ofSeconds(302))).isEqualTo("5m2s");
        assertThat(Durations.format(Duration.ofMinutes(5))).isEqualTo("5m");
        assertThat(Durations.format(Duration.ofMinutes(130))).isEqualTo("2h10m");
        assertThat(Durations.format(Duration.ofHours(76).plusMinutes(59))).isEqualTo("3d4h");
        assertThat(Durations.format(Duration.ofDays(18))).isEqualTo("18d");
        assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1.5s");
        assertThat(Durations.format(Duration.ofMillis(200))).isEqualTo("200ms");
        assertThat(Durations.format(Duration.ofMillis(6223))).isEqualTo("6s");
    }

    @Test
    void negativeAndMissing() {
        assertThat(Durations.format(Duration.ofSeconds(-3))).isEqualTo("-3s");
        assertThat(Durations.format(null)).isEqualTo("-");
    }

    @Test
    void parsesGoAndKubectlSyntax() {
        assertThat(Durations.parse("1500ms", "--x")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Durations.parse("30s", "--x")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("5m", "--x")).isEqualTo(Duration.ofMinutes(5));
        assertThat(Durations.parse("1h30m", "--x")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Durations.parse("1.5h", "--x")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Durations.parse("3d", "--x")).isEqualTo(Duration.ofDays(3));
        assertThat(Durations.parse("2m30s500ms", "--x")).isEqualTo(Duration.ofMillis(150_500));
        assertThat(Durations.parse("0", "--x")).isZero();
    }

    /** client-go's ParseTimeout reads kubectl's --request-timeout 5 as 5 s; here every duration flag does. */
    @Test
    void aBareWholeNumberIsSeconds() {
        assertThat(Durations.parse("5", "--request-timeout")).isEqualTo(Duration.ofSeconds(5));
        assertThat(Durations.parse("90", "--x")).isEqualTo(Duration.ofSeconds(90));
        assertThat(Durations.parse(" 600 ", "--x")).isEqualTo(Duration.ofMinutes(10));
        assertThatThrownBy(() -> Durations.parsePositive("0", "--timeout")).hasMessageContaining("longer than zero");
    }

    @Test
    void formatThenParseGivesTheSameDuration() {
        for (Duration d : new Duration[]{Duration.ofSeconds(45), Duration.ofMinutes(90), Duration.ofDays(3),
                Duration.ofMillis(1500), Duration.ofMillis(200)}) {
            assertThat(Durations.parse(Durations.format(d), "--x")).isEqualTo(d);
        }
    }

    @Test
    void refusesWhatItWouldHaveToGuessNamingTheFlag() {
        assertThatThrownBy(() -> Durations.parse("1.5", "--etcd-timeout"))
                .isInstanceOf(InputException.class).hasMessageContaining("--etcd-timeout '1.5'")
                .hasMessageContaining("a fraction needs a unit");
        assertThatThrownBy(() -> Durations.parse("99999999999999999999", "--x")).hasMessageContaining("too large");
        assertThatThrownBy(() -> Durations.parse("5us", "--x")).hasMessageContaining("not a duration");
        assertThatThrownBy(() -> Durations.parse("PT10S", "--timeout")).hasMessageContaining("ISO-8601");
        assertThatThrownBy(() -> Durations.parse("-5s", "--x")).hasMessageContaining("negative");
        assertThatThrownBy(() -> Durations.parse("", "--x")).hasMessageContaining("not a duration");
        assertThatThrownBy(() -> Durations.parse("5 m", "--x")).hasMessageContaining("not a duration");
        assertThatThrownBy(() -> Durations.parse("99999999999999999d", "--x")).hasMessageContaining("too large");
        assertThatThrownBy(() -> Durations.parsePositive("0s", "--timeout")).hasMessageContaining("longer than zero");
    }
}
