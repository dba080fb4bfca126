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
        ((ListReport) report).names().forEach(n -> out.append(n).append('\n'));
        return out.toString();
    }
}
