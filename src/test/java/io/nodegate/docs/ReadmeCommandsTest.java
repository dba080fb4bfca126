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
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * README's own command blocks, run (as ExampleStoriesTest runs each STORY.md), so the README cannot drift from the
 * tool. The rule, also written at the top of README: a block fenced with {@code ```console} is run. Each line
 * {@code $ nodegate ...} (a trailing backslash continues it) runs the real CLI from the repository root; the lines
 * after it, up to the next {@code $} line, are its output (stdout, then stderr) exactly, trailing spaces aside;
 * {@code $ echo $?} and the line after it check the exit code of the command before. Other blocks are not run.
 */
class ReadmeCommandsTest {

    record Step(String command, List<String> args, String expectedOutput, Integer expectedExit) {
    }

    record Block(int line, List<Step> steps) {
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
                throw new AssertionError("README line " + (firstLine + i + 1) + ": output before any '$ ' command");
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
                assertThat(steps).as("README line " + (firstLine + i) + ": 'echo $?' after no command").isNotEmpty();
                Step last = steps.remove(steps.size() - 1);
                steps.add(new Step(last.command(), last.args(), last.expectedOutput(),
                        Integer.parseInt(String.join("", output).trim())));
                continue;
            }
            List<String> words = words(text);
            if (words.isEmpty() || !words.get(0).equals("nodegate")) {
                throw new AssertionError("README line " + (firstLine + i) + ": only 'nodegate' and 'echo $?' run in a "
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
    void readmeHasConsoleBlocksAndSaysHowTheyAreChecked() throws IOException {
        List<String> lines = readme();
        assertThat(consoleBlocks(lines)).hasSizeGreaterThanOrEqualTo(3);
        assertThat(String.join("\n", lines.subList(0, 40))).contains("```console").contains("ReadmeCommandsTest");
    }

    @TestFactory
    Stream<DynamicTest> everyConsoleBlockRunsAsShown() throws IOException {
        return consoleBlocks(readme()).stream().flatMap(b -> b.steps().stream().map(s ->
                DynamicTest.dynamicTest("README line " + b.line() + ": " + s.command(), () -> {
                    CliRun run = CliRun.run(s.args().toArray(String[]::new));
                    assertThat(normalise(run.out() + run.err())).as(s.command()).isEqualTo(normalise(s.expectedOutput()));
                    if (s.expectedExit() != null) {
                        assertThat(run.exitCode()).as(s.command() + ": exit code").isEqualTo(s.expectedExit());
                    }
                })));
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
