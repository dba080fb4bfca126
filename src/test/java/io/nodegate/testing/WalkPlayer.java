package io.nodegate.testing;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs a {@link DocWalk} on the seeded cluster of a {@link SeededClusterTest}, line by line, asserting each
 * command's exit code as the page shows it. The words are the page's; what a test machine must map is mapped here,
 * and only this:
 * <ul>
 *   <li>times: the page tells seed 000 at its own dates (D+19 14:00 KST = 2026-10-26 14:00 Asia/Seoul is the
 *   baseline); the seeded cluster puts that moment at the real now (the test server stamps creation times with the
 *   real clock), so every "YYYY-MM-DD HH:MM" after --removed-at moves by the same amount, still read in --tz;</li>
 *   <li>a --due that is not ahead of today moves a month ahead (open refuses a due date in the past);</li>
 *   <li>the page's Alertmanager URLs become the replicas' loopback URLs, in order of first appearance;</li>
 *   <li>the page's relative files (base.json, a-to-b.html, host reports) live in the test's directory;</li>
 *   <li>baseline save gets --evidence-dir, as $XDG_STATE_HOME would give it, and commands that read another cluster
 *   by context get --kubeconfig, as $KUBECONFIG would;</li>
 *   <li>{@code kubectl cordon/drain} and {@code | kubectl apply -f -} are played on the test server.</li>
 * </ul>
 * Any other line the player does not know fails the test: a walk that grows a command grows this list.
 */
public final class WalkPlayer {

    public static final LocalDateTime STORY_BASELINE = LocalDateTime.parse("2026-10-26T14:00:00");
    public static final ZoneId KST = ZoneId.of("Asia/Seoul");
    private static final Pattern STORY_TIME = Pattern.compile("^(?:([a-z0-9.-]+)=)?(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d)$");
    private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private final SeededClusterTest test;
    private final Path dir;
    public Path kubeconfig;
    public List<String> alertmanagers = List.of();
    public final Map<String, String> files = new LinkedHashMap<>();
    private final Map<String, String> alertmanagerUrls = new LinkedHashMap<>();
    public Runnable onApply = () -> {
        throw new AssertionError("the walk applies manifests, and this test plays no apply");
    };
    public IntConsumer onStep = step -> {
    };
    /** What the world does before a command line that starts with the key (the page says it in a comment there). */
    public final Map<String, Runnable> beforeCommand = new LinkedHashMap<>();
    /** Commands run so far, each with its line and exit code, for the failure message. */
    private final List<String> transcript = new ArrayList<>();

    public WalkPlayer(SeededClusterTest test, Path dir) {
        this.test = test;
        this.dir = dir;
    }

    public void run(DocWalk walk) {
        assertThat(walk.items()).as("commands in the walk").anyMatch(DocWalk.Item::isCommand);
        for (DocWalk.Item item : walk.items()) {
            if (!item.isCommand()) {
                onStep.accept(item.step());
                continue;
            }
            beforeCommand.forEach((prefix, action) -> {
                if (item.text().startsWith(prefix)) {
                    action.run();
                }
            });
            List<List<String>> pipeline = item.pipeline();
            String where = walk.page() + " line " + item.line() + ": " + item.text();
            if ("|".equals(item.joiner()) && pipeline.size() == 2
                    && pipeline.get(1).equals(List.of("kubectl", "apply", "-f", "-"))) {
                runNodegate(where, pipeline.get(0), item.expectedExit());
                onApply.run();
            } else if ("&&".equals(item.joiner()) && pipeline.stream().allMatch(c -> c.size() > 1
                    && c.get(0).equals("kubectl") && (c.get(1).equals("cordon") || c.get(1).equals("drain")))) {
                pipeline.forEach(this::playKubectl);
            } else if (item.joiner() == null && pipeline.get(0).get(0).equals("nodegate")) {
                runNodegate(where, pipeline.get(0), item.expectedExit());
            } else {
                throw new AssertionError("the walk test does not know how to play " + where);
            }
        }
    }

    private void runNodegate(String where, List<String> words, int expectedExit) {
        assertThat(words.get(0)).isEqualTo("nodegate");
        List<String> args = map(words.subList(1, words.size()));
        if (args.get(0).equals("remove")) {
            // the garbage collector's part of the cascade the DELETE starts
            test.playGarbageCollector(args.get(1));
        }
        CliRun run = test.cli(args.toArray(String[]::new));
        transcript.add(where + " -> exit " + run.exitCode());
        assertThat(run.exitCode()).as("%s\n(run as: %s)\nexit code as the page shows it; so far:\n%s\n%s", where,
                String.join(" ", args), String.join("\n", transcript), run.all()).isEqualTo(expectedExit);
    }

    public List<String> map(List<String> words) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            String prev = i == 0 ? "" : words.get(i - 1);
            if (prev.equals("--removed-at")) {
                out.add(storyTime(w));
            } else if (prev.equals("--due") && !LocalDate.parse(w).isAfter(LocalDate.now(ZoneOffset.UTC).plusDays(1))) {
                out.add(LocalDate.now(ZoneOffset.UTC).plusDays(30).toString());
            } else if (prev.equals("--alertmanager")) {
                alertmanagerUrls.computeIfAbsent(w, k -> alertmanagers.get(alertmanagerUrls.size()));
                out.add(alertmanagerUrls.get(w));
            } else if (files.containsKey(w) || !w.startsWith("-") && (w.endsWith(".json") || w.endsWith(".html"))) {
                out.add(files.computeIfAbsent(w, k -> dir.resolve(k).toString()));
            } else {
                out.add(w);
            }
        }
        if (out.size() > 1 && out.get(0).equals("baseline") && !out.contains("--evidence-dir")) {
            out.addAll(List.of("--evidence-dir", dir.resolve("evidence").toString()));
        }
        if (out.get(0).equals("handover") && kubeconfig != null && !out.contains("--kubeconfig")) {
            out.addAll(List.of("--kubeconfig", kubeconfig.toString()));
        }
        return out;
    }

    /** A time of the story, moved onto the seeded cluster's clock, still local to --tz. */
    public String storyTime(String word) {
        Matcher m = STORY_TIME.matcher(word);
        if (!m.matches()) {
            throw new AssertionError("a --removed-at the walk test cannot place on the seed's clock: " + word);
        }
        LocalDateTime story = LocalDateTime.parse(m.group(2).replace(' ', 'T'));
        Duration fromBaseline = Duration.between(STORY_BASELINE, story);
        LocalDateTime here = LocalDateTime.ofInstant(test.seed.t0.plus(fromBaseline), KST);
        return (m.group(1) == null ? "" : m.group(1) + "=") + here.format(LOCAL);
    }

    /** kubectl cordon NODE... / kubectl drain NODE... --ignore-daemonsets, on the test server. */
    private void playKubectl(List<String> words) {
        List<String> nodes = words.subList(2, words.size()).stream().filter(w -> !w.startsWith("-")).toList();
        for (String node : nodes) {
            test.api.client().nodes().withName(node).edit(n -> {
                n.getSpec().setUnschedulable(true);
                return n;
            });
            if (words.get(1).equals("drain")) {
                assertThat(words).as("drain as the page writes it").contains("--ignore-daemonsets");
                for (Pod p : test.api.client().pods().inAnyNamespace().withField("spec.nodeName", node).list()
                        .getItems()) {
                    boolean daemon = p.getMetadata().getOwnerReferences().stream()
                            .map(OwnerReference::getKind).anyMatch("DaemonSet"::equals);
                    if (!daemon) {
                        test.api.client().pods().inNamespace(p.getMetadata().getNamespace())
                                .withName(p.getMetadata().getName()).delete();
                    }
                }
            }
        }
    }
}
