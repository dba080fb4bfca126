package io.nodegate.detect.rejoin;

import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.FindingDetector;
import io.nodegate.detect.Severity;
import io.nodegate.model.BootstrapToken;
import io.nodegate.model.MachineInfo;
import io.nodegate.model.RegistrationToken;
import io.nodegate.model.SecretMeta;
import io.nodegate.model.Tombstone;
import io.nodegate.model.host.HostReport;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * NG306, "can it come back?", as a pure function: for one removed host (its tombstone) or one Node about to be
 * removed, every way back into the cluster, each either still open, checked closed, or not readable; and the answer
 * yes / no / unknown.
 *
 * <p>The ways in (docs/findings.md, NG306): a join credential the host holds or can use (the RKE2/k3s server or agent
 * token, which never expires and is not visible through the API; a bootstrap token Secret still accepted; Rancher's
 * system agent still enabled on the host; with Rancher's management cluster read, the host's Cluster API Machine and
 * the cluster's ClusterRegistrationTokens behind its registration command), the name (its node-password Secret), and the quarantine (policy, binding
 * and the host's tombstone in a shard the binding selects), which refuses the host at admission whatever it holds.
 *
 * <p>The answer: "no" when the quarantine refuses the host's name and every identity it was recorded with, or when
 * every credential was read and found closed; "yes" when a credential is open and the quarantine was read and does
 * not cover the host; "unknown" otherwise, naming what could not be read. A failed read never gives "no".
 */
public final class RejoinRisk implements FindingDetector {

    /** The registry's instance: the decision itself is {@link #answer}, over what `rejoin-risk` and `verify-gone` read. */
    public RejoinRisk() {
    }

    @Override
    public FindingCode code() {
        return FindingCode.NG306;
    }

    public enum Answer {
        YES, NO, UNKNOWN;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** A path's state: open (a way in), closed (checked), unread (the read failed), note (informs only). */
    public enum State {
        OPEN, CLOSED, UNREAD, NOTE;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One way in. {@code brief} is what the answer's one line says of it ("server token never expires"),
     * {@code detail} the exact path (object, file, time), {@code closes} what closes it (null when nothing is to do).
     */
    public record JoinPath(String id, State state, String brief, String detail, String closes) {
    }

    /** One read: its value, or why it could not be read (then value is null). */
    public record Read<T>(T value, String error) {
        public static <T> Read<T> ok(T value) {
            return new Read<>(value, null);
        }

        public static <T> Read<T> failed(String error) {
            return new Read<>(null, error);
        }

        public boolean ok() {
            return error == null;
        }
    }

    /**
     * The quarantine's objects: the ValidatingAdmissionPolicy and its binding present, and what is wrong with the
     * binding if anything (it does not deny, or selects the shards of another namespace).
     */
    public record Quarantine(boolean policy, boolean binding, String bindingProblem) {
        public boolean inForce() {
            return policy && binding && bindingProblem == null;
        }
    }

    /**
     * The host asked about.
     *
     * @param name           the Node name it had (or has)
     * @param tombstone      its tombstone; null for a Node not removed yet
     * @param shard          the ledger shard holding the tombstone (null without one)
     * @param shardLabelled  whether that shard carries the label the quarantine's binding selects
     * @param liveSystemUuid a live Node's systemUUID / machineID (null for a removed host)
     * @param liveMachineId  as liveSystemUuid
     * @param host           a `nodegate host inspect` report of the machine, or null
     * @param problem        why nothing is known of this name (no tombstone and no Node, an unreadable ledger), or null
     * @param untracked      a host deleted without `nodegate remove` (no tombstone; its identities from a baseline in
     *                       liveSystemUuid / liveMachineId)
     */
    public record Subject(String name, Tombstone tombstone, String shard, boolean shardLabelled, String liveSystemUuid,
                          String liveMachineId, HostReport host, String problem, boolean untracked) {

        /** A removed host with its tombstone. */
        public boolean removed() {
            return tombstone != null;
        }

        /** Gone from the cluster, with or without a tombstone. */
        public boolean gone() {
            return tombstone != null || untracked;
        }
    }

    /**
     * What the whole cluster says, read once for every host.
     *
     * @param rancher Rancher's management cluster, when it was asked (--machine-kubeconfig / --machine-context);
     *                null when it was not
     */
    public record ClusterEvidence(Instant now, String ledgerNamespace, Read<Quarantine> quarantine,
                                  Read<List<BootstrapToken>> bootstrapTokens, Read<Rancher> rancher) {

        public ClusterEvidence(Instant now, String ledgerNamespace, Read<Quarantine> quarantine,
                               Read<List<BootstrapToken>> bootstrapTokens) {
            this(now, ledgerNamespace, quarantine, bootstrapTokens, null);
        }
    }

    /**
     * What Rancher's management cluster says of this downstream cluster.
     *
     * @param cluster             the provisioning Cluster's name ({@code prod-gpu})
     * @param machineNamespace    its Fleet workspace namespace ({@code fleet-default}), where its Machines are
     * @param managementNamespace the management cluster ID ({@code c-m-…}), where its ClusterRegistrationTokens are
     * @param tokens              every ClusterRegistrationToken there (a LIST that answered)
     * @param machines            the cluster's Cluster API Machines (a LIST that answered)
     */
    public record Rancher(String cluster, String machineNamespace, String managementNamespace,
                          List<RegistrationToken> tokens, List<MachineInfo> machines) {
        public Rancher {
            tokens = List.copyOf(tokens);
            machines = List.copyOf(machines);
        }
    }

    /** The answer for one host, with every path and what could not be read. */
    public record HostAnswer(String node, String subject, Answer canComeBack, String summary, List<JoinPath> paths,
                             List<String> unread) {
        public HostAnswer {
            paths = List.copyOf(paths);
            unread = List.copyOf(unread);
        }

        /** The NG306 finding of a "yes", or empty. */
        public Optional<Finding> finding() {
            if (canComeBack != Answer.YES) {
                return Optional.empty();
            }
            Map<String, Object> open = new LinkedHashMap<>();
            List<String> closes = new ArrayList<>();
            for (JoinPath p : paths) {
                if (p.state() == State.OPEN) {
                    open.put(p.id(), p.detail());
                    if (p.closes() != null && !closes.contains(p.closes())) {
                        closes.add(p.closes());
                    }
                }
            }
            return Optional.of(new Finding(FindingCode.NG306, Severity.WARNING, List.of(node),
                    node + " (" + subject + ") can come back: " + summary,
                    Evidence.of().put("openPaths", open).build(), String.join("; ", closes)));
        }
    }

    /**
     * What kube-apiserver answered a server-side dry run of a Node CREATE under a removed host's name. The policy,
     * the binding and the tombstone being there is not proof that the apiserver refuses the host: one whose
     * ConfigMap informer has stopped (a binding with ConfigMap parameters was deleted since it started) keeps all
     * three and admits the name. Only its own answer shows which.
     *
     * @param refused whether the quarantine refused the Node
     * @param answer  what the apiserver answered, in words
     */
    public record DryRun(boolean refused, String answer) {
    }

    /** The answer for {@code s}, with its node-password Secret as read under both distributions' names. */
    public static HostAnswer answer(Subject s, Read<Optional<SecretMeta>> nodePassword, ClusterEvidence ev) {
        return answer(s, nodePassword, null, ev);
    }

    /**
     * As the other, with the apiserver's answer to a dry run of the removed host's Node ({@code dryRun}; null when
     * none was sent): a refusal confirms the quarantine, an admission opens it, a failed dry run leaves it
     * unconfirmed (as the objects say, with why).
     */
    public static HostAnswer answer(Subject s, Read<Optional<SecretMeta>> nodePassword, Read<DryRun> dryRun,
                                    ClusterEvidence ev) {
        if (s.problem() != null) {
            return new HostAnswer(s.name(), "unknown host", Answer.UNKNOWN, "unknown (" + s.problem() + ")",
                    List.of(), List.of(s.problem()));
        }
        List<JoinPath> paths = new ArrayList<>();
        List<String> unread = new ArrayList<>();
        String subject = s.removed() ? "removed " + s.tombstone().removedAt()
                : s.untracked() ? "deleted without a tombstone" : "a Node not removed yet";

        // the door: the quarantine refuses the host at admission whatever credential it holds
        JoinPath door = quarantine(s, ev, dryRun, paths);
        if (door.state() == State.UNREAD) {
            unread.add(door.detail());
        }

        // the credentials
        List<JoinPath> credentials = new ArrayList<>();
        credentials.add(serverToken(s));
        systemAgent(s).ifPresent(credentials::add);
        credentials.addAll(bootstrapTokens(ev));
        credentials.addAll(rancher(s, ev));
        paths.addAll(credentials);
        credentials.stream().filter(p -> p.state() == State.UNREAD).forEach(p -> unread.add(p.detail()));

        // the name
        JoinPath name = nodePassword(s, nodePassword);
        paths.add(name);
        if (name.state() == State.UNREAD) {
            unread.add(name.detail());
        }

        boolean doorClosed = paths.stream().filter(p -> p.id().startsWith("quarantine"))
                .allMatch(p -> p.state() == State.CLOSED);
        boolean doorUnread = door.state() == State.UNREAD;
        boolean credentialOpen = credentials.stream().anyMatch(p -> p.state() == State.OPEN);
        boolean credentialUnread = credentials.stream().anyMatch(p -> p.state() == State.UNREAD);
        Answer answer;
        String why;
        if (doorClosed) {
            answer = Answer.NO;
            why = door.brief();
        } else if (credentialOpen && !doorUnread) {
            answer = Answer.YES;
            List<String> briefs = new ArrayList<>();
            paths.stream().filter(p -> p.state() == State.OPEN || p.id().equals("node-password"))
                    .filter(p -> p.state() != State.UNREAD).forEach(p -> briefs.add(p.brief()));
            why = String.join("; ", briefs);
        } else if (credentialOpen || credentialUnread || doorUnread) {
            answer = Answer.UNKNOWN;
            why = "could not read: " + String.join("; ", unread);
        } else {
            answer = Answer.NO;
            why = "every join credential checked closed";
        }
        return new HostAnswer(s.name(), subject, answer, answer.label() + " (" + why + ")", paths, unread);
    }

    private static JoinPath quarantine(Subject s, ClusterEvidence ev, Read<DryRun> dryRun, List<JoinPath> paths) {
        String install = "nodegate policy --quarantine | kubectl apply -f -";
        if (!ev.quarantine().ok()) {
            JoinPath p = new JoinPath("quarantine", State.UNREAD, "quarantine unreadable",
                    "the quarantine policy and binding: " + ev.quarantine().error(), null);
            paths.add(p);
            return p;
        }
        Quarantine q = ev.quarantine().value();
        if (!q.inForce()) {
            String missing = !q.policy() ? "ValidatingAdmissionPolicy nodegate-node-quarantine absent"
                    : !q.binding() ? "ValidatingAdmissionPolicyBinding nodegate-node-quarantine absent"
                    : "binding nodegate-node-quarantine " + q.bindingProblem();
            JoinPath p = new JoinPath("quarantine", State.OPEN, "no quarantine", missing
                    + ": nothing refuses the host at registration", install);
            paths.add(p);
            return p;
        }
        String uuid = s.removed() ? s.tombstone().systemUuid() : Tombstone.identity(s.liveSystemUuid());
        String mid = s.removed() ? s.tombstone().machineId() : Tombstone.identity(s.liveMachineId());
        String ids = "name " + s.name() + (uuid == null ? "" : ", systemUUID " + uuid)
                + (mid == null ? "" : ", machineID " + mid);
        JoinPath p;
        if (s.untracked()) {
            p = new JoinPath("quarantine", State.OPEN, "no tombstone", "no tombstone for " + s.name() + " in "
                    + ev.ledgerNamespace() + ": it was deleted without `nodegate remove`, so the quarantine does not "
                    + "know it", "clean the host (rke2-uninstall.sh / k3s-agent-uninstall.sh)");
            paths.add(p);
            return p;
        }
        if (!s.removed()) {
            p = new JoinPath("quarantine", State.CLOSED, "quarantine in force: `nodegate remove` tombstones it",
                    "policy and binding nodegate-node-quarantine present; `nodegate remove " + s.name()
                            + "` records the tombstone they refuse (" + ids + ")", null);
        } else if (!s.shardLabelled()) {
            p = new JoinPath("quarantine", State.OPEN, "tombstone not in a bound shard", "the tombstone is in "
                    + "ConfigMap " + ev.ledgerNamespace() + "/" + s.shard() + ", which lacks the label nodegate.io/"
                    + "ledger=tombstones the binding selects: the quarantine does not see it",
                    "kubectl -n " + ev.ledgerNamespace() + " label configmap " + s.shard()
                            + " nodegate.io/ledger=tombstones");
        } else {
            p = confirmed(s, ids, "policy and binding nodegate-node-quarantine present; tombstone in ConfigMap "
                    + ev.ledgerNamespace() + "/" + s.shard() + " refuses " + ids, dryRun);
        }
        paths.add(p);
        if (p.state() == State.CLOSED && uuid == null && mid == null) {
            // the quarantine refuses by name and the two host identities: with neither recorded, a new name passes
            paths.add(new JoinPath("quarantine-rename", State.OPEN, "a new name passes the quarantine",
                    "no systemUUID or machineID recorded for " + s.name() + ": the quarantine refuses only the name",
                    "clean the host (rke2-uninstall.sh / k3s-agent-uninstall.sh)"));
        }
        return p;
    }

    /** The quarantine as its objects say it is, confirmed or contradicted by the apiserver's answer to a dry run. */
    private static JoinPath confirmed(Subject s, String ids, String objects, Read<DryRun> dryRun) {
        String brief = "the quarantine refuses its " + ids;
        if (dryRun == null) {
            return new JoinPath("quarantine", State.CLOSED, brief, objects, null);
        }
        if (!dryRun.ok()) {
            return new JoinPath("quarantine", State.CLOSED, brief, objects + "; not confirmed by the apiserver: "
                    + dryRun.error(), null);
        }
        if (dryRun.value().refused()) {
            return new JoinPath("quarantine", State.CLOSED, brief, objects + "; the apiserver refused a server-side "
                    + "dry run of a Node named " + s.name(), null);
        }
        return new JoinPath("quarantine", State.OPEN, "the apiserver admits its name", objects + ", yet the "
                + "apiserver admitted a server-side dry run of a Node named " + s.name() + " (" + dryRun.value().answer()
                + "): it enforces an old copy of the ledger, as it does after a binding with ConfigMap parameters was "
                + "deleted while it ran", "restart every kube-apiserver, then run rejoin-risk again (docs/policy.md, "
                + "\"Never delete a binding to switch a policy off\")");
    }

    private static JoinPath serverToken(Subject s) {
        String closes = "clean the host (rke2-uninstall.sh / k3s-agent-uninstall.sh removes the config and token), "
                + "or the quarantine";
        HostReport h = s.host();
        if (h == null) {
            return new JoinPath("server-token", State.OPEN, "server token never expires",
                    "the RKE2/k3s server or agent token does not expire and is not visible through the API: the host "
                            + "holds it until it is cleaned (no host report given)", closes);
        }
        HostReport.AgentConfig c = h.config();
        String when = "host report of " + h.inspectedAt();
        if (c == null || !c.present()) {
            return new JoinPath("server-token", State.CLOSED, "no agent config on the host",
                    when + ": no RKE2/k3s config.yaml on the host", null);
        }
        if (c.tokenSet() || c.agentTokenSet()) {
            List<String> enabled = h.agentServices().stream().filter(HostReport.Service::enabled)
                    .map(HostReport.Service::unit).toList();
            return new JoinPath("server-token", State.OPEN, "the host still holds its token",
                    when + ": " + String.join(", ", c.files()) + " sets a " + (c.tokenSet() ? "token" : "agent-token")
                            + " for server " + c.server()
                            + (enabled.isEmpty() ? "" : "; " + String.join(", ", enabled) + " enabled: the next boot "
                            + "registers again"), closes);
        }
        return new JoinPath("server-token", State.UNREAD, "token source unknown",
                when + ": " + String.join(", ", c.files()) + " sets no token (it may come from the environment or "
                        + "the unit's env file)", null);
    }

    private static Optional<JoinPath> systemAgent(Subject s) {
        HostReport h = s.host();
        if (h == null) {
            return Optional.empty();
        }
        HostReport.Service agent = h.service(HostReport.SYSTEM_AGENT_UNIT);
        if (agent == null || !agent.installed()) {
            return Optional.empty();
        }
        if (agent.enabled() || agent.active()) {
            return Optional.of(new JoinPath("rancher-system-agent", State.OPEN, "rancher-system-agent still enabled",
                    "host report of " + h.inspectedAt() + ": " + agent.describe() + ": it applies Rancher's plan "
                            + "again (the custom node registers again)",
                    "rancher-system-agent-uninstall.sh on the host"));
        }
        return Optional.of(new JoinPath("rancher-system-agent", State.CLOSED, "rancher-system-agent disabled",
                "host report of " + h.inspectedAt() + ": " + agent.describe(), null));
    }

    private static List<JoinPath> bootstrapTokens(ClusterEvidence ev) {
        Read<List<BootstrapToken>> read = ev.bootstrapTokens();
        if (!read.ok()) {
            return List.of(new JoinPath("bootstrap-tokens", State.UNREAD, "bootstrap tokens unreadable",
                    "bootstrap token Secrets in kube-system: " + read.error(), null));
        }
        List<JoinPath> out = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (BootstrapToken t : read.value()) {
            String refusal = t.refusal(ev.now());
            if (refusal != null) {
                refused.add(t.secret() + " (" + refusal + ")");
                continue;
            }
            String id = t.secret().startsWith(BootstrapToken.NAME_PREFIX)
                    ? t.secret().substring(BootstrapToken.NAME_PREFIX.length()) : t.secret();
            out.add(new JoinPath("bootstrap-token " + t.secret(), State.OPEN,
                    "bootstrap token " + id + (t.expiration() == null ? " never expires" : " valid until "
                            + t.expiration()),
                    "Secret kube-system/" + t.secret() + " (created " + t.created() + ") is accepted "
                            + (t.expiration() == null ? "for ever (no expiration)" : "until " + t.expiration())
                            + (t.groups().isEmpty() ? "" : ", groups " + String.join(",", t.groups()))
                            + ": any host holding it can join",
                    "k3s token delete " + id + " (or kubectl -n kube-system delete secret " + t.secret() + ")"));
        }
        if (out.isEmpty()) {
            out.add(new JoinPath("bootstrap-tokens", State.CLOSED, "no bootstrap token accepted",
                    refused.isEmpty() ? "no bootstrap token Secret in kube-system"
                            : "bootstrap token Secrets in kube-system, none accepted: " + String.join(", ", refused),
                    null));
        }
        return out;
    }

    /**
     * A Rancher custom node's ways back: its Machine (while it exists, the host's rancher-system-agent still holds a
     * working plan credential) and the cluster's registration tokens (running the registration command again makes
     * a new Machine). Nothing when Rancher's management cluster was not asked.
     */
    private static List<JoinPath> rancher(Subject s, ClusterEvidence ev) {
        Read<Rancher> read = ev.rancher();
        if (read == null) {
            return List.of();
        }
        if (!read.ok()) {
            return List.of(new JoinPath("rancher-registration", State.UNREAD, "Rancher's registration unreadable",
                    "Rancher's management cluster: " + read.error(), null));
        }
        Rancher r = read.value();
        List<JoinPath> out = new ArrayList<>();
        String where = r.machineNamespace() + " (cluster " + r.cluster() + ")";
        List<MachineInfo> mine = r.machines().stream().filter(m -> s.name().equals(m.nodeRefName())).toList();
        if (mine.isEmpty()) {
            out.add(new JoinPath("rancher-machine", State.CLOSED, "no Rancher Machine", "no Machine in " + where
                    + " names " + s.name() + ": the plan credential of the host's rancher-system-agent went with it",
                    null));
        } else {
            MachineInfo m = mine.get(0);
            if (s.gone()) {
                out.add(new JoinPath("rancher-machine", State.OPEN, "its Rancher Machine is still there",
                        "Machine " + m.namespace() + "/" + m.name() + " (cluster " + r.cluster() + ") still names "
                                + s.name() + ": the host's rancher-system-agent still holds a working plan "
                                + "credential", "delete the Machine " + m.namespace() + "/" + m.name()
                        + " (Rancher's Delete), then clean the host (rancher-system-agent-uninstall.sh)"));
            } else {
                out.add(new JoinPath("rancher-machine", State.NOTE, "its Rancher Machine goes with the removal",
                        "Machine " + m.namespace() + "/" + m.name() + " (cluster " + r.cluster() + "): `nodegate "
                                + "remove --machine-kubeconfig ...` deletes it, which revokes the agent's plan credential",
                        null));
            }
        }
        String close = "the quarantine (it refuses the Node the host registers); the token also connects the cluster "
                + "agent, so it is not deleted for one host";
        for (RegistrationToken t : r.tokens()) {
            String id = t.namespace() + "/" + t.name();
            String grace = t.gracePeriodEndsAt() != null && t.gracePeriodEndsAt().isAfter(ev.now())
                    ? "; the token it replaced is accepted until " + t.gracePeriodEndsAt() : "";
            String brief;
            String detail;
            if (!t.rotates()) {
                brief = "Rancher registration token " + id + " never expires";
                detail = "ClusterRegistrationToken " + id + " (created " + t.created() + ") has no expiry: Rancher "
                        + "accepts it until it is deleted, and the registration command carrying it registers any "
                        + "host as a new Machine";
            } else if (t.expiresAt() == null) {
                brief = "Rancher registration token " + id + " accepted";
                detail = "ClusterRegistrationToken " + id + ": status.expiresAt '" + t.expiresAtText() + "' does not "
                        + "parse; Rancher accepts the token its Secret holds whatever the time" + grace;
            } else if (t.expiresAt().isAfter(ev.now())) {
                brief = "Rancher registration token " + id + " valid until " + t.expiresAt();
                detail = "ClusterRegistrationToken " + id + " is rotated at " + t.expiresAt() + "; until then the "
                        + "registration command carrying it registers any host as a new Machine (a copy given out "
                        + "before a rotation stops at the end of that rotation's grace period)" + grace;
            } else {
                brief = "Rancher registration token " + id + " past its rotation, not rotated";
                detail = "ClusterRegistrationToken " + id + ": rotation was due " + t.expiresAt() + " and has not "
                        + "happened (Rancher accepts the token its Secret holds whatever the time)" + grace;
            }
            if (t.deleting()) {
                detail += "; being deleted (accepted until its token is gone)";
            }
            out.add(new JoinPath("rancher-registration " + id, State.OPEN, brief, detail, close));
        }
        if (r.tokens().isEmpty()) {
            out.add(new JoinPath("rancher-registration", State.CLOSED, "no Rancher registration token",
                    "no ClusterRegistrationToken in " + r.managementNamespace() + ": no registration command of "
                            + "cluster " + r.cluster() + " is accepted", null));
        }
        return out;
    }

    private static JoinPath nodePassword(Subject s, Read<Optional<SecretMeta>> read) {
        if (!read.ok()) {
            return new JoinPath("node-password", State.UNREAD, "node-password Secret unreadable",
                    "the node-password Secret of " + s.name() + ": " + read.error(), null);
        }
        Optional<SecretMeta> secret = read.value();
        String names = SecretMeta.nodePasswordName(s.name(), "rke2") + " / "
                + SecretMeta.nodePasswordName(s.name(), "k3s");
        if (secret.isEmpty()) {
            return new JoinPath("node-password", State.NOTE, "node-password Secret deleted",
                    "no Secret kube-system/" + names + ": the name " + s.name() + " is free for any host with a "
                            + "join credential", null);
        }
        SecretMeta m = secret.get();
        if (!s.gone()) {
            return new JoinPath("node-password", State.NOTE, "node-password Secret goes with the Node",
                    "Secret kube-system/" + m.name() + " present; it is deleted with the Node, which frees the name",
                    null);
        }
        return new JoinPath("node-password", State.NOTE, "node-password Secret kept",
                "Secret kube-system/" + m.name() + " present (created " + m.created() + "): a host with another "
                        + "password is refused under " + s.name() + ", the removed host (its /etc/rancher/node/"
                        + "password unchanged) is not, and any other name is open", null);
    }
}
