package io.nodegate.render.output;

/** -o name: one kind/name per listed thing, as kubectl's (node/gpu-a07, deployment.apps/nodegate-watch). */
public final class NameFormat implements OutputFormat {

    @Override
    public String name() {
        return "name";
    }

    @Override
    public String summary() {
        return "kind/name per listed thing, as kubectl -o name";
    }

    @Override
    public boolean accepts(Class<?> reportType) {
        return ListReport.class.isAssignableFrom(reportType);
    }

    @Override
    public String render(Object report, Rendering how) {
        StringBuilder out = new StringBuilder();
        // a name is data: printed for a terminal, its control characters escaped like the tables'
        ((ListReport) report).names().forEach(n -> out.append(TerminalText.escape(n)).append('\n'));
        return out.toString();
    }
}
