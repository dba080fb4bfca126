package io.nodegate.cli;

import picocli.CommandLine;

/** Reads the version from the jar manifest, so `--version` needs no Kubernetes classes loaded. */
public final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = Nodegate.class.getPackage().getImplementationVersion();
        return new String[]{"nodegate " + (v == null ? "dev" : v)};
    }
}
