#!/usr/bin/env bash
# Captures real etcdctl JSON for the split-brain example (seed 001) by running the installed etcd on loopback:
#   1. a 3-member cluster (cp-node-a, cp-node-b, cp-node-c), the "original" one;
#   2. cp-node-c is stopped, and a new one-member cluster is started under the same member name, on the same
#      peer/client ports but a fresh data dir (what `k3s server` without --server did on the repaired host);
#   3. member list / endpoint status are taken from each side.
# Output goes to raw/; generate.py rewrites only URLs, version and counters into original-side/ and
# separated-side/. etcd derives member IDs from peer URLs and cluster token, so a re-run gives the same IDs
# (the elected leader may differ). Not part of the build: run it by hand when the shapes need refreshing.
set -euo pipefail
out="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)/raw"
work="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
cd "$work"
export ETCDCTL_API=3
names=(cp-node-a-0e5c3b1d cp-node-b-7a91f2c4 cp-node-c-4d2b8e6f)
initial="${names[0]}=http://127.0.0.1:23801,${names[1]}=http://127.0.0.1:23802,${names[2]}=http://127.0.0.1:23803"
for i in 1 2 3; do
  etcd --name "${names[$((i-1))]}" --data-dir "data-$i" \
    --listen-peer-urls "http://127.0.0.1:2380$i" --initial-advertise-peer-urls "http://127.0.0.1:2380$i" \
    --listen-client-urls "http://127.0.0.1:2379$i" --advertise-client-urls "http://127.0.0.1:2379$i" \
    --initial-cluster "$initial" --initial-cluster-token k3s-original --initial-cluster-state new >"log-$i" 2>&1 &
  pids+=($!)
done
until etcdctl --endpoints=http://127.0.0.1:23791 endpoint health >/dev/null 2>&1; do sleep 0.5; done
etcdctl --endpoints=http://127.0.0.1:23791 put /registry/example original >/dev/null

kill "${pids[2]}"; wait "${pids[2]}" 2>/dev/null || true
etcd --name "${names[2]}" --data-dir data-separated \
  --listen-peer-urls http://127.0.0.1:23803 --initial-advertise-peer-urls http://127.0.0.1:23803 \
  --listen-client-urls http://127.0.0.1:23793 --advertise-client-urls http://127.0.0.1:23793 \
  --initial-cluster "${names[2]}=http://127.0.0.1:23803" --initial-cluster-state new >log-separated 2>&1 &
pids+=($!)
until etcdctl --endpoints=http://127.0.0.1:23793 endpoint health >/dev/null 2>&1; do sleep 0.5; done
etcdctl --endpoints=http://127.0.0.1:23793 put /registry/example separated >/dev/null

mkdir -p "$out"
etcdctl --endpoints=http://127.0.0.1:23791 member list -w json >"$out/original-member-list.json"
etcdctl --endpoints=http://127.0.0.1:23791 endpoint status --cluster -w json >"$out/original-endpoint-status-cluster.json"
etcdctl --endpoints=http://127.0.0.1:23793 member list -w json >"$out/separated-member-list.json"
etcdctl --endpoints=http://127.0.0.1:23793 endpoint status --cluster -w json >"$out/separated-endpoint-status.json"
echo "captured into $out"
