package io.nodegate.lifecycle.baseline;

import io.nodegate.lifecycle.evidence.EvidenceStore;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The baseline is evidence: gate and verify-gone decide against it. When `baseline save` writes one it records
 * the file's sha256 in the evidence directory (baseline-seal-&lt;sha&gt;.json), and every later step checks the
 * file it is given against those records. An edited baseline (a deleted "server", a baselineTs moved to 9999)
 * would otherwise switch checks off or hide new Nodes; with the seal it is INVALID.
 */
public final class BaselineSeal {

    public static final String KIND = "nodegate.io/baseline-seal";
    static final String PREFIX = "baseline-seal-";

    /** One seal record: which file, its sha256 when saved, and what it says about itself. */
    public record Seal(String kind, String file, String sha256, Instant baselineTs, String server) {
    }

    private BaselineSeal() {
    }

    /** Records the sealed sha256 of a just-written baseline file in the evidence directory. */
    public static Path record(EvidenceStore store, Path baselineFile, Baseline baseline) {
        String sha = EvidenceStore.sha256(baselineFile);
        return store.writeJson(PREFIX + sha + ".json", new Seal(KIND,
                baselineFile.toAbsolutePath().normalize().toString(), sha, baseline.baselineTs(), baseline.server()));
    }

    /**
     * Why the file is not a sealed baseline, or null when one of the stores holds a seal with its sha256.
     *
     * @param stores where to look: the evidence directory of this run and the one the baseline names
     */
    public static String problem(List<EvidenceStore> stores, Path baselineFile) {
        String sha = EvidenceStore.sha256(baselineFile);
        String abs = baselineFile.toAbsolutePath().normalize().toString();
        List<Seal> sameFile = new ArrayList<>();
        List<String> looked = new ArrayList<>();
        for (EvidenceStore store : stores) {
            looked.add(store.dir().toString());
            for (Path p : store.list(PREFIX)) {
                Seal seal = EvidenceStore.readJson(p, Seal.class);
                if (!KIND.equals(seal.kind())) {
                    continue;
                }
                if (sha.equals(seal.sha256())) {
                    return null;
                }
                if (abs.equals(seal.file())) {
                    sameFile.add(seal);
                }
            }
        }
        if (!sameFile.isEmpty()) {
            return "changed since 'baseline save' wrote it (sha256 now " + sha + ", recorded "
                    + sameFile.get(sameFile.size() - 1).sha256() + "): an edited baseline is not evidence; save a new one";
        }
        return "has no seal in " + String.join(" or ", looked.stream().distinct().toList()) + " (sha256 " + sha
                + "): 'baseline save' records one in the evidence directory it writes to. Use that directory"
                + " (--evidence-dir), or save a new baseline; an edited or foreign baseline is not evidence";
    }
}
