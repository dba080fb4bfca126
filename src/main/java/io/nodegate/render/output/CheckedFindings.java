package io.nodegate.render.output;

import io.nodegate.audit.AuditReport;

import java.util.Map;
import java.util.Set;

/**
 * Findings together with the checks that ran: what CI test reports (-o junit) and policy UIs (-o policyreport) need,
 * since both show a passing entry for a check that found nothing, so absence of failures is never mistaken for
 * absence of checking.
 */
public interface CheckedFindings {

    AuditReport findings();

    /** The checks that ran, code to name, in the order to list them. */
    Map<String, String> checks();

    /** The codes left out (--skip). */
    Set<String> skipped();

    /** The report's name, e.g. nodegate-audit, and its app.kubernetes.io/component label. */
    String component();
}
