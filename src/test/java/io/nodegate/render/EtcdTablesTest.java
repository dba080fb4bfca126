package io.nodegate.render;

import io.nodegate.render.output.Style;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdMember;
import io.nodegate.model.EtcdStatus;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class EtcdTablesTest {

    static final EtcdMember A = new EtcdMember(0xaaL, "cp-node-a", List.of("https://10.0.0.1:2380"),
            List.of("https://10.0.0.1:2379"), false);
    static final EtcdMember B = new EtcdMember(0xbbL, "cp-node-b", List.of("https://10.0.0.2:2380"),
            List.of("https://10.0.0.2:2379"), true);

    final List<EtcdEndpointReport> reports = List.of(
            new EtcdEndpointReport("https://10.0.0.1:2379", new EtcdStatus(0xc1L, 0xaaL, 0xaaL, 5, 99, "3.5.17",
                    3_500_000, false), 0xc1L, List.of(A, B), null),
            new EtcdEndpointReport("https://10.0.0.2:2379", new EtcdStatus(0xc1L, 0xbbL, 0xaaL, 5, 99, "3.5.17",
                    900, true), 0xc1L, List.of(A, B), null),
            EtcdEndpointReport.failed("https://10.0.0.3:2379", "no answer within 5s"));

    @Test
    void endpointTableShowsHexIdsLeaderAndErrors() {
        String t = EtcdTables.endpointTable(reports, Style.PLAIN);
        List<String> lines = t.lines().toList();
        assertThat(lines).hasSize(4);
        assertThat(lines.get(0)).startsWith("ENDPOINT").contains("CLUSTER ID").endsWith("ERROR");
        assertThat(lines.get(1)).contains("cp-node-a (aa)").contains("c1").contains("self").contains("3.3 MiB");
        assertThat(lines.get(2)).contains("cp-node-b (bb)").contains("cp-node-a (aa)").contains("900 B").contains("yes");
        assertThat(lines.get(3)).contains("https://10.0.0.3:2379").endsWith("no answer within 5s");
        // columns line up: the CLUSTER ID column starts at the same offset on every row
        int col = lines.get(0).indexOf("CLUSTER ID");
        assertThat(lines.get(1).substring(col)).startsWith("c1 ");
        assertThat(lines.get(2).substring(col)).startsWith("c1 ");
    }

    @Test
    void memberTableHasOneRowPerMemberPerAnsweringEndpoint() {
        List<String> lines = EtcdTables.memberTable(reports, Style.PLAIN).lines().toList();
        assertThat(lines).hasSize(5);
        assertThat(lines.get(2)).contains("https://10.0.0.1:2379").contains("bb").contains("cp-node-b").endsWith("yes");
        assertThat(EtcdTables.memberRows(reports)).extracting(EtcdTables.MemberRow::endpoint)
                .doesNotContain("https://10.0.0.3:2379");
    }

    @Test
    void rowsForJsonKeepNumbersAndNullsForTheFailedEndpoint() {
        List<EtcdTables.EndpointRow> rows = EtcdTables.endpointRows(reports);
        assertThat(rows.get(0).dbSize()).isEqualTo(3_500_000L);
        assertThat(rows.get(0).memberId()).isEqualTo("aa");
        assertThat(rows.get(2).clusterId()).isNull();
        assertThat(rows.get(2).error()).isEqualTo("no answer within 5s");
    }

    @Test
    void bytesAreHumanSized() {
        assertThat(EtcdTables.bytes(0)).isEqualTo("0 B");
        assertThat(EtcdTables.bytes(20480)).isEqualTo("20 KiB");
        assertThat(EtcdTables.bytes(1536)).isEqualTo("1.5 KiB");
        assertThat(EtcdTables.bytes(2L * 1024 * 1024 * 1024)).isEqualTo("2.0 GiB");
    }
}
