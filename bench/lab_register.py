#!/usr/bin/env python3
"""Registers the benchmark's field-sized Nodes on the lab's real kube-apiserver (bench/lab.sh).

Reads a `Bench dump` (a kubectl-style List: Nodes, Leases, Secrets, ...) and creates through the API, as the
kubelet and RKE2 would: each Node (POST /api/v1/nodes, with its status, as a kubelet's registration carries it),
its Lease in kube-node-lease and its node-password Secret in kube-system. What the server assigns (uid,
resourceVersion, creationTimestamp, managedFields) is dropped first; the server writes its own managedFields. Only
Python's standard library: the lab's admin client certificate from the kubeconfig, several connections at once.

Usage: lab_register.py DUMP.json LAB_DIR [PARALLEL]     (LAB_DIR: what `bin/lab up` wrote: kubeconfig, pki/)
Prints one line per kind: how many were created, how long it took. Exits non-zero, naming the object, on any
answer but 201 Created (409 AlreadyExists included: the lab is expected empty). Secret values are never printed.
"""
import http.client
import json
import os
import queue
import re
import ssl
import sys
import threading
import time
import urllib.parse

SERVER_SET = ("uid", "resourceVersion", "creationTimestamp", "managedFields", "selfLink", "generation")


def lab(directory):
    """The lab's server (its kubeconfig has one cluster) and its CA and admin client certificate files (pki/)."""
    config = os.path.join(directory, "kubeconfig")
    m = re.search(r"^\s*server:\s*(https://\S+)\s*$", open(config, encoding="utf-8").read(), re.M)
    if not m:
        sys.exit(f"lab_register: {config} names no https server")
    files = [os.path.join(directory, "pki", f) for f in ("ca.crt", "admin.crt", "admin.key")]
    for f in files:
        if not os.path.isfile(f):
            sys.exit(f"lab_register: {f} is missing (not a lab directory?)")
    return (m.group(1), *files)


def path_for(item):
    kind = item.get("kind")
    meta = item.get("metadata", {})
    if kind == "Node":
        return "/api/v1/nodes"
    if kind == "Lease" and meta.get("namespace") == "kube-node-lease":
        return "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
    if kind == "Secret" and meta.get("namespace") == "kube-system" and meta.get("name", "").endswith(
            ".node-password.rke2"):
        return "/api/v1/namespaces/kube-system/secrets"
    return None


def cleaned(item):
    meta = item["metadata"]
    for key in SERVER_SET:
        meta.pop(key, None)
    # owner uids were the synthetic server's; the real ones do not exist here
    meta.pop("ownerReferences", None)
    return item


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: lab_register.py DUMP.json LAB_DIR [PARALLEL]")
    dump, directory = sys.argv[1], sys.argv[2]
    parallel = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    server, ca, cert, key = lab(directory)
    url = urllib.parse.urlsplit(server)
    context = ssl.create_default_context(cafile=ca)
    context.load_cert_chain(cert, key)
    with open(dump, encoding="utf-8") as f:
        items = json.load(f)["items"]
    # Nodes first (a Lease or Secret of a Node not yet there is what a half-registered host looks like)
    order = ["Node", "Lease", "Secret"]
    for kind in order:
        work = queue.Queue()
        count = 0
        for item in items:
            if item.get("kind") == kind and path_for(item):
                work.put(item)
                count += 1
        failures = []
        start = time.monotonic()

        def worker():
            conn = http.client.HTTPSConnection(url.hostname, url.port, context=context, timeout=60)
            while True:
                try:
                    item = work.get_nowait()
                except queue.Empty:
                    conn.close()
                    return
                body = json.dumps(cleaned(item), separators=(",", ":")).encode()
                try:
                    conn.request("POST", path_for(item), body=body, headers={"Content-Type": "application/json"})
                    answer = conn.getresponse()
                    answer.read()
                    status = f"HTTP {answer.status} {answer.reason}" if answer.status != 201 else None
                except (OSError, http.client.HTTPException) as e:
                    status = f"{type(e).__name__}: {e}"
                    conn.close()
                    conn = http.client.HTTPSConnection(url.hostname, url.port, context=context, timeout=60)
                if status:
                    failures.append(f"{kind} {item['metadata'].get('name')!r}: {status}")

        threads = [threading.Thread(target=worker) for _ in range(parallel)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        took = time.monotonic() - start
        print(f"{kind}: {count - len(failures)} of {count} created in {took:.1f} s ({parallel} connections)",
              flush=True)
        if failures:
            for line in failures[:10]:
                print("lab_register: " + line, file=sys.stderr)
            sys.exit(1)
    del items


if __name__ == "__main__":
    main()
