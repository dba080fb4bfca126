# Shared by bench/run.sh and bench/speed.sh (sourced, not run): the synthetic server's start-up and kubeconfig,
# and what /usr/bin/time -v reports. Callers set WORK (a temp dir), BENCH_JAR and SERVER_PID="" first.

# start_server N [max seconds]: starts `serve --nodes N` on 127.0.0.1, sets SERVER, SERVER_PID and KC (a kubeconfig
# for it, with a dummy token: the server does not authenticate)
start_server() {
  local n=$1 max=${2:-600}
  rm -f "$WORK/port"
  # LIGHT=1: the earlier, lighter Node shape instead of the field-sized one
  java -Xmx3g -jar "$BENCH_JAR" serve --nodes "$n" ${LIGHT:+--light} --port-file "$WORK/port" --max-seconds "$max" 2>"$WORK/server.log" &
  SERVER_PID=$!
  for _ in $(seq 900); do [ -f "$WORK/port" ] && break; sleep 0.1; done
  [ -f "$WORK/port" ] || { echo "server did not start:" >&2; cat "$WORK/server.log" >&2; exit 3; }
  SERVER=http://127.0.0.1:$(cat "$WORK/port")
  KC=$WORK/kubeconfig
  cat >"$KC" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: bench
  cluster: {server: "$SERVER"}
users:
- name: bench
  user: {token: bench-token-not-a-secret}
contexts:
- name: bench
  context: {cluster: bench, user: bench}
current-context: bench
KUBECONFIG
}

stop_server() {
  if [ -n "${SERVER_PID:-}" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  SERVER_PID=
}

# "Elapsed (wall clock) time (h:mm:ss or m:ss): 1:02.33" -> seconds
wall_of() { awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; printf "%.3f", s}' "$1"; }
rss_of() { awk -F': ' '/Maximum resident set size/ {printf "%d", $2/1024}' "$1"; }
# user + system CPU seconds: less sensitive than wall time to other load on the machine
cpu_of() { awk -F': ' '/User time \(seconds\)/ {u=$2} /System time \(seconds\)/ {s=$2} END {printf "%.2f", u+s}' "$1"; }
# requests the server counted since the last reset
requests() { curl -sf "$SERVER/_bench/stats" | jq -r .requests; }
reset() { curl -sf "$SERVER/_bench/reset" >/dev/null; }
