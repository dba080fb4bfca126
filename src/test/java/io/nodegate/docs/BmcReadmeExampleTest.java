package io.nodegate.docs;

import io.nodegate.testing.BmcStory;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.RedfishTestServer;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/bmc.md's first example is a real run: `nodegate bmc` on examples/cluster-a-batch-stop against the batch's
 * four BMCs (the project's Redfish test server, over HTTPS). The page shows them as https://10.0.30.7 ... .10; here they
 * listen on loopback ports, so the test maps the URLs and compares with runs of spaces collapsed (column widths follow
 * the URLs' lengths). The block is fenced as plain ``` (console blocks run without servers).
 */
class BmcReadmeExampleTest {

    static final String COMMAND = "$ nodegate bmc -f examples/cluster-a-batch-stop";

    @TempDir
    Path dir;

    @Test
    void theReadmeExampleIsWhatTheCommandPrints() throws Exception {
        List<String> readme = Files.readAllLines(Path.of("docs/bmc.md"));
        int start = -1;
        for (int i = 0; i < readme.size(); i++) {
            if (readme.get(i).startsWith(COMMAND)) {
                start = i;
                break;
            }
        }
        assertThat(start).as("docs/bmc.md has the example starting with: " + COMMAND).isNotNegative();
        StringBuilder command = new StringBuilder(readme.get(start).substring(2));
        int i = start;
        while (command.toString().endsWith("\\")) {
            command.setLength(command.length() - 1);
            command.append(' ').append(readme.get(++i).trim());
        }
        List<String> expected = new ArrayList<>();
        for (i++; i < readme.size() && !readme.get(i).startsWith("```"); i++) {
            expected.add(readme.get(i));
        }

        try (BmcStory story = BmcStory.start(TestCerts.create(dir), dir)) {
            Map<String, String> urls = new LinkedHashMap<>();
            List<RedfishTestServer> bmcs = story.all();
            for (int b = 0; b < bmcs.size(); b++) {
                urls.put("https://10.0.30." + (7 + b), bmcs.get(b).url());
            }
            List<String> args = new ArrayList<>();
            for (String word : command.toString().trim().split("\\s+")) {
                args.add(urls.getOrDefault(word, word.equals("bmc-rack-a.yaml") ? story.credentials.toString()
                        : word.equals("bmc-ca.pem") ? story.ca.toString() : word));
            }
            assertThat(args.remove(0)).isEqualTo("nodegate");
            CliRun run = CliRun.run(args.toArray(String[]::new));
            assertThat(run.exitCode()).as(run.all()).isZero();
            String actual = run.out();
            for (Map.Entry<String, String> e : urls.entrySet()) {
                actual = actual.replace(e.getValue(), e.getKey());
            }
            assertThat(collapse(actual)).as("docs/bmc.md's example, as the command prints it:\n" + actual)
                    .isEqualTo(collapse(String.join("\n", expected)));
        }
    }

    private static String collapse(String text) {
        return text.strip().replaceAll(" {2,}", " ").replaceAll("(?m) +$", "");
    }
}
