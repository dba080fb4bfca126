package io.nodegate.lifecycle.gate;

import io.nodegate.CollectionException;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.lifecycle.evidence.Json;

import java.util.Map;

/**
 * Writes a gate verdict onto one object (the Node, or its Rancher Machine) with a JSON merge patch that carries the
 * uid and resourceVersion the gate judged, so the API server refuses it (409) if the object changed since.
 *
 * <p>A PATCH whose answer is not a clean confirmation (a timeout, a 5xx, an empty or foreign 200) may still have
 * landed, and a PASS on the object is what an admission policy honours. So the object is read again and what is
 * really there is reported; if even that fails, the outcome is reported as unknown, with the command that checks it.
 *
 * @param kind        the object's kind as its JSON says ("Node", "Machine")
 * @param what        the object in messages ("Node gpu-a11", "Machine fleet-default/custom-4b2f…")
 * @param path        its API path
 * @param checkByHand the kubectl command that shows its annotations
 */
record ConfirmedPatch(ApiReader api, String kind, String what, String path, String name, String uid,
                      String resourceVersion, String checkByHand) {

    /** The object's resourceVersion after the patch, and why the PATCH's own answer was not enough (null if it was). */
    record Landed(String resourceVersion, String unclear) {
    }

    /**
     * @param annotations the annotations to set (a null value removes that key)
     * @throws CollectionException when the patch was refused, did not land, or its outcome is unknown
     */
    Landed apply(Map<String, String> annotations, String verdict, String sha) {
        Map<String, Object> patch = Map.of("metadata", Map.of(
                "uid", uid,
                "resourceVersion", resourceVersion,
                "annotations", annotations));
        String unclear;
        try {
            var response = api.send(api.mergePatchRequest(path, patch));
            int code = response.code();
            if (code == 200) {
                String confirmed = carriesVerdict(parse(response.body()), verdict, sha);
                if (confirmed != null) {
                    return new Landed(confirmed, null);
                }
                unclear = "the PATCH answered HTTP 200 without the annotated " + kind;
            } else if (code == 409) {
                throw new Conflict("annotating " + what + " failed (HTTP 409: the " + kind + " changed since the gate"
                        + " read it); the gate record is kept but the " + kind + " carries no new verdict");
            } else if (code >= 400 && code < 500 && code != 408) {
                throw new CollectionException("annotating " + what + " failed (HTTP " + code
                        + (code == 409 ? ": the " + kind + " changed since the gate read it" : "") + "); the gate record "
                        + "is kept but the " + kind + " carries no new verdict");
            } else {
                unclear = "the PATCH answered HTTP " + code;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            unclear = "the PATCH was interrupted";
        } catch (CollectionException e) {
            throw e;
        } catch (Exception e) {
            unclear = "the PATCH failed (" + api.describe(e) + ")";
        }
        tools.jackson.databind.JsonNode now;
        try {
            now = api.reread(what, path).orElse(null);
        } catch (CollectionException e) {
            throw new CollectionException("annotating " + what + ": " + unclear + ", and " + e.getMessage()
                    + ". UNKNOWN whether the " + kind + " now carries " + GateService.ANN_VERDICT + "=" + verdict
                    + ": check before anyone deletes it (" + checkByHand
                    + " -o jsonpath='{.metadata.annotations}'; this run's evidence is sha256:" + sha + ")", e);
        }
        String confirmed = carriesVerdict(now, verdict, sha);
        if (confirmed != null) {
            return new Landed(confirmed, unclear);
        }
        throw new CollectionException("annotating " + what + " failed (" + unclear + "); re-reading the " + kind
                + " shows " + (now == null ? "it is gone (NotFound)" : "it does not carry this run's verdict")
                + ": the gate record is kept but the " + kind + " carries no new verdict");
    }

    /** The API server refused the PATCH because the object's resourceVersion moved on since the gate read it. */
    static final class Conflict extends CollectionException {
        Conflict(String message) {
            super(message);
        }
    }

    /**
     * Writes a verdict that replaces an earlier one (HOLD, FAIL or INVALID over a PASS). The rule is the same as
     * {@link #apply}'s, with one difference: a PASS must be refused on an object that changed since the gate read it,
     * but an object's changing is no reason to leave an earlier PASS in force. So on a 409 the object is read again
     * and, while it is still the object judged (same uid), the verdict is written once more against its current
     * resourceVersion, confirmed the same way.
     *
     * @return what landed; {@code resourceVersion} null when there was nothing left to write on: the object is gone,
     * or it is another object by that name now (a PASS is bound to the uid it judged, so none of this run's object
     * is honoured on it), and {@code unclear} says which
     * @throws CollectionException when the verdict could not be written or confirmed
     */
    Landed replace(Map<String, String> annotations, String verdict, String sha) {
        try {
            return apply(annotations, verdict, sha);
        } catch (Conflict conflict) {
            tools.jackson.databind.JsonNode now = api.reread(what, path).orElse(null);
            if (now == null) {
                return new Landed(null, what + " is gone (NotFound)");
            }
            String nowUid = now.path("metadata").path("uid").asString();
            if (!uid.equals(nowUid)) {
                return new Landed(null, what + " is another object now (uid " + nowUid + ", the gate judged " + uid
                        + ")");
            }
            String rv = now.path("metadata").path("resourceVersion").asString();
            Landed landed = new ConfirmedPatch(api, kind, what, path, name, uid, rv, checkByHand)
                    .apply(annotations, verdict, sha);
            return new Landed(landed.resourceVersion(), "written again on the " + kind + "'s resourceVersion " + rv
                    + " after a 409 (it changed since the gate read it)");
        }
    }

    /**
     * What the object carries now as {@value GateService#ANN_VERDICT} and {@value GateService#ANN_AT}, for a message
     * after a failed write: "PASS (gate-at …)", "no verdict", "gone (NotFound)", or "unknown (…)" when it cannot be
     * read either.
     */
    String verdictNow() {
        try {
            tools.jackson.databind.JsonNode now = api.reread(what, path).orElse(null);
            if (now == null) {
                return "gone (NotFound)";
            }
            if (!uid.equals(now.path("metadata").path("uid").asString())) {
                return "another object now (its verdicts are not bound to this one)";
            }
            var ann = now.path("metadata").path("annotations");
            String v = ann.path(GateService.ANN_VERDICT).asString();
            return v == null || v.isEmpty() ? "no verdict" : v + " (gate-at " + ann.path(GateService.ANN_AT).asString()
                    + ")";
        } catch (RuntimeException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private static tools.jackson.databind.JsonNode parse(String body) {
        try {
            return Json.MAPPER.readTree(body);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The object's resourceVersion when it is ours and carries this run's verdict and evidence; else null. */
    private String carriesVerdict(tools.jackson.databind.JsonNode obj, String verdict, String sha) {
        if (obj == null || !obj.isObject() || !kind.equals(obj.path("kind").asString())) {
            return null;
        }
        var meta = obj.path("metadata");
        var ann = meta.path("annotations");
        boolean ours = name.equals(meta.path("name").asString())
                && uid.equals(meta.path("uid").asString())
                && verdict.equals(ann.path(GateService.ANN_VERDICT).asString())
                && ("sha256:" + sha).equals(ann.path(GateService.ANN_EVIDENCE).asString());
        String rv = meta.path("resourceVersion").asString();
        return ours && rv != null && !rv.isEmpty() ? rv : null;
    }
}
