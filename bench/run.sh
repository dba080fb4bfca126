#!/usr/bin/env bash
# nodegate benchmark harness (performance, not a unit test).
#
# For each cluster size N it starts the synthetic API server (bench/, JDK HttpServer on 127.0.0.1 only, which
# answers LISTs with limit/continue pagination and counts requests), writes a kubeconfig pointing at it, and
# measures wall time, peak RSS (/usr/bin/time -v "Maximum resident set size") and HTTP requests of:
#   floor      the LISTs nodegate needs, paginated (limit 500), bodies read but not parsed: the least any
#              client can do
#   fabric8-list  the same LISTs through fabric8 (nodegate.jar's classpath), parsed into typed objects and
#              all kept in memory: what a live source costs before any detector runs
#   seed-get   the seed's method: list node names, then one GET per node, sequential, in one JVM
#   seed-kubectl  the same with one `kubectl get node X -o json` process per node, on a sample of nodes,
#              extrapolated to N (running 5,000 kubectl processes would take many minutes)
#   kubectl-list  `kubectl get nodes -o json` (chunked LIST of nodes only), for reference
#   audit      `java -jar target/nodegate.jar audit --kubeconfig K -o json`, the real CLI; skipped with a
#              note while the audit command is not merged
# and, once, `java -jar target/nodegate.jar --version`.
#
# Usage: bench/run.sh [N ...]            (default: 500 5000)
# Env:   NODEGATE_JAR (default target/nodegate.jar, built with `mvn -o -DskipTests package` if missing),
#        KUBECTL_SAMPLE (default 50), OUT (default bench/target/last-run.md),
#        BASELINE_JAR (optional: another nodegate.jar, e.g. built from an older commit, measured in the same run
#        with the same flags, so before/after compare on equal load),
#        ONLY (optional: ONLY=audit runs only the audit and --version rows)
# Load stays on loopback; every command has a timeout; the server stops itself after 600 s regardless.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(500 5000)
NODEGATE_JAR=${NODEGATE_JAR:-$ROOT/target/nodegate.jar}
BENCH_JAR=$ROOT/bench/target/nodegate-bench.jar
KUBECTL_SAMPLE=${KUBECTL_SAMPLE:-50}
BASELINE_JAR=${BASELINE_JAR:-}
ONLY=${ONLY:-all}
OUT=${OUT:-$ROOT/bench/target/last-run.md}
CMD_TIMEOUT=300
# A short-lived CLI on 2 cores: C2 compiler threads and a concurrent GC compete with the work itself.
FAST_JVM="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"

if [ ! -x /usr/bin/time ]; then
  # GNU time gives peak RSS; the shell keyword `time` does not.
  echo "run.sh: /usr/bin/time is missing; installing the Debian package 'time' (apt-get install -y time)" >&2
  apt-get install -y time >/dev/null
fi
for tool in java curl jq mvn; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is required" >&2; exit 2; }
done

if [ ! -f "$ROOT/target/nodegate.jar" ]; then
  echo "building target/nodegate.jar ..." >&2
  mvn -q -B -o -DskipTests package
fi
# bench/ compiles against target/nodegate.jar (WatchProcess), so the jar comes first
echo "building bench/ (separate Maven project)..." >&2
mvn -q -B -o -f bench/pom.xml package
# The launcher rebuilds a stale jar and makes its class-data archive on first use: do both before measuring,
# so the audit rows show a user's second and later runs (the first run after a build is timed once below).
if [ "$NODEGATE_JAR" = "$ROOT/target/nodegate.jar" ]; then
  rm -f "$ROOT/target/nodegate.jsa"
  start=$(date +%s.%N)
  # any command but --version makes the archive (--version alone skips it)
  "$ROOT/bin/nodegate" audit -f "$ROOT/examples/healthy" -o json >/dev/null
  FIRST_RUN=$(echo "$(date +%s.%N) - $start" | bc)
else
  echo "run.sh: NODEGATE_JAR is not $ROOT/target/nodegate.jar; the bin/nodegate rows measure the checkout's jar" >&2
  FIRST_RUN=
fi

WORK=$(mktemp -d /tmp/nodegate-bench.XXXXXX)
SERVER_PID=
. "$ROOT/bench/lib.sh"
cleanup() { stop_server; rm -rf "$WORK"; }
trap cleanup EXIT

ROWS=()
row() { ROWS+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); printf '%-6s %-14s %9s %9s %8s  %s\n' "$1" "$2" "$3" "$4" "$5" "$6" >&2; }

# measure LABEL N NOTE cmd... : one row with wall s, peak RSS MB, requests seen by the server
measure() {
  local label=$1 n=$2 note=$3; shift 3
  reset
  local rc=0
  timeout "$CMD_TIMEOUT" /usr/bin/time -v -o "$WORK/time.txt" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
  if [ "$rc" -ne 0 ] && ! { [ "$label" = audit ] && [ "$rc" -le 1 ]; }; then
    note="$note; EXIT $rc: $(head -c 200 "$WORK/err" | tr '\n' ' ')"
  fi
  row "$n" "$label" "$(wall_of "$WORK/time.txt")" "$(rss_of "$WORK/time.txt")" "$(requests)" \
    "$note; cpu $(cpu_of "$WORK/time.txt") s"
}

audit_available() {
  local help
  help=$(java -jar "$NODEGATE_JAR" audit --help 2>&1) || return 1
  [[ $help != *"not implemented"* ]]
}

for N in "${SIZES[@]}"; do
  start_server "$N"
  echo "N=$N: $(cat "$WORK/server.log")" >&2

  if [ "$ONLY" != audit ]; then
    measure floor "$N" "paginated LISTs, limit 500, not parsed" java -jar "$BENCH_JAR" floor --server "$SERVER"
    measure fabric8-list "$N" "same LISTs parsed into typed fabric8 objects, all kept; default JVM flags" \
      java -cp "$BENCH_JAR:$NODEGATE_JAR" io.nodegate.bench.Fabric8Floor "$KC"
    measure fabric8-list "$N" "same, with $FAST_JVM" \
      java $FAST_JVM -cp "$BENCH_JAR:$NODEGATE_JAR" io.nodegate.bench.Fabric8Floor "$KC"
    measure fabric8-list "$N" "same, $FAST_JVM, each page dropped after parsing (page-by-page mapping)" \
      java $FAST_JVM -cp "$BENCH_JAR:$NODEGATE_JAR" io.nodegate.bench.Fabric8Floor "$KC" --drop
    measure seed-get "$N" "N/500 name pages + N GETs, one JVM, sequential" \
      java -jar "$BENCH_JAR" per-node-get --server "$SERVER"

    if command -v kubectl >/dev/null; then
      # warm kubectl's discovery cache once, as a user's shell would have it
      kubectl --kubeconfig "$KC" --cache-dir "$WORK/kcache" get --raw /version >/dev/null
      reset
      sample=$KUBECTL_SAMPLE; [ "$sample" -gt "$N" ] && sample=$N
      start=$(date +%s.%N); maxrss=0
      for i in $(seq 3 $((sample + 2))); do
        node=$(printf 'worker-%05d' "$i")
        timeout 30 /usr/bin/time -v -o "$WORK/time.txt" kubectl --kubeconfig "$KC" \
          --cache-dir "$WORK/kcache" get node "$node" -o json >/dev/null 2>>"$WORK/err"
        r=$(rss_of "$WORK/time.txt"); [ "$r" -gt "$maxrss" ] && maxrss=$r
      done
      took=$(echo "$(date +%s.%N) - $start" | bc)
      reqs=$(requests)
      est=$(echo "scale=1; $took * $N / $sample" | bc)
      row "$N" seed-kubectl "~$est" "$maxrss" "~$(( reqs * N / sample ))" \
        "extrapolated from $sample kubectl processes (${took%.*} s, $reqs requests); RSS per process"
      measure kubectl-list "$N" "kubectl get nodes -o json (nodes only)" \
        kubectl --kubeconfig "$KC" --cache-dir "$WORK/kcache" get nodes -o json
    fi
  fi

  if audit_available; then
    measure audit "$N" "bin/nodegate audit -o json (the launcher: $FAST_JVM, class-data archive)" \
      "$ROOT/bin/nodegate" audit --kubeconfig "$KC" -o json
    measure audit "$N" "java -jar nodegate.jar audit -o json (default JVM flags)" \
      java -jar "$NODEGATE_JAR" audit --kubeconfig "$KC" -o json
    measure audit "$N" "java -jar nodegate.jar audit -o json with $FAST_JVM" \
      java $FAST_JVM -jar "$NODEGATE_JAR" audit --kubeconfig "$KC" -o json
    if [ -n "$BASELINE_JAR" ]; then
      measure audit "$N" "BASELINE $(basename "$BASELINE_JAR") audit -o json with $FAST_JVM" \
        java $FAST_JVM -jar "$BASELINE_JAR" audit --kubeconfig "$KC" -o json
    fi
  else
    row "$N" audit "-" "-" "-" "NOT MEASURED: the audit command is not implemented in $(basename "$NODEGATE_JAR") yet"
  fi

  stop_server
done

version_row() { # NOTE cmd... : median of 3 runs (NOTE may be empty)
  local note=$1; shift
  for i in 1 2 3; do
    /usr/bin/time -v -o "$WORK/v$i.txt" "$@" >/dev/null
  done
  walls=$(for i in 1 2 3; do wall_of "$WORK/v$i.txt"; echo; done | sort -n | tr '\n' ' ')
  row "-" "--version" "$(echo "$walls" | awk '{print $2}')" "$(rss_of "$WORK/v2.txt")" "0" \
    "${note:+$note; }median of 3 runs: $walls"
}
if [ -n "$FIRST_RUN" ]; then
  row "-" "first run" "$(printf '%.2f' "$FIRST_RUN")" "-" "0" "bin/nodegate audit -f examples/healthy right after a build: makes the class-data archive (training run), once"
fi
version_row "bin/nodegate --version (launcher)" "$ROOT/bin/nodegate" --version
version_row "" java -jar "$NODEGATE_JAR" --version
version_row "with $FAST_JVM" java $FAST_JVM -jar "$NODEGATE_JAR" --version

{
  echo "<!-- written by bench/run.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load average at end:$(cut -d" " -f1-3 /proc/loadavg | sed "s/^/ /"), $(java -version 2>&1 | head -1) -->"
  echo "| N | what | wall s | peak RSS MB | HTTP requests | note |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${ROWS[@]}"
} >"$OUT"
echo "written to $OUT" >&2
cat "$OUT"
