package io.nodegate.render;

import io.nodegate.handover.HandoverHtmlTestAccess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hand-over page as a person sees it: laid out by a real browser (headless Chromium, Debian's package, installed
 * by bin/test) at the width of an A4 page, and measured there: no two labels of a timeline overlap, every marker and
 * label lies inside its own drawing, and nothing is wider than the page. A screenshot is left in target/ to look at.
 *
 * <p>The browser measures through a script added to a copy of the page (the page itself carries none): it writes what
 * it measured into an attribute of the body, and {@code --dump-dom} prints the document after the script ran.
 */
class HandoverPageLayoutTest {

    /** 210 mm at 96 dpi: the width of an A4 page. */
    private static final int A4_WIDTH = 794;

    private static final String MEASURE = """
            <script>
            (function () {
              var problems = [];
              var svgs = document.querySelectorAll('svg');
              svgs.forEach(function (svg, i) {
                var box = svg.getBoundingClientRect();
                var texts = Array.prototype.slice.call(svg.querySelectorAll('text'));
                var shapes = texts.concat(Array.prototype.slice.call(svg.querySelectorAll('circle')));
                shapes.forEach(function (t) {
                  var b = t.getBoundingClientRect();
                  if (b.left < box.left - 0.5 || b.right > box.right + 0.5 || b.top < box.top - 0.5
                      || b.bottom > box.bottom + 0.5) {
                    problems.push('svg ' + i + ': "' + (t.textContent || t.tagName) + '" outside its drawing');
                  }
                });
                for (var a = 0; a < texts.length; a++) {
                  for (var c = a + 1; c < texts.length; c++) {
                    var p = texts[a].getBoundingClientRect(), q = texts[c].getBoundingClientRect();
                    if (p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom) {
                      problems.push('svg ' + i + ': "' + texts[a].textContent + '" overlaps "' + texts[c].textContent + '"');
                    }
                  }
                }
              });
              var width = document.documentElement.scrollWidth;
              document.body.setAttribute('data-layout', JSON.stringify({
                svgs: svgs.length, problems: problems, scrollWidth: width, viewport: window.innerWidth}));
            })();
            </script>
            """;

    @Test
    void theRichPageLaysOutWithoutOverlapsAtA4Width(@TempDir Path dir) throws Exception {
        Path chromium = chromium();
        String page = HandoverHtml.render(HandoverHtmlTestAccess.richRecord(), Instant.parse("2026-10-28T00:00:00Z"));
        Path measured = dir.resolve("measured.html");
        Files.writeString(measured, page.replace("</body>", MEASURE + "</body>"), StandardCharsets.UTF_8);

        String dom = run(chromium, dir, "--window-size=" + A4_WIDTH + ",1123", "--dump-dom", measured.toUri().toString());
        Matcher m = Pattern.compile("data-layout=\"([^\"]*)\"").matcher(dom);
        assertThat(m.find()).as("the browser ran the measuring script:\n" + dom).isTrue();
        JsonNode layout = JsonMapper.builder().build().readTree(m.group(1).replace("&quot;", "\"").replace("&amp;", "&")
                .replace("&lt;", "<").replace("&gt;", ">"));
        assertThat(layout.get("svgs").asInt()).as("one timeline per target and one for the hand-over").isEqualTo(2);
        List<String> problems = new ArrayList<>();
        layout.get("problems").forEach(p -> problems.add(p.asString()));
        assertThat(problems).isEmpty();
        assertThat(layout.get("scrollWidth").asInt()).as("nothing wider than an A4 page")
                .isLessThanOrEqualTo(layout.get("viewport").asInt());

        // for people: what the page looks like at A4 width (target/ is Maven's; the test reads nothing back from it)
        Path page0 = dir.resolve("page.html");
        Files.writeString(page0, page, StandardCharsets.UTF_8);
        Path shot = Path.of("target", "handover-page.png").toAbsolutePath();
        Files.createDirectories(shot.getParent());
        run(chromium, dir, "--window-size=" + A4_WIDTH + ",1600", "--screenshot=" + shot, page0.toUri().toString());
        assertThat(shot).exists();
    }

    /** The measuring itself is shown to find what it looks for: two labels on one spot, one outside its drawing. */
    @Test
    void theMeasuringFindsOverlapsAndLabelsOutsideTheirDrawing(@TempDir Path dir) throws Exception {
        Path chromium = chromium();
        Path bad = dir.resolve("bad.html");
        Files.writeString(bad, "<html><body><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"40\">"
                + "<text x=\"10\" y=\"20\">first label</text><text x=\"14\" y=\"22\">second label</text>"
                + "<text x=\"190\" y=\"20\">past the edge</text></svg>" + MEASURE + "</body></html>");
        String dom = run(chromium, dir, "--window-size=" + A4_WIDTH + ",400", "--dump-dom", bad.toUri().toString());
        Matcher m = Pattern.compile("data-layout=\"([^\"]*)\"").matcher(dom);
        assertThat(m.find()).isTrue();
        JsonNode layout = JsonMapper.builder().build().readTree(m.group(1).replace("&quot;", "\"").replace("&amp;", "&"));
        List<String> found = new ArrayList<>();
        layout.get("problems").forEach(p -> found.add(p.asString()));
        assertThat(found).containsExactlyInAnyOrder("svg 0: \"first label\" overlaps \"second label\"",
                "svg 0: \"past the edge\" outside its drawing");
    }

    /** Debian's chromium; under CI it must be there (bin/test installs it), elsewhere the test skips saying why. */
    static Path chromium() {
        Path p = Path.of("/usr/bin/chromium");
        if (!Files.isExecutable(p)) {
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError("chromium is missing: bin/test installs Debian's chromium; CI needs it");
            }
            Assumptions.abort("chromium not installed (bin/test installs Debian's chromium)");
        }
        return p;
    }

    /** One headless run with the flags a closed network needs; its standard output, or a failure naming why. */
    static String run(Path chromium, Path dir, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(chromium.toString(), "--headless", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                "--user-data-dir=" + dir.resolve("profile")));
        command.addAll(List.of(args));
        Path out = dir.resolve("chromium.out");
        Path err = dir.resolve("chromium.err");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        // a budget for a loaded 2-core machine; a headless page render takes a few seconds
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish within 120 s: " + Files.readString(err));
        }
        assertThat(p.exitValue()).as("chromium: " + Files.readString(err)).isZero();
        return Files.readString(out);
    }
}
