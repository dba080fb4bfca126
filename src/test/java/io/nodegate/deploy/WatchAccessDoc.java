package io.nodegate.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The table of the watch's permissions in docs/watch-access.md: rendered from {@link WatchAccess} (so the page cannot
 * drift from what install grants; {@code WatchAccessDocTest}) and parsed back, so the real-tier test compares
 * {@code kubectl auth can-i --list} with what the page says, not with the code.
 */
public final class WatchAccessDoc {

    public static final Path PAGE = Path.of("docs/watch-access.md");
    static final String BEGIN = "<!-- the watch's permissions: begin (rendered from deploy/WatchAccess; WatchAccessDocTest) -->";
    static final String END = "<!-- the watch's permissions: end -->";
    /** The namespace the table shows for the watch's own rows: install's default. */
    public static final String NAMESPACE = InstallSettings.DEFAULT_NAMESPACE;
    public static final String RANCHER = "Rancher (cattle-system)";
    public static final String POLICY_REPORTS = "--with-policy-reports";

    /** One row of the page's table. {@code namespace} is null for "cluster"; {@code onlyWith} is "" when always. */
    public record Row(String namespace, String apiGroup, String resource, List<String> names, List<String> verbs,
                      String onlyWith) {
    }

    private WatchAccessDoc() {
    }

    /** The table as the page must hold it. */
    static String render() {
        List<WatchAccess.Request> all = WatchAccess.requests(NAMESPACE, true, true);
        List<WatchAccess.Request> always = WatchAccess.requests(NAMESPACE, false, false);
        StringBuilder t = new StringBuilder();
        t.append("| scope | API group | resource | names | verbs | only with | what for |\n");
        t.append("|---|---|---|---|---|---|---|\n");
        for (WatchAccess.Request r : all) {
            String onlyWith = always.contains(r) ? "" : r.rancherOnly() ? RANCHER : POLICY_REPORTS;
            t.append("| ").append(r.namespace() == null ? "cluster" : "`" + r.namespace() + "`")
                    .append(" | ").append(r.apiGroup().isEmpty() ? "(core)" : r.apiGroup())
                    .append(" | `").append(r.resource()).append('`')
                    .append(" | ").append(String.join(", ", r.resourceNames().stream().map(n -> "`" + n + "`").toList()))
                    .append(" | ").append(String.join(", ", r.verbs()))
                    .append(" | ").append(onlyWith)
                    .append(" | ").append(r.why().replace("|", "\\|")).append(" |\n");
        }
        return t.toString();
    }

    /** The table between the markers of the page, verbatim. */
    static String committedTable() {
        String page = read();
        int begin = page.indexOf(BEGIN);
        int end = page.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalStateException(PAGE + " has no table between its markers");
        }
        return page.substring(begin + BEGIN.length(), end).strip() + "\n";
    }

    static String read() {
        try {
            return Files.readString(PAGE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The rows the page documents. */
    public static List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (String line : committedTable().split("\n")) {
            if (!line.startsWith("|") || line.startsWith("| scope") || line.startsWith("|---")) {
                continue;
            }
            // cells: the last one (what for) may hold an escaped \| and is not needed
            String[] cells = line.substring(1).split("(?<!\\\\)\\|");
            String scope = plain(cells[0]);
            String group = plain(cells[1]);
            rows.add(new Row(scope.equals("cluster") ? null : scope, group.equals("(core)") ? "" : group,
                    plain(cells[2]), list(cells[3]), list(cells[4]), plain(cells[5])));
        }
        return rows;
    }

    private static String plain(String cell) {
        return cell.strip().replace("`", "");
    }

    private static List<String> list(String cell) {
        String p = plain(cell);
        return p.isEmpty() ? List.of() : Arrays.stream(p.split(",")).map(String::strip).toList();
    }
}
