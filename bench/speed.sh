#!/usr/bin/env bash
# The live-read targets' table: live commands against the synthetic API server, nodegate before and after a change, kubectl
# and the raw LIST floor, in ONE run, interleaved round by round so machine drift hits every row alike.
#
# For each N it starts `serve --nodes N` (bench/, 127.0.0.1 only), writes a kubeconfig, and runs R rounds of:
#   floor      the LISTs nodegate needs, limit 500, bodies read but not parsed (the least any client can do)
#   kubectl    kubectl get nodes, then leases in kube-node-lease, then secrets in kube-system, -o json (the three
#              lists the issue compares with), one shell, warm discovery cache
#   kubectl-nodes  kubectl get nodes -o json alone (the yardstick for the small cluster), N < 1000 only
#   nodegate   bin/nodegate audit --kubeconfig K -o json of this checkout (the launcher, its class-data archive)
#   before     the same through BEFORE/bin/nodegate (another checkout, built; its own archive), when BEFORE is set
#   java       the same as nodegate with NODEGATE_JAVA=$ALSO_JAVA (e.g. a JDK 25's bin/java: the AOT cache's row beside
#              the class-data archive's of the java on PATH), when ALSO_JAVA is set
# and at N=7 only, the other live commands once each per round for both checkouts: baseline save, gate,
# verify-gone, redundancy, views (the server twice), fleet (the server and examples/healthy). --version is measured
# with no server.
# Each cell is the median of R runs (wall and CPU = user + system, from /usr/bin/time -v), peak RSS is the
# largest run, requests are what the server counted for one run.
#
# Usage:  bench/speed.sh [N ...]                  (default: 7 5000 20000)
# Env:    BEFORE=/path/to/checkout  (e.g. `git worktree add /tmp/ng-before <commit>` then build it there with
#                                     `mvn -q -B -o -DskipTests package`)
#         ROUNDS_SMALL (default 5, N < 1000), ROUNDS_BIG (default 3), OUT (default bench/target/speed.md)
#         ALSO_JAVA=/path/to/bin/java (see above); AUDIT_ONLY=1 skips the other live commands at N=7;
#         NO_KUBECTL=1 skips the kubectl rows (6+ minutes at 20,000 nodes on a loaded machine; their ratio to the
#         audit is measured elsewhere)
#         TIMEOUT (default 300): seconds each command may take (kubectl's three lists of 20,000 field-sized Nodes
#         take longer than that on a loaded machine)
#         LIGHT=1: the earlier, lighter Nodes (bench/lib.sh), not the field-sized ones
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(7 5000 20000)
BEFORE=${BEFORE:-}
ALSO_JAVA=${ALSO_JAVA:-}
AUDIT_ONLY=${AUDIT_ONLY:-}
ROUNDS_SMALL=${ROUNDS_SMALL:-5}
ROUNDS_BIG=${ROUNDS_BIG:-3}
OUT=${OUT:-$ROOT/bench/target/speed.md}
BENCH_JAR=$ROOT/bench/target/nodegate-bench.jar

for tool in java curl jq mvn kubectl; do
  command -v "$tool" >/dev/null || { echo "speed.sh: $tool is required" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "speed.sh: /usr/bin/time is required (Debian package 'time')" >&2; exit 2; }
if [ -n "$BEFORE" ] && [ ! -x "$BEFORE/bin/nodegate" ]; then
  echo "speed.sh: BEFORE=$BEFORE has no bin/nodegate" >&2; exit 2
fi

mvn -q -B -o -DskipTests package
mvn -q -B -o -f bench/pom.xml package
# Both launchers make their class-data archive now, so the rows show a user's second and later runs.
"$ROOT/bin/nodegate" audit -f "$ROOT/examples/healthy" -o json >/dev/null || true
[ -n "$ALSO_JAVA" ] && { NODEGATE_JAVA="$ALSO_JAVA" "$ROOT/bin/nodegate" audit -f "$ROOT/examples/healthy" -o json >/dev/null || true; }
[ -n "$BEFORE" ] && { "$BEFORE/bin/nodegate" audit -f "$BEFORE/examples/healthy" -o json >/dev/null || true; }

WORK=$(mktemp -d /tmp/nodegate-speed.XXXXXX)
SERVER_PID=
. "$ROOT/bench/lib.sh"
cleanup() { stop_server; rm -rf "$WORK"; }
trap cleanup EXIT

median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) {print "-"} else if (NR%2) {print a[(NR+1)/2]} else {printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}}'; }

# run KEY cmd... : one timed run, appended to $WORK/KEY.{wall,cpu,rss,req}; a failing command (exit > 1; audit
# exits 1 on findings, gate 4/5 on HOLD/FAIL) is recorded in $WORK/KEY.err
run() {
  local key=$1; shift
  [ -n "${SERVER:-}" ] && reset
  local rc=0
  timeout "${TIMEOUT:-300}" /usr/bin/time -v -o "$WORK/time.txt" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
  if [ "$rc" -gt 5 ] || { [ "$rc" -ge 2 ] && [ "$rc" -le 3 ]; }; then
    echo "exit $rc: $(head -c 160 "$WORK/err" | tr '\n' ' ')" >"$WORK/$key.err"
  fi
  wall_of "$WORK/time.txt" >>"$WORK/$key.wall"; echo >>"$WORK/$key.wall"
  cpu_of "$WORK/time.txt" >>"$WORK/$key.cpu"; echo >>"$WORK/$key.cpu"
  rss_of "$WORK/time.txt" >>"$WORK/$key.rss"; echo >>"$WORK/$key.rss"
  if [ -n "${SERVER:-}" ]; then requests >"$WORK/$key.req"; else echo 0 >"$WORK/$key.req"; fi
}

ROWS=()
# row N WHAT KEY NOTE
row() {
  local n=$1 what=$2 key=$3 note=$4
  [ -f "$WORK/$key.wall" ] || return 0
  local wall cpu rss req runs err=""
  wall=$(grep -v '^$' "$WORK/$key.wall" | median)
  cpu=$(grep -v '^$' "$WORK/$key.cpu" | median)
  rss=$(grep -v '^$' "$WORK/$key.rss" | sort -n | tail -1)
  req=$(cat "$WORK/$key.req")
  runs=$(grep -vc '^$' "$WORK/$key.wall")
  [ -f "$WORK/$key.err" ] && err="; FAILED: $(cat "$WORK/$key.err")"
  ROWS+=("| $n | $what | $wall | $cpu | $rss | $req | $runs | $note$err |")
  printf '%-6s %-22s wall %7s cpu %6s rss %5s req %5s\n' "$n" "$what" "$wall" "$cpu" "$rss" "$req" >&2
}

kubectl_three() {
  kubectl --kubeconfig "$1" --cache-dir "$2" get nodes -o json >/dev/null &&
  kubectl --kubeconfig "$1" --cache-dir "$2" -n kube-node-lease get leases -o json >/dev/null &&
  kubectl --kubeconfig "$1" --cache-dir "$2" -n kube-system get secrets -o json >/dev/null
}
export -f kubectl_three

for N in "${SIZES[@]}"; do
  rm -f "$WORK"/*.wall "$WORK"/*.cpu "$WORK"/*.rss "$WORK"/*.req "$WORK"/*.err
  start_server "$N" 1800
  kubectl --kubeconfig "$KC" --cache-dir "$WORK/kcache" get --raw /version >/dev/null
  rounds=$ROUNDS_BIG; [ "$N" -lt 1000 ] && rounds=$ROUNDS_SMALL
  names=$(curl -sf "$SERVER/api/v1/nodes?limit=20" | jq -r '.items[].metadata.name')
  control=$(echo "$names" | head -1)
  target=$(echo "$names" | grep worker | head -1)

  # baselines for gate and verify-gone (not timed), one per checkout
  for side in after before; do
    launcher=$ROOT/bin/nodegate; [ "$side" = before ] && launcher=$BEFORE/bin/nodegate
    [ "$side" = before ] && [ -z "$BEFORE" ] && continue
    [ "$N" -lt 1000 ] && "$launcher" baseline save --kubeconfig "$KC" --targets "$target" --control "$control" \
      --out "$WORK/baseline-$side.json" --evidence-dir "$WORK/evidence-$side" >/dev/null 2>&1 || true
  done

  echo "N=$N, $rounds rounds: $(cat "$WORK/server.log")" >&2
  for r in $(seq "$rounds"); do
    run floor java -jar "$BENCH_JAR" floor --server "$SERVER"
    [ -z "${NO_KUBECTL:-}" ] && run kubectl bash -c "kubectl_three '$KC' '$WORK/kcache'"
    [ "$N" -lt 1000 ] && [ -z "${NO_KUBECTL:-}" ] && run kubectl-nodes kubectl --kubeconfig "$KC" --cache-dir "$WORK/kcache" get nodes -o json
    [ -n "$ALSO_JAVA" ] && run audit-java env NODEGATE_JAVA="$ALSO_JAVA" "$ROOT/bin/nodegate" audit --kubeconfig "$KC" -o json
    for side in after before; do
      launcher=$ROOT/bin/nodegate; [ "$side" = before ] && launcher=$BEFORE/bin/nodegate
      [ "$side" = before ] && [ -z "$BEFORE" ] && continue
      run "audit-$side" "$launcher" audit --kubeconfig "$KC" -o json
      if [ "$N" -lt 1000 ] && [ -z "$AUDIT_ONLY" ]; then
        run "baseline-$side" "$launcher" baseline save --kubeconfig "$KC" --targets "$target" --control "$control" \
          --out "$WORK/b-$side-$r.json" --evidence-dir "$WORK/ev-$side-$r"
        run "gate-$side" "$launcher" gate "$target" --kubeconfig "$KC" --baseline "$WORK/baseline-$side.json" \
          --removed-at 2026-01-01T00:00:00Z -o json
        run "verify-$side" "$launcher" verify-gone --kubeconfig "$KC" --baseline "$WORK/baseline-$side.json" -o json
        run "redundancy-$side" "$launcher" redundancy --kubeconfig "$KC" -o json
        run "views-$side" "$launcher" views --kubeconfig "$KC" --kubeconfig "$KC" -o json
        run "fleet-$side" "$launcher" fleet --kubeconfig "$KC" -f "$ROOT/examples/healthy" -o json
      fi
    done
  done

  row "$N" "floor (raw LISTs)" floor "bodies read, not parsed"
  row "$N" "kubectl (3 lists)" kubectl "kubectl get nodes; -n kube-node-lease get leases; -n kube-system get secrets; -o json"
  row "$N" "nodegate audit (after)" audit-after "bin/nodegate audit --kubeconfig K -o json"
  row "$N" "nodegate audit (before)" audit-before "BEFORE/bin/nodegate, same command"
  row "$N" "kubectl get nodes" kubectl-nodes "kubectl get nodes -o json"
  row "$N" "nodegate audit (after, ALSO_JAVA)" audit-java "NODEGATE_JAVA=$ALSO_JAVA bin/nodegate, same command"
  for cmd in baseline gate verify redundancy views fleet; do
    row "$N" "$cmd (after)" "$cmd-after" ""
    row "$N" "$cmd (before)" "$cmd-before" ""
  done
  stop_server
done

SERVER=
for r in $(seq "$ROUNDS_SMALL"); do
  run version-after "$ROOT/bin/nodegate" --version
  [ -n "$BEFORE" ] && run version-before "$BEFORE/bin/nodegate" --version
done
row "-" "--version (after)" version-after ""
row "-" "--version (before)" version-before ""

{
  echo "<!-- bench/speed.sh ${SIZES[*]} on $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load average at end:$(cut -d" " -f1-3 /proc/loadavg | sed "s/^/ /"), java on PATH: $(java -version 2>&1 | head -1)${ALSO_JAVA:+, ALSO_JAVA: $("$ALSO_JAVA" -version 2>&1 | head -1)}${BEFORE:+, before = $(git -C "$BEFORE" rev-parse --short HEAD)}, after = $(git rev-parse --short HEAD); bin/nodegate runs the java on PATH unless JAVA_HOME is 25+ or NODEGATE_JAVA is set -->"
  echo "| N | what | wall s (median) | CPU s (median) | peak RSS MB | requests | runs | note |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${ROWS[@]}"
} >"$OUT"
echo "written to $OUT" >&2
cat "$OUT"
