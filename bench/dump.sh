#!/usr/bin/env bash
# Offline audit of a big kubectl JSON dump (a 200 MB JSON audit took 2.29 GB RSS; target <= 512 MB).
#
# Writes the synthetic cluster (bench/) as one kubectl-style List file (`Bench dump`: Nodes with managedFields and
# images, Leases, Secrets, CSINodes, EndpointSlices, DaemonSets; keys sorted, items before kind, as kubectl writes
# them), then measures `audit -f FILE --now T -o json` with /usr/bin/time -v: wall, CPU seconds, peak RSS, exit
# code. Rows, interleaved in one run so they see the same load:
#   before   BASELINE_JAR (nodegate.jar from an older commit) with bin/nodegate's JVM flags of that commit
#   after    target/nodegate.jar with the same flags as before (the code change alone)
#   launcher bin/nodegate itself (the code change plus the launcher's flags: heap sizing, class-data archive)
#
# Usage: bench/dump.sh [NODES] [RUNS]     (default 20000 nodes ~ 200 MB, 3 runs of each row)
# Env:   BASELINE_JAR (optional), OUT (default bench/target/dump-run.md)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
NODES=${1:-20000}
RUNS=${2:-3}
BASELINE_JAR=${BASELINE_JAR:-}
OUT=${OUT:-$ROOT/bench/target/dump-run.md}
BENCH_JAR=$ROOT/bench/target/nodegate-bench.jar
NODEGATE_JAR=$ROOT/target/nodegate.jar
# bin/nodegate's flags before this change (a short-lived CLI: C1 only, serial GC), no archive
OLD_FLAGS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
CMD_TIMEOUT=600
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

[ -x /usr/bin/time ] || { echo "dump.sh: /usr/bin/time is missing (apt-get install -y time)" >&2; exit 2; }
[ -f "$NODEGATE_JAR" ] || mvn -q -B -o -DskipTests package
mvn -q -B -o -f bench/pom.xml package

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
DUMP=$WORK/big.json
NOW=$(java -jar "$BENCH_JAR" dump --nodes "$NODES" --out "$DUMP")
SIZE_MB=$(( $(stat -c %s "$DUMP") / 1024 / 1024 ))

row() { # name command...
  local name=$1; shift
  local t=$WORK/time.txt rc=0
  /usr/bin/time -v -o "$t" timeout "$CMD_TIMEOUT" "$@" >"$WORK/out.json" 2>"$WORK/err.txt" || rc=$?
  local nodes
  nodes=$(jq -r '.summary.nodes // (.nodes | length) // "?"' "$WORK/out.json" 2>/dev/null || echo "?")
  printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$(wall_of "$t")" "$(cpu_of "$t")" "$(rss_of "$t")" "$rc" \
    "$(head -c 120 "$WORK/err.txt" | tr '\n|' '  ')" | tee -a "$OUT"
}

# bin/nodegate writes its class-data archive on first use: do that before measuring
bin/nodegate audit -f examples/healthy >/dev/null 2>&1 || true
mkdir -p "$(dirname "$OUT")"
{
  echo "### audit -f of a ${SIZE_MB} MB kubectl JSON List ($NODES nodes), $(date -u +%FT%TZ)"
  echo
  echo "uptime before: $(uptime)"
  echo
  echo "| row | wall s | CPU s | peak RSS MB | exit | stderr (start) |"
  echo "|---|---|---|---|---|---|"
} | tee "$OUT"
for i in $(seq "$RUNS"); do
  if [ -n "$BASELINE_JAR" ]; then
    # shellcheck disable=SC2086
    row "before (run $i)" java $OLD_FLAGS -jar "$BASELINE_JAR" audit -f "$DUMP" --now "$NOW" -o json
  fi
  # shellcheck disable=SC2086
  row "after, same flags (run $i)" java $OLD_FLAGS -jar "$NODEGATE_JAR" audit -f "$DUMP" --now "$NOW" -o json
  row "after, bin/nodegate (run $i)" bin/nodegate audit -f "$DUMP" --now "$NOW" -o json
done
# The launcher's -Xms64m must not cost a small audit anything: examples/healthy (7 nodes), 5 runs each, with the
# class-data archive, interleaved: the launcher's flags without and with -Xms64m.
{
  echo
  echo "| small: audit -f examples/healthy | wall s | CPU s | peak RSS MB | exit | stderr (start) |"
  echo "|---|---|---|---|---|---|"
} | tee -a "$OUT"
CDS_FLAGS="-Xshare:auto -Xlog:cds*=off -XX:SharedArchiveFile=$ROOT/target/nodegate.jsa"
for i in 1 2 3 4 5; do
  # shellcheck disable=SC2086
  row "launcher flags without -Xms64m (run $i)" java $OLD_FLAGS $CDS_FLAGS -jar "$NODEGATE_JAR" audit -f examples/healthy -o json
  # shellcheck disable=SC2086
  row "launcher flags with -Xms64m (run $i)" java $OLD_FLAGS -Xms64m $CDS_FLAGS -jar "$NODEGATE_JAR" audit -f examples/healthy -o json
done
{ echo; echo "uptime after: $(uptime)"; } | tee -a "$OUT"
