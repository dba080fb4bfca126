#!/usr/bin/env bash
# nodegate watch benchmark (performance, not a unit test): N Nodes whose Leases renew every 10 s (N/10 MODIFIED
# events per second on the Lease watch), for DURATION seconds after the informers synced.
#
# Starts the synthetic API server (bench/, `serve --renew-every 10s`: LIST with pagination and HTTP watches) and,
# in its own JVM with the Deployment's flags, nodegate watch's service (`WatchProcess`: the real WatchService,
# informers, passes every --interval and after changes, HTTP). Samples that JVM's CPU (utime+stime from
# /proc/PID/stat) and RSS (VmRSS) every second, takes the sync time (start -> /readyz 200), and reads the pass
# times from its /metrics histogram at the end.
#
# Event -> metric latency (target: p99 <= 2 s): while the CPU is sampled, a sampler in its own JVM
# (`Bench sample`, bench/src/.../MetricLatency.java) scrapes /metrics every SCRAPE_EVERY and times each change it shows
# against its event: a Lease renewal against its renewTime (stamped by the server when it sends it), a Node's Ready
# flip (the server flips one live Node every FLIP_EVERY, alternately to False and back) against the time the server
# sent it. Each latency is an upper bound, with the scrape interval as resolution. The watch's CPU includes rendering
# those scrapes (5,000 Lease series and 5,000 host series each): SCRAPE_EVERY=0 measures it without the sampler.
#
# Usage: bench/watch.sh [N] [DURATION_SECONDS]      (default: 5000 300)
# Env:   INTERVAL (default 15s), OUT (default bench/target/watch-last-run.md),
#        NODEGATE_JAR (default target/nodegate.jar: e.g. a jar built from an earlier commit, for a before/after run),
#        WATCH_JVM (the watch JVM's flags; default: the Deployment's, see below),
#        RENEW_EVERY (default 10s; e.g. 100000s for next to no Lease events, to split the watch's CPU between the
#        events and the rest; the server serves watches only with renewals on),
#        DEBOUNCE (default 1s, nodegate watch's default --debounce), FLIP_EVERY (default 5s; 0s: no Node flips),
#        NODE_STATUS_EVERY (default 0s: off; 300s is a kubelet's nodeStatusReportFrequency, every live Node's status
#        posted once per 5 min with only lastHeartbeatTime moved, ~17 Node updates/s at 5,000 nodes),
#        SCRAPE_EVERY (default 250ms; 0: no sampler), LIGHT (set: the earlier, lighter Nodes, not the field-sized ones),
#        BENCH_JAR (default: bench/ built here; the bench jar built beside NODEGATE_JAR's commit, when the two
#        commits' class names differ), LIVE_HEAP (set: after the measured window, a full GC with `jcmd PID GC.run`
#        and the heap it leaves, `GC.heap_info`, and the 40 biggest classes then, `GC.class_histogram`, kept as
#        class-histogram.txt beside the logs; after the RSS samples, so it does not move them),
#        LAB_KUBECONFIG (set: no synthetic server; the watch reads the cluster of this kubeconfig's current context,
#        e.g. the lab's real kube-apiserver (bench/lab.sh): N is then only a label, and there is no latency sampler
#        and no server-side event count)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
N=${1:-5000}
DURATION=${2:-300}
INTERVAL=${INTERVAL:-15s}
OUT=${OUT:-$ROOT/bench/target/watch-last-run.md}
JAR=${NODEGATE_JAR:-$ROOT/target/nodegate.jar}
# what the Deployment runs (its command, the image's ENTRYPOINT; DockerfileTest keeps the three equal), under its
# limits: this machine has no container limit, so -XX:MaxRAM is the Deployment's memory limit (the JVM then sizes
# the heap from it as from the container's) and -XX:ActiveProcessorCount its CPU limit
WATCH_JVM=${WATCH_JVM:-"-XX:+UseSerialGC -XX:MaxRAMPercentage=50 -XX:NewRatio=5 -XX:+ExitOnOutOfMemoryError -XX:-UsePerfData -XX:MaxRAM=512m -XX:ActiveProcessorCount=1"}

for tool in java curl mvn; do
  command -v "$tool" >/dev/null || { echo "watch.sh: $tool is required" >&2; exit 2; }
done
if [ -z "${NODEGATE_JAR:-}" ] && [ ! -f target/nodegate.jar ]; then
  echo "building target/nodegate.jar ..." >&2
  mvn -q -B -o -DskipTests package
fi
if [ -z "${BENCH_JAR:-}" ]; then
  echo "building bench/ ..." >&2
  mvn -q -B -o -f bench/pom.xml package
  BENCH_JAR=$ROOT/bench/target/nodegate-bench.jar
fi

WORK=$(mktemp -d /tmp/nodegate-watch-bench.XXXXXX)
SERVER_PID=
WATCH_PID=
SAMPLER_PID=
cleanup() {
  [ -n "$WATCH_PID" ] && kill "$WATCH_PID" 2>/dev/null || true
  [ -n "$SAMPLER_PID" ] && kill "$SAMPLER_PID" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
}
trap cleanup EXIT

RENEW_EVERY=${RENEW_EVERY:-10s}
DEBOUNCE=${DEBOUNCE:-1s}
FLIP_EVERY=${FLIP_EVERY:-5s}
NODE_STATUS_EVERY=${NODE_STATUS_EVERY:-0s}
SCRAPE_EVERY=${SCRAPE_EVERY:-250ms}
if [ -n "${LAB_KUBECONFIG:-}" ]; then
  [ -f "$LAB_KUBECONFIG" ] || { echo "watch.sh: LAB_KUBECONFIG $LAB_KUBECONFIG is not a file" >&2; exit 2; }
  SCRAPE_EVERY=0
  TARGET=(--kubeconfig "$LAB_KUBECONFIG")
  HTTP_PORT=$(( (RANDOM % 20000) + 30000 ))
else
  java -cp "$BENCH_JAR" io.nodegate.bench.Bench serve --nodes "$N" ${LIGHT:+--light} --renew-every "$RENEW_EVERY" --port-file "$WORK/port" \
    --flip-ready-every "$FLIP_EVERY" --node-status-every "$NODE_STATUS_EVERY" \
    --max-seconds $((DURATION + 900)) 2>"$WORK/server.log" &
  SERVER_PID=$!
  # a 20,000-node server takes minutes to start on a loaded machine
  for _ in $(seq 1 3000); do [ -f "$WORK/port" ] && break; kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.2; done
  [ -f "$WORK/port" ] || { echo "watch.sh: the benchmark server did not start; log:" >&2; tail -5 "$WORK/server.log" >&2; exit 3; }
  PORT=$(cat "$WORK/port")
  SERVER=http://127.0.0.1:$PORT
  TARGET=(--server "$SERVER")
  HTTP_PORT=$(( (PORT % 20000) + 30000 ))
fi

start=$(date +%s.%N)
# shellcheck disable=SC2086
echo "watch JVM: $WATCH_JVM; jar: $JAR; load before: $(uptime)" >&2
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
java $WATCH_JVM -cp "$JAR:$BENCH_JAR" io.nodegate.bench.Bench watch "${TARGET[@]}" \
  --listen-port "$HTTP_PORT" --interval "$INTERVAL" --debounce "$DEBOUNCE" 2>"$WORK/watch.log" &
WATCH_PID=$!
TICK=$(getconf CLK_TCK)

cpu_ticks() { awk '{print $14 + $15}' "/proc/$WATCH_PID/stat"; }
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$WATCH_PID/status"; }

SYNC=
for _ in $(seq 1 3000); do
  if curl -fs "http://127.0.0.1:$HTTP_PORT/readyz" >/dev/null 2>&1; then
    SYNC=$(echo "$(date +%s.%N) - $start" | bc)
    break
  fi
  kill -0 "$WATCH_PID" 2>/dev/null || { echo "watch died:"; tail -20 "$WORK/watch.log"; exit 3; }
  sleep 0.2
done
[ -n "$SYNC" ] || { echo "watch did not become ready; log:"; tail -20 "$WORK/watch.log"; exit 3; }
SYNC_CPU=$(echo "scale=2; $(cpu_ticks) / $TICK" | bc)
RSS_AT_SYNC=$(rss_kb)
curl -fs "http://127.0.0.1:$HTTP_PORT/metrics" > "$WORK/metrics-at-sync.txt"

if [ "$SCRAPE_EVERY" != 0 ]; then
  java -Xmx128m -XX:+UseSerialGC -cp "$BENCH_JAR" io.nodegate.bench.Bench sample \
    --metrics "http://127.0.0.1:$HTTP_PORT/metrics" --server "$SERVER" --seconds "$DURATION" \
    --every "$SCRAPE_EVERY" >"$WORK/latency.txt" 2>"$WORK/sampler.log" &
  SAMPLER_PID=$!
fi
c0=$(cpu_ticks)
t0=$(date +%s.%N)
PEAK=0
SUM=0
SAMPLES=0
for _ in $(seq 1 "$DURATION"); do
  sleep 1
  r=$(rss_kb)
  SUM=$((SUM + r)); SAMPLES=$((SAMPLES + 1))
  [ "$r" -gt "$PEAK" ] && PEAK=$r
done
c1=$(cpu_ticks)
t1=$(date +%s.%N)
RSS_END=$(rss_kb)
if [ -n "$SAMPLER_PID" ]; then wait "$SAMPLER_PID" || { echo "sampler failed:"; cat "$WORK/sampler.log"; }; SAMPLER_PID=; fi
curl -fs "http://127.0.0.1:$HTTP_PORT/metrics" > "$WORK/metrics-at-end.txt"
LIVE=
if [ -n "${LIVE_HEAP:-}" ]; then
  jcmd "$WATCH_PID" GC.run >/dev/null
  jcmd "$WATCH_PID" GC.heap_info > "$WORK/heap-after-full-gc.txt"
  # serial GC: "def new generation total ..K, used ..K" and "tenured generation total ..K, used ..K"
  LIVE=$(awk '/generation/ {for (i = 1; i < NF; i++) if ($i == "used") {gsub(/[^0-9]/, "", $(i+1)); s += $(i+1)}} END {printf "%d", s / 1024}' "$WORK/heap-after-full-gc.txt")
  LIVE_RSS=$(rss_kb)
  # what the heap holds after that collection, the 40 biggest classes (kept with the logs)
  jcmd "$WATCH_PID" GC.class_histogram 2>/dev/null | head -45 > "$WORK/class-histogram.txt" || true
fi
if [ -n "$SERVER_PID" ]; then
  curl -fs "http://127.0.0.1:$PORT/_bench/stats" > "$WORK/server-stats.json"
else
  echo '{"watchEvents":"(not counted: real apiserver)"}' > "$WORK/server-stats.json"
fi
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load after: $(uptime)" >&2
CPU_PCT=$(echo "scale=2; 100 * ($c1 - $c0) / $TICK / ($t1 - $t0)" | bc)

metric() { awk -v m="$1" '$1 == m {print $2}' "$2"; }
PASSES0=$(metric nodegate_evaluation_duration_seconds_count "$WORK/metrics-at-sync.txt")
SUM0=$(metric nodegate_evaluation_duration_seconds_sum "$WORK/metrics-at-sync.txt")
PASSES1=$(metric nodegate_evaluation_duration_seconds_count "$WORK/metrics-at-end.txt")
SUM1=$(metric nodegate_evaluation_duration_seconds_sum "$WORK/metrics-at-end.txt")
ERRORS=$(metric nodegate_evaluation_errors_total "$WORK/metrics-at-end.txt")
PASSES=$((PASSES1 - PASSES0))
MEAN_MS=$(echo "scale=1; 1000 * ($SUM1 - $SUM0) / $PASSES" | bc)
BUCKETS=$(grep '^nodegate_evaluation_duration_seconds_bucket' "$WORK/metrics-at-end.txt" | sed 's/nodegate_evaluation_duration_seconds_bucket//' | tr '\n' ' ')
FINDINGS=$(grep -c '^nodegate_finding{' "$WORK/metrics-at-end.txt" || true)
EVENTS=$(grep -o '"watchEvents":[0-9]*' "$WORK/server-stats.json" | cut -d: -f2 || echo "n/a")

mkdir -p "$(dirname "$OUT")"
{
  echo "watch JVM: \`$WATCH_JVM\`, jar: $JAR, cluster: ${LAB_KUBECONFIG:-synthetic server}, Lease renewals every $RENEW_EVERY, --debounce $DEBOUNCE, Ready flip every $FLIP_EVERY, Node status posts every $NODE_STATUS_EVERY, scrape every $SCRAPE_EVERY; load average (1/5/15 min) before: $LOAD_BEFORE, after: $LOAD_AFTER"
  echo
  echo "| N | duration after sync | watch events sent (Leases + Nodes) | sync time | CPU at sync | avg CPU after sync | RSS at sync | RSS avg / peak / end | passes (errors) | pass mean | pass histogram (all passes, cumulative) | finding series |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  echo "| $N | ${DURATION} s | $EVENTS | ${SYNC} s | ${SYNC_CPU} s | ${CPU_PCT} % of one core | $((RSS_AT_SYNC / 1024)) MB | $((SUM / SAMPLES / 1024)) / $((PEAK / 1024)) / $((RSS_END / 1024)) MB | $PASSES ($ERRORS) | ${MEAN_MS} ms | $BUCKETS | $FINDINGS |"
  if [ -n "$LIVE" ]; then echo; echo "heap after a full GC (jcmd GC.run, after the window): $LIVE MB used; RSS then $((LIVE_RSS / 1024)) MB"; fi
  if [ -s "$WORK/latency.txt" ]; then echo; sed 's/^/    /' "$WORK/latency.txt"; fi
} > "$OUT"
cat "$OUT"
echo "logs and metrics: $WORK" >&2
trap - EXIT
cleanup
