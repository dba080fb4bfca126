package io.nodegate.watch.informer;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** KEP-5504's comparison: decimal, no leading zeros, by length then digits; anything else is not comparable. */
class ResourceVersionsTest {

    @Test
    void decimalVersionsCompareAsNumbersOfAnyLength() {
        assertThat(ResourceVersions.compare("9", "10")).isNegative();
        assertThat(ResourceVersions.compare("123456789012345678901234567890", "123456789012345678901234567889"))
                .isPositive();
        assertThat(ResourceVersions.compare("42", "42")).isZero();
        assertThat(ResourceVersions.atLeast("100", "99")).isTrue();
        assertThat(ResourceVersions.atLeast("99", "100")).isFalse();
    }

    @Test
    void anOpaqueVersionGivesNoOrder() {
        for (String opaque : new String[] {null, "", "007", "abc", "12a", "-3", "1.5"}) {
            assertThat(ResourceVersions.compare(opaque, "5")).as(opaque).isEqualTo(ResourceVersions.NOT_COMPARABLE);
            assertThat(ResourceVersions.atLeast(opaque, "5")).as(opaque).isFalse();
            assertThat(ResourceVersions.atLeast("5", opaque)).as(opaque).isFalse();
        }
        assertThat(ResourceVersions.compare("0", "1")).isNegative();
    }
}
