package io.nodegate.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A walk as a page shows it: the first plain ``` block under a heading, read line by line, so that a test can run it
 * in order exactly as written. The page's rule: every command exits 0 unless a comment line under it reads
 * {@code #   -> ... (exit N)}; a comment {@code # N ...} starts step N of a procedure (a test plays what happens in
 * the world between steps there); a trailing {@code \} continues a line; {@code # ...} after a command is a remark.
 */
public record DocWalk(Path page, List<Item> items) {

    /** One line of the walk: a step marker (step set, words empty) or a command (words, its expected exit). */
    public record Item(int line, String text, Integer step, List<List<String>> pipeline, String joiner, int expectedExit) {

        public boolean isCommand() {
            return step == null;
        }

        public Item withExit(int exit) {
            return new Item(line, text, step, pipeline, joiner, exit);
        }
    }

    private static final Pattern EXIT = Pattern.compile("^#\\s+->.*?\\(exit (\\d)\\)");
    private static final Pattern STEP = Pattern.compile("^# (\\d) ");

    public static DocWalk read(Path page, String heading) throws IOException {
        List<String> lines = Files.readAllLines(page);
        int h = lines.indexOf(heading);
        if (h < 0) {
            throw new AssertionError(page + " has no heading: " + heading);
        }
        int open = h + 1;
        while (open < lines.size() && !lines.get(open).equals("```")) {
            if (lines.get(open).startsWith("#")) {
                throw new AssertionError(page + ": no plain ``` block under " + heading + " before the next heading");
            }
            open++;
        }
        List<Item> items = new ArrayList<>();
        for (int i = open + 1; i < lines.size() && !lines.get(i).equals("```"); i++) {
            int first = i;
            StringBuilder text = new StringBuilder(lines.get(i));
            while (text.toString().endsWith("\\")) {
                text.setLength(text.length() - 1);
                text.append(' ').append(lines.get(++i).trim());
            }
            String t = text.toString().trim();
            if (t.isEmpty()) {
                continue;
            }
            if (t.startsWith("#")) {
                Matcher exit = EXIT.matcher(t);
                Matcher step = STEP.matcher(t);
                if (exit.find() && !items.isEmpty() && items.get(items.size() - 1).isCommand()) {
                    items.set(items.size() - 1, items.get(items.size() - 1).withExit(Integer.parseInt(exit.group(1))));
                } else if (step.find()) {
                    items.add(new Item(first + 1, t, Integer.parseInt(step.group(1)), List.of(), null, 0));
                }
                continue;
            }
            List<String> words = words(t);
            List<List<String>> pipeline = new ArrayList<>();
            String joiner = null;
            List<String> current = new ArrayList<>();
            for (String w : words) {
                if (w.equals("|") || w.equals("&&")) {
                    if (joiner != null && !joiner.equals(w)) {
                        throw new AssertionError(page + " line " + (first + 1) + ": mixes | and &&: " + t);
                    }
                    joiner = w;
                    pipeline.add(current);
                    current = new ArrayList<>();
                } else {
                    current.add(w);
                }
            }
            pipeline.add(current);
            items.add(new Item(first + 1, t, null, pipeline, joiner, 0));
        }
        return new DocWalk(page, items);
    }

    /** Shell words ('...' and "..." quoting); an unquoted # after whitespace starts a remark. */
    public static List<String> words(String text) {
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
            } else if (c == '#' && !inWord) {
                break;
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
        if (quote != 0) {
            throw new AssertionError("unclosed quote in: " + text);
        }
        if (inWord) {
            out.add(w.toString());
        }
        return out;
    }
}
