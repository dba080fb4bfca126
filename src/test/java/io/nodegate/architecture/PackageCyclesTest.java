package io.nodegate.architecture;

import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No two Java packages of src/main depend on each other, directly or round a circle: a cycle means neither package
 * can be read, tested or moved without the other (the folder-level graph only shows arrows between top folders, so
 * a parent and its child package can point at each other unseen). Read from the compiled classes, as jdeps does:
 * every class a class file's constant pool names (its references and the types in its descriptors and signatures).
 * Constants the compiler inlined leave no trace, as they leave no dependency at run time.
 */
class PackageCyclesTest {

    /**
     * Cycles known and left on purpose, each with why; the test fails on any other cycle, and on an entry here that
     * no longer is one (so the list cannot go stale).
     */
    private static final Map<Set<String>, String> ALLOWED = Map.of();

    private static final Path CLASSES = Path.of("target/classes");
    private static final Pattern TYPE = Pattern.compile("L(io/nodegate/[A-Za-z0-9_/$]+)[;<]");

    @Test
    void noPackageCycleInTheMainClasses() throws IOException {
        Map<String, Set<String>> graph = packageGraph(CLASSES);
        assertThat(graph).as("packages read from " + CLASSES.toAbsolutePath()).containsKey("io.nodegate.detect");
        List<Set<String>> cycles = stronglyConnected(graph).stream().filter(c -> c.size() > 1).toList();
        List<String> unexpected = new ArrayList<>();
        for (Set<String> cycle : cycles) {
            if (!ALLOWED.containsKey(cycle)) {
                unexpected.add(cycle + " " + arrows(graph, cycle));
            }
        }
        assertThat(unexpected).as("package cycles in src/main (package -> packages it uses, within the cycle)")
                .isEmpty();
        assertThat(cycles).as("allowed cycles that still exist").containsAll(ALLOWED.keySet());
    }

    @Test
    void theReaderSeesACycleWhenThereIsOne() {
        Map<String, Set<String>> graph = new TreeMap<>();
        graph.put("a", Set.of("a.b"));
        graph.put("a.b", Set.of("c"));
        graph.put("c", Set.of("a", "d"));
        graph.put("d", Set.of());
        assertThat(stronglyConnected(graph)).contains(Set.of("a", "a.b", "c"), Set.of("d"));
    }

    @Test
    void theConstantPoolReaderFindsThisClassesOwnReferences() throws IOException {
        Path self = Path.of("target/test-classes/io/nodegate/architecture/PackageCyclesTest.class");
        Set<String> named = referencedClasses(self);
        assertThat(named).contains("io/nodegate/architecture/PackageCyclesTest");
    }

    /** package -> the other io.nodegate packages its classes name. */
    static Map<String, Set<String>> packageGraph(Path root) throws IOException {
        Map<String, Set<String>> graph = new TreeMap<>();
        List<Path> classes;
        try (Stream<Path> files = Files.walk(root)) {
            classes = files.filter(f -> f.toString().endsWith(".class")).toList();
        }
        for (Path c : classes) {
            String from = packageOf(root.relativize(c).toString().replace('\\', '/'));
            Set<String> out = graph.computeIfAbsent(from, k -> new TreeSet<>());
            for (String used : referencedClasses(c)) {
                String to = packageOf(used);
                if (to.startsWith("io.nodegate") && !to.equals(from)) {
                    out.add(to);
                }
            }
        }
        return graph;
    }

    private static String packageOf(String internalName) {
        int slash = internalName.lastIndexOf('/');
        return slash < 0 ? "" : internalName.substring(0, slash).replace('/', '.');
    }

    /** Internal names of the classes a class file's constant pool names (CONSTANT_Class and descriptor types). */
    static Set<String> referencedClasses(Path classFile) throws IOException {
        Set<String> names = new TreeSet<>();
        try (InputStream raw = Files.newInputStream(classFile); DataInputStream in = new DataInputStream(raw)) {
            if (in.readInt() != 0xCAFEBABE) {
                throw new IOException(classFile + ": not a class file");
            }
            in.readUnsignedShort();
            in.readUnsignedShort();
            int count = in.readUnsignedShort();
            String[] utf8 = new String[count];
            List<Integer> classIndexes = new ArrayList<>();
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> utf8[i] = in.readUTF();
                    case 7 -> classIndexes.add(in.readUnsignedShort());
                    case 8, 16, 19, 20 -> in.readUnsignedShort();
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();
                    case 5, 6 -> {
                        in.readLong();
                        i++;
                    }
                    case 15 -> {
                        in.readUnsignedByte();
                        in.readUnsignedShort();
                    }
                    default -> throw new IOException(classFile + ": unknown constant pool tag " + tag);
                }
            }
            for (int index : classIndexes) {
                String name = utf8[index];
                Matcher array = TYPE.matcher(name);
                if (array.find()) {
                    names.add(array.group(1));
                } else {
                    names.add(name);
                }
            }
            for (String s : utf8) {
                if (s != null) {
                    Matcher m = TYPE.matcher(s);
                    while (m.find()) {
                        names.add(m.group(1));
                    }
                }
            }
        }
        return names;
    }

    /** Tarjan's strongly connected components; a component of more than one package is a cycle. */
    static List<Set<String>> stronglyConnected(Map<String, Set<String>> graph) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> components = new ArrayList<>();
        int[] counter = {0};
        for (String v : graph.keySet()) {
            if (!index.containsKey(v)) {
                connect(v, graph, index, low, stack, onStack, components, counter);
            }
        }
        return components;
    }

    private static void connect(String v, Map<String, Set<String>> graph, Map<String, Integer> index,
                                Map<String, Integer> low, Deque<String> stack, Set<String> onStack,
                                List<Set<String>> components, int[] counter) {
        index.put(v, counter[0]);
        low.put(v, counter[0]);
        counter[0]++;
        stack.push(v);
        onStack.add(v);
        for (String w : graph.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                connect(w, graph, index, low, stack, onStack, components, counter);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            components.add(component);
        }
    }

    /** The arrows inside one cycle, for the failure message. */
    private static Map<String, Set<String>> arrows(Map<String, Set<String>> graph, Set<String> cycle) {
        Map<String, Set<String>> inside = new TreeMap<>();
        for (String p : cycle) {
            Set<String> to = new TreeSet<>(graph.getOrDefault(p, Set.of()));
            to.retainAll(cycle);
            inside.put(p, to);
        }
        return inside;
    }
}
