package io.nodegate.deploy;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/watch-access.md lists exactly the requests {@link WatchAccess} grants the watch (install's ClusterRole and
 * Roles are built from it), and its rows parse back into the same requests: the real-tier test reads the page.
 * After changing WatchAccess: {@code NODEGATE_WRITE_DOCS=1 mvn -q -o test -Dtest=WatchAccessDocTest}.
 */
class WatchAccessDocTest {

    @Test
    void thePageHoldsTheTableRenderedFromWatchAccess() throws IOException {
        String expected = WatchAccessDoc.render();
        if ("1".equals(System.getenv("NODEGATE_WRITE_DOCS"))) {
            String page = WatchAccessDoc.read();
            int begin = page.indexOf(WatchAccessDoc.BEGIN) + WatchAccessDoc.BEGIN.length();
            int end = page.indexOf(WatchAccessDoc.END);
            Files.writeString(WatchAccessDoc.PAGE, page.substring(0, begin) + "\n" + expected + page.substring(end));
        }
        assertThat(WatchAccessDoc.committedTable())
                .as("docs/watch-access.md (regenerate: NODEGATE_WRITE_DOCS=1 mvn -q -o test -Dtest=WatchAccessDocTest)")
                .isEqualTo(expected);
    }

    @Test
    void theRowsParseBackIntoTheRequests() {
        var requests = WatchAccess.requests(WatchAccessDoc.NAMESPACE, true, true);
        var rows = WatchAccessDoc.rows();
        assertThat(rows).hasSize(requests.size());
        for (int i = 0; i < rows.size(); i++) {
            var r = requests.get(i);
            assertThat(rows.get(i)).isEqualTo(new WatchAccessDoc.Row(r.namespace(), r.apiGroup(), r.resource(),
                    r.resourceNames(), r.verbs(), rows.get(i).onlyWith()));
            assertThat(rows.get(i).onlyWith().equals(WatchAccessDoc.RANCHER)).isEqualTo(r.rancherOnly());
        }
    }
}
