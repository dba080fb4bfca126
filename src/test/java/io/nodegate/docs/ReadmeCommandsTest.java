package io.nodegate.docs;

import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command blocks of README and of every page under docs/, run (as ExampleStoriesTest runs each STORY.md), so
 * the pages cannot drift from the tool. The rule, also written at the top of README and of docs/README.md: a block
 * fenced with {@code ```console} is run. Each line
 * {@code $ nodegate ...} (a trailing backslash continues it) runs the real CLI from the repository root; the lines
 * after it, up to the next {@code $} line, are its output (stdout, then stderr) exactly, trailing spaces aside;
 * {@code $ echo $?} and the line after it check the exit code of the command before. Other blocks are not run.
 */
class ReadmeCommandsTest {

    record Step(String command, List<String> args, String expectedOutput, Integer expectedExit) {
    }

    record Block(int line, List<Step> steps) {
    }

    /** A page whose console blocks run: README.md, then every Markdown file under docs/, in path order. */
    record Page(Path path, List<String> lines) {
    }

    /** The console blocks counted when they all lived in README; a move must not leave any behind unchecked. */
    static final int CONSOLE_BLOCKS_BEFORE_THE_MOVE = 5;

    static final int README_MAX_LINES = 400;

    /** "issue 12", "Issue 21's", "(issues 22, 17)", "issue #3": tracker numbers belong in commit messages. */
    static final Pattern ISSUE_NUMBER = Pattern.compile("(?i)\\bissues?\\s*#?\\d+");

    static List<Page> pages() throws IOException {
        List<Page> pages = new ArrayList<>();
        pages.add(new Page(Path.of("README.md"), readme()));
        for (Path doc : docs()) {
            pages.add(new Page(doc, Files.readAllLines(doc)));
        }
        return pages;
    }

    static List<Path> docs() throws IOException {
        try (Stream<Path> walk = Files.walk(Path.of("docs"))) {
            return walk.filter(p -> p.toString().endsWith(".md")).sorted().toList();
        }
    }

    static List<Block> consoleBlocks(List<String> lines) {
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).trim().equals("```console")) {
                continue;
            }
            int start = i + 1;
            List<String> body = new ArrayList<>();
            for (i = start; i < lines.size() && !lines.get(i).trim().equals("```"); i++) {
                body.add(lines.get(i));
            }
            blocks.add(new Block(start, steps(body, start)));
        }
        return blocks;
    }

    private static List<Step> steps(List<String> body, int firstLine) {
        List<Step> steps = new ArrayList<>();
        int i = 0;
        while (i < body.size()) {
            String line = body.get(i);
            if (!line.startsWith("$ ")) {
                throw new AssertionError("line " + (firstLine + i + 1) + ": output before any '$ ' command");
            }
            StringBuilder command = new StringBuilder(line.substring(2));
            while (command.toString().endsWith("\\")) {
                command.setLength(command.length() - 1);
                command.append(' ').append(body.get(++i).trim());
            }
            i++;
            List<String> output = new ArrayList<>();
            while (i < body.size() && !body.get(i).startsWith("$ ")) {
                output.add(body.get(i++));
            }
            String text = command.toString().trim();
            if (text.equals("echo $?")) {
                assertThat(steps).as("line " + (firstLine + i) + ": 'echo $?' after no command").isNotEmpty();
                Step last = steps.remove(steps.size() - 1);
                steps.add(new Step(last.command(), last.args(), last.expectedOutput(),
                        Integer.parseInt(String.join("", output).trim())));
                continue;
            }
            List<String> words = words(text);
            if (words.isEmpty() || !words.get(0).equals("nodegate")) {
                throw new AssertionError("line " + (firstLine + i) + ": only 'nodegate' and 'echo $?' run in a "
                        + "console block, not: " + text);
            }
            steps.add(new Step(text, words.subList(1, words.size()), String.join("\n", output), null));
        }
        return steps;
    }

    /** Shell words: whitespace-separated, with '...' and "..." quoting. */
    static List<String> words(String text) {
        List<String> out = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (char c : text.toCharArray()) {
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    w.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    out.add(w.toString());
                    w.setLength(0);
                    inWord = false;
                }
            } else {
                w.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            out.add(w.toString());
        }
        return out;
    }

    private static String normalise(String text) {
        return text.lines().map(String::stripTrailing).reduce((a, b) -> a + "\n" + b).orElse("").strip();
    }

    static List<String> readme() throws IOException {
        return Files.readAllLines(Path.of("README.md"));
    }

    @Test
    void readmeAndDocsHaveConsoleBlocksAndSayHowTheyAreChecked() throws IOException {
        List<String> lines = readme();
        assertThat(String.join("\n", lines.subList(0, 40))).contains("```console").contains("ReadmeCommandsTest")
                .contains("docs/");
        assertThat(String.join("\n", Files.readAllLines(Path.of("docs/README.md"))))
                .contains("```console").contains("ReadmeCommandsTest");
        int blocks = 0;
        for (Page page : pages()) {
            blocks += consoleBlocks(page.lines()).size();
        }
        assertThat(blocks).as("console blocks run across README and docs/").isGreaterThanOrEqualTo(
                CONSOLE_BLOCKS_BEFORE_THE_MOVE);
    }

    @Test
    void readmeFitsOnAFewScreens() throws IOException {
        assertThat(readme()).as("README.md lines").hasSizeLessThanOrEqualTo(README_MAX_LINES);
    }

    @Test
    void noHeadingOrSentenceCarriesAnIssueNumber() throws IOException {
        List<String> hits = new ArrayList<>();
        for (Page page : pages()) {
            for (int i = 0; i < page.lines().size(); i++) {
                if (ISSUE_NUMBER.matcher(page.lines().get(i)).find()) {
                    hits.add(page.path() + ":" + (i + 1) + ": " + page.lines().get(i).strip());
                }
            }
        }
        assertThat(hits).as("lines naming an issue number").isEmpty();
    }

    @Test
    void theIssueNumberRuleCatchesTheShapesSeenBefore() {
        assertThat(List.of("### Hardening (issue 11)", "### Lying answers and honest lines (issues 22, 17)",
                "bench/RESULTS.md, issue 21's second pass", "see Issue 21: the watch", "fixed in issue #3"))
                .allSatisfy(line -> assertThat(ISSUE_NUMBER.matcher(line).find()).as(line).isTrue());
        assertThat(List.of("the issuer and SANs", "an issue with the BMC", "issued at 05:23", "tissue 4"))
                .allSatisfy(line -> assertThat(ISSUE_NUMBER.matcher(line).find()).as(line).isFalse());
    }

    @Test
    void theDocsIndexListsEveryDoc() throws IOException {
        Path index = Path.of("docs/README.md");
        String text = Files.readString(index);
        List<String> links = new ArrayList<>();
        Matcher m = Pattern.compile("\\]\\(([^)#\\s]+)").matcher(text);
        while (m.find()) {
            links.add(index.getParent().resolve(m.group(1)).normalize().toString());
        }
        List<String> docs = docs().stream().filter(p -> !p.equals(index)).map(Path::toString).toList();
        assertThat(links).as("pages docs/README.md links").containsAll(docs);
        assertThat(readme()).as("README links the docs index").anySatisfy(line ->
                assertThat(line).contains("(docs/README.md)"));
    }

    @TestFactory
    Stream<DynamicTest> everyConsoleBlockRunsAsShown() throws IOException {
        return pages().stream().flatMap(page -> consoleBlocks(page.lines()).stream().flatMap(b -> b.steps().stream()
                .map(s -> DynamicTest.dynamicTest(page.path() + " line " + b.line() + ": " + s.command(), () -> {
                    CliRun run = CliRun.run(s.args().toArray(String[]::new));
                    assertThat(normalise(run.out() + run.err())).as(s.command()).isEqualTo(normalise(s.expectedOutput()));
                    if (s.expectedExit() != null) {
                        assertThat(run.exitCode()).as(s.command() + ": exit code").isEqualTo(s.expectedExit());
                    }
                }))));
    }

    @Test
    void theParserReadsContinuationsQuotesAndExitCodes() {
        List<Block> blocks = consoleBlocks(List.of("```console", "$ nodegate views -f 'a b' \\", "    -f c",
                "OUT", "$ echo $?", "1", "```"));
        assertThat(blocks).singleElement().satisfies(b -> assertThat(b.steps()).singleElement().satisfies(s -> {
            assertThat(s.args()).containsExactly("views", "-f", "a b", "-f", "c");
            assertThat(s.expectedOutput()).isEqualTo("OUT");
            assertThat(s.expectedExit()).isEqualTo(1);
        }));
    }
}
