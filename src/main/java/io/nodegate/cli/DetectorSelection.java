package io.nodegate.cli;

import io.nodegate.detect.Detector;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.detect.registry.Scope;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What `--skip CODE,...` means, for audit and watch alike: every detector registered for the command's scope minus the codes given. An
 * unknown code is a usage error, not a silent no-op (a typo would otherwise leave a check running unnoticed).
 */
final class DetectorSelection {

    private DetectorSelection() {
    }

    /** The codes given, trimmed and upper-cased, blanks dropped. */
    static Set<String> skipped(List<String> skip) {
        return skip.stream().map(s -> s.trim().toUpperCase(Locale.ROOT)).filter(s -> !s.isEmpty())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    static List<Detector> detectors(CommandLine commandLine, List<String> skip, Scope scope) {
        Set<String> skipped = skipped(skip);
        List<Detector> registered = Detectors.in(scope, Detector.class);
        Set<String> known = registered.stream().map(d -> d.code().code()).collect(Collectors.toSet());
        for (String code : skipped) {
            if (!known.contains(code)) {
                throw new ParameterException(commandLine, "Invalid value for option '--skip': unknown code '"
                        + code + "' (known: " + String.join(", ", new TreeSet<>(known)) + ")");
            }
        }
        return registered.stream().filter(d -> !skipped.contains(d.code().code())).toList();
    }
}
