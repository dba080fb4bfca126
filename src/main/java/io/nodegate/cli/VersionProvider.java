package io.nodegate.cli;

import picocli.CommandLine;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * The version from {@code io/nodegate/version.txt}, which the build fills in from pom.xml. bin/nodegate reads the
 * same file to answer `--version` without a JVM, so both say the same. Loads no Kubernetes class.
 */
public final class VersionProvider implements CommandLine.IVersionProvider {

    static final String RESOURCE = "/io/nodegate/version.txt";

    @Override
    public String[] getVersion() {
        return new String[]{"nodegate " + version()};
    }

    static String version() {
        try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                String v = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
                if (!v.isEmpty() && !v.startsWith("${")) {
                    return v;
                }
            }
        } catch (IOException e) {
            // fall through to the manifest
        }
        String v = Nodegate.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
