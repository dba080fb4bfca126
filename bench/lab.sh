#!/usr/bin/env bash
# nodegate against the lab's real kube-apiserver (performance, not a unit test): N field-sized Nodes registered
# through the API, then the audit beside `kubectl get nodes`, and the watch's memory.
#
# For each N: `bin/lab up` with no simulated kubelets (docs/lab.md), its controller manager stopped once the lab is up
# (with no kubelet behind them, the node lifecycle controller would mark every Node Unknown and taint it 50 s later: a
# write storm of N updates that is not what is measured here); `Bench dump --nodes N` (the synthetic cluster's
# field-sized GPU Nodes, varied per node, bench/RESULTS.md) registered by bench/lab_register.py: each Node POSTed
# with its status as a kubelet registers it, its Lease in kube-node-lease, its node-password Secret. The Leases are
# not renewed (no kubelets): the watch sees no events after its LISTs, so its RSS here is the cache at rest.
#
# Rows, under /usr/bin/time -v (wall, user + system CPU, peak RSS), ROUNDS times each, interleaved:
#   kubectl    kubectl get nodes -o json (chunked by kubectl: 500)
#   audit      bin/nodegate audit --kubeconfig K --request-timeout 60s -o json (this checkout's launcher)
#   before     BEFORE/bin/nodegate, same command (when BEFORE is set: a checkout built at an older commit)
# then the watch: bench/watch.sh with LAB_KUBECONFIG (this checkout's jar; with BEFORE also BEFORE's jar and bench
# jar), DURATION seconds after /readyz, WATCH_JVM as watch.sh takes it.
#
# Usage: bench/lab.sh [N...]            (default: 500 5000)
# Env:   BEFORE (a built checkout), ROUNDS (default 3), DURATION (default 60), WATCH_JVM, PARALLEL (registration
#        connections, default 6), OUT (default bench/target/lab-last-run.md), KEEP (set: leave the last lab up)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(500 5000)
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-60}
PARALLEL=${PARALLEL:-6}
BEFORE=${BEFORE:-}
OUT=${OUT:-$ROOT/bench/target/lab-last-run.md}
export WATCH_JVM=${WATCH_JVM:-"-XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError -XX:-UsePerfData -Xmx1g"}

for tool in java kubectl python3 /usr/bin/time go; do
  command -v "$tool" >/dev/null || { echo "lab.sh: $tool is required" >&2; exit 2; }
done
for n in "${SIZES[@]}"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "lab.sh: '$n' is not a number of nodes" >&2; exit 2; }
done
if [ -n "$BEFORE" ]; then
  for f in "$BEFORE/bin/nodegate" "$BEFORE/target/nodegate.jar" "$BEFORE/bench/target/nodegate-bench.jar"; do
    [ -e "$f" ] || { echo "lab.sh: BEFORE=$BEFORE has no $f (build it and its bench/ there)" >&2; exit 2; }
  done
fi
LAB_BIN=$(bin/lab build)
[ -x "$LAB_BIN/bin/kube-apiserver" ] || { echo "lab.sh: no kube-apiserver in $LAB_BIN" >&2; exit 2; }
[ -f target/nodegate.jar ] || mvn -q -B -o -DskipTests package
mvn -q -B -o -f bench/pom.xml package
BENCH_JAR=$ROOT/bench/target/nodegate-bench.jar
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

WORK=$(mktemp -d /tmp/nodegate-lab-bench.XXXXXX)
LAB=
cleanup() {
  if [ -n "$LAB" ] && [ -z "${KEEP:-}" ]; then bin/lab down "$LAB" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

# the launchers' class-data archives, made before anything is timed
bin/nodegate --version >/dev/null
[ -n "$BEFORE" ] && "$BEFORE/bin/nodegate" --version >/dev/null

mkdir -p "$(dirname "$OUT")"
{
  echo "<!-- bench/lab.sh ${SIZES[*]} started $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg), after = $(git rev-parse --short HEAD)${BEFORE:+, before = $(git -C "$BEFORE" rev-parse --short HEAD)}, lab: $(basename "$LAB_BIN") -->"
  echo "| N | what | wall s (median) | CPU s (median) | peak RSS MB (median) | runs | exit |"
  echo "|---|---|---|---|---|---|---|"
} > "$OUT"
WATCH_OUT=$WORK/watch.md
: > "$WATCH_OUT"

timed() { # NAME ROUND COMMAND...: /usr/bin/time -v into WORK/NAME.ROUND, stdout discarded
  local name=$1 round=$2; shift 2
  local rc=0
  timeout 900 /usr/bin/time -v -o "$WORK/$name.$round" "$@" >/dev/null 2>"$WORK/$name.$round.err" || rc=$?
  echo "$rc" > "$WORK/$name.$round.rc"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
row() { # N LABEL NAME
  local n=$1 label=$2 name=$3 w c r rcs
  w=$(for i in $(seq "$ROUNDS"); do wall_of "$WORK/$name.$i"; echo; done | median)
  c=$(for i in $(seq "$ROUNDS"); do cpu_of "$WORK/$name.$i"; echo; done | median)
  r=$(for i in $(seq "$ROUNDS"); do rss_of "$WORK/$name.$i"; echo; done | median)
  rcs=$(for i in $(seq "$ROUNDS"); do cat "$WORK/$name.$i.rc"; done | sort -u | tr '\n' ' ')
  echo "| $n | $label | $w | $c | $r | $ROUNDS | $rcs|" >> "$OUT"
}

for N in "${SIZES[@]}"; do
  LAB=$WORK/lab-$N
  echo "lab.sh: $N nodes: bin/lab up $LAB --nodes 0 --servers 0 ($(uptime))" >&2
  bin/lab up "$LAB" --nodes 0 --servers 0 >&2
  kill "$(cat "$LAB/pids/kube-controller-manager.pid")" 2>/dev/null || true
  KC=$LAB/kubeconfig
  # stamped now: the Nodes' heartbeats and the Leases' renewals are as fresh as the synthetic server's are
  java -Xmx3g -jar "$BENCH_JAR" dump --nodes "$N" --out "$WORK/dump-$N.json" --now "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  reg_start=$(date +%s)
  python3 bench/lab_register.py "$WORK/dump-$N.json" "$LAB" "$PARALLEL" | tee "$WORK/register-$N.txt" >&2
  echo "<!-- $N: registered in $(( $(date +%s) - reg_start )) s: $(tr '\n' ';' < "$WORK/register-$N.txt") -->" >> "$OUT"
  rm -f "$WORK/dump-$N.json"
  got=$(kubectl --kubeconfig "$KC" get nodes -o name | wc -l)
  [ "$got" -eq "$N" ] || { echo "lab.sh: $got Nodes registered, $N expected" >&2; exit 3; }
  one=$(kubectl --kubeconfig "$KC" get nodes -o json --chunk-size 500 | wc -c)
  echo "<!-- $N: kubectl get nodes -o json: $one bytes ($(( one / N )) per Node, with the server's managedFields) -->" >> "$OUT"

  for i in $(seq "$ROUNDS"); do
    timed "kubectl-$N" "$i" kubectl --kubeconfig "$KC" get nodes -o json
    # --request-timeout 60s: on a loaded 2-core machine the apiserver has been seen to take over 10 s (the default)
    timed "audit-$N" "$i" bin/nodegate audit --kubeconfig "$KC" --request-timeout 60s -o json
    [ -n "$BEFORE" ] && timed "before-$N" "$i" "$BEFORE/bin/nodegate" audit --kubeconfig "$KC" --request-timeout 60s -o json
  done
  row "$N" "kubectl get nodes -o json" "kubectl-$N"
  row "$N" "nodegate audit (after)" "audit-$N"
  [ -n "$BEFORE" ] && row "$N" "nodegate audit (before)" "before-$N"

  if [ -n "$BEFORE" ]; then
    echo "#### $N nodes, watch before ($BEFORE)" >> "$WATCH_OUT"
    LAB_KUBECONFIG=$KC LIVE_HEAP=1 NODEGATE_JAR=$BEFORE/target/nodegate.jar \
      BENCH_JAR=$BEFORE/bench/target/nodegate-bench.jar OUT=$WORK/w.md bench/watch.sh "$N" "$DURATION" >/dev/null
    cat "$WORK/w.md" >> "$WATCH_OUT"
  fi
  echo "#### $N nodes, watch after" >> "$WATCH_OUT"
  LAB_KUBECONFIG=$KC LIVE_HEAP=1 BENCH_JAR=$BENCH_JAR OUT=$WORK/w.md bench/watch.sh "$N" "$DURATION" >/dev/null
  cat "$WORK/w.md" >> "$WATCH_OUT"

  if [ -z "${KEEP:-}" ] || [ "$N" != "${SIZES[-1]}" ]; then bin/lab down "$LAB" >&2; LAB=; fi
done
{ echo; cat "$WATCH_OUT"; echo; echo "<!-- ended $(date -u +%Y-%m-%dT%H:%M:%SZ), load average: $(cut -d' ' -f1-3 /proc/loadavg) -->"; } >> "$OUT"
cat "$OUT"
echo "logs: $WORK" >&2
