#!/usr/bin/env bash
# nodegate bmc benchmark (performance, not a unit test): reading N slow BMCs must not take N times the slowest.
#
# Starts N fake BMCs on loopback HTTPS (bench/ FakeBmcFleet: each answers after DELAY_MS per request; a system that is
# On takes three requests), the matching N Nodes as a dump, and runs `java -jar target/nodegate.jar bmc` against them
# with each --bmc-parallel value, timing the wall clock. One request at a time per BMC, so one BMC takes 3 x DELAY_MS.
#
# Usage: bench/bmc.sh [N] [DELAY_MS] [PARALLEL...]     (default: 200 200 1 16 32 64)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
N=${1:-200}
DELAY=${2:-200}
shift $(( $# > 2 ? 2 : $# ))
PARALLEL=("$@")
[ ${#PARALLEL[@]} -eq 0 ] && PARALLEL=(1 16 32 64)

for tool in java keytool mvn; do
  command -v "$tool" >/dev/null || { echo "bmc.sh: $tool is required" >&2; exit 2; }
done
[ -f target/nodegate.jar ] || mvn -q -B -o -DskipTests package
mvn -q -B -o -f bench/pom.xml package
BENCH_JAR=$ROOT/bench/target/nodegate-bench.jar

WORK=$(mktemp -d /tmp/nodegate-bmc-bench.XXXXXX)
FLEET_PID=
cleanup() { [ -n "$FLEET_PID" ] && kill "$FLEET_PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

keytool -genkeypair -alias bmc -keyalg EC -groupname secp256r1 -dname CN=bench-bmc -ext san=ip:127.0.0.1 \
  -validity 2 -storetype PKCS12 -keystore "$WORK/bmc.p12" -storepass benchpw >/dev/null 2>&1
keytool -exportcert -rfc -alias bmc -keystore "$WORK/bmc.p12" -storepass benchpw -file "$WORK/bmc-ca.pem" >/dev/null 2>&1
printf 'username: bench\npassword: bench\n' > "$WORK/creds.yaml"

java -cp "$BENCH_JAR" io.nodegate.bench.Bench bmc-fleet --bmcs "$N" --delay-ms "$DELAY" --keystore "$WORK/bmc.p12" \
  --password benchpw --dir "$WORK/fleet" --max-seconds 1800 2>"$WORK/fleet.log" &
FLEET_PID=$!
for _ in $(seq 1 600); do [ -f "$WORK/fleet/ready" ] && break; sleep 0.2; done

echo "| --bmc-parallel | BMCs | delay per request | wall | exit |"
echo "|---|---|---|---|---|"
for p in "${PARALLEL[@]}"; do
  start=$(date +%s.%N)
  set +e
  java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar target/nodegate.jar bmc -f "$WORK/fleet/nodes.json" \
    --now 2026-10-22T06:10:00Z --bmc-inventory "$WORK/fleet/inventory.yaml" --bmc-credentials "$WORK/creds.yaml" \
    --bmc-ca "$WORK/bmc-ca.pem" --bmc-parallel "$p" --bmc-deadline 30m -o json >"$WORK/out.json" 2>"$WORK/err.txt"
  code=$?
  set -e
  end=$(date +%s.%N)
  running=$(grep -o '"power" : "running"' "$WORK/out.json" | wc -l)
  printf '| %s | %s (%s running) | %s ms | %.1f s | %s |\n' "$p" "$N" "$running" "$DELAY" "$(echo "$end - $start" | bc)" "$code"
done
