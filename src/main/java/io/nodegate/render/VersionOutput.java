package io.nodegate.render;

import io.nodegate.render.output.Structured;
import io.nodegate.render.output.Style;
import io.nodegate.render.output.TextReport;
import io.nodegate.render.output.TreeReport;
import tools.jackson.databind.JsonNode;

import java.util.Locale;

/**
 * `nodegate version`: what `--version` prints as the table (one line, the same words), and as data for scripts
 * (-o json|yaml), as `kubectl version -o json` gives its client's. -o wide adds the Java runtime and the platform,
 * the first two questions of a bug report.
 *
 * @param version  nodegate's version, from the build (pom.xml)
 * @param java     the running JVM's version ({@code java.version})
 * @param platform os/arch as Go names them in kubectl's output ({@code linux/amd64})
 */
public record VersionOutput(String version, String java, String platform) implements TextReport, TreeReport {

    /** This JVM's. */
    public static VersionOutput of(String version) {
        String arch = System.getProperty("os.arch");
        String goArch = switch (arch) {
            case "x86_64" -> "amd64";
            case "aarch64" -> "arm64";
            default -> arch;
        };
        return new VersionOutput(version, System.getProperty("java.version"),
                System.getProperty("os.name").toLowerCase(Locale.ROOT) + "/" + goArch);
    }

    @Override
    public String text(Style style, boolean wide) {
        return "nodegate " + version + (wide ? "   java " + java + "   " + platform : "") + "\n";
    }

    @Override
    public JsonNode tree() {
        return Structured.tree(this);
    }
}
