#!/usr/bin/env python3
"""Writes the example snapshots in examples/ (the layout `nodegate collect` writes).

Deterministic and stdlib only: every UID, bootID, hash and resourceVersion derives from a name, every time
from the story's timeline below. Run it from anywhere; it rewrites the example directories next to it:

    python3 examples/generate.py

Stories (see each directory's STORY.md):
  cluster-a-batch-stop    seed 000, D+15 06:10Z: gpu-a07..a10's Leases stopped within 12 s
  cluster-a-renamed-rejoin seed 000, D+17 04:05Z: new-01..03 are gpu-a02, a01, a04 under new names
  healthy                 a small RKE2 cluster that audits clean
  lab-duplicate-ip        seed 002: two lab workers registered the same InternalIP (no --node-ip)
  split-brain             seed 001: see split-brain/STORY.md (etcdctl shapes captured from a real etcd 3.4)
  k3s-six-nodes           seed 003: k3s home lab, etcd 3 voters but 2 apiservers (solomon: disable-apiserver)

Times: seed 000 gives KST; everything here is UTC (KST - 9 h). D+0 is 2026-10-07 (a Wednesday, so that
D+17, "the weekend" in the seed, is a Saturday).
"""
import hashlib
import json
import os
import shutil
import uuid
from types import SimpleNamespace
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
D0 = datetime(2026, 10, 7, tzinfo=timezone.utc)
NS = uuid.UUID("6f1c1f0e-5b9a-4c59-9a57-0e0d6a0b7a11")


# ---------------------------------------------------------------- helpers

def day(n, hms="00:00:00", micro=0):
    h, m, s = (int(x) for x in hms.split(":"))
    return D0 + timedelta(days=n, hours=h, minutes=m, seconds=s, microseconds=micro)


def ts(t):
    """metav1.Time: RFC 3339, whole seconds."""
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def mts(t):
    """metav1.MicroTime: RFC 3339 with 6 fractional digits."""
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def uid(*key):
    return str(uuid.uuid5(NS, "/".join(key)))


def hexid(n, *key):
    return hashlib.sha256("/".join(key).encode()).hexdigest()[:n]


def mac(*key):
    h = hexid(10, *key)
    return "02:" + ":".join(h[i:i + 2] for i in range(0, 10, 2))


class Versions:
    """Monotonic resourceVersions, as etcd revisions would be."""

    def __init__(self, start):
        self.next = start

    def __call__(self):
        self.next += 137
        return str(self.next)


def kube_list(items):
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


def write(dirname, filename, obj):
    path = os.path.join(HERE, dirname, filename)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        # kubectl -o json: 4-space indent, keys sorted (it prints unstructured maps)
        json.dump(obj, f, indent=4, sort_keys=True, ensure_ascii=False)
        f.write("\n")


def write_etcdctl(dirname, filename, obj):
    with open(os.path.join(HERE, dirname, filename), "w", encoding="utf-8") as f:
        json.dump(obj, f, separators=(",", ":"))  # etcdctl -w json prints one compact line
        f.write("\n")


def fields(*paths):
    """fieldsV1 from dotted paths; 'f:' prefixes added, '.' marks a set member."""
    root = {}
    for p in paths:
        cur = root
        for part in p.split("|"):
            cur = cur.setdefault(part, {})
    return root


def mf(manager, t, fv1, subresource=None, operation="Update", api="v1"):
    entry = {"apiVersion": api, "fieldsType": "FieldsV1", "fieldsV1": fv1, "manager": manager,
             "operation": operation, "time": ts(t)}
    if subresource:
        entry["subresource"] = subresource
    return entry


# ---------------------------------------------------------------- images

def image(repo, tag, size):
    return {"names": [f"{repo}@sha256:{hexid(64, repo, tag)}", f"{repo}:{tag}"], "sizeBytes": size}


RKE2_COMMON = [
    image("docker.io/rancher/hardened-kubernetes", "v1.34.3-rke2r3-build20251112", 196718336),
    image("docker.io/rancher/hardened-calico", "v3.30.3-build20251015", 204544910),
    image("docker.io/rancher/hardened-flannel", "v0.27.4-build20251015", 22307101),
    image("docker.io/rancher/mirrored-pause", "3.6", 301463),
    image("docker.io/rancher/rke2-runtime", "v1.34.3-rke2r3", 112946178),
    image("docker.io/rancher/system-agent-installer-rke2", "v1.34.3-rke2r3", 88215302),
    image("docker.io/rancher/system-agent", "v0.3.13-suc", 13612808),
    image("docker.io/rancher/rancher-agent", "v2.15.1", 285421790),
    image("docker.io/rancher/mirrored-prometheus-node-exporter", "v1.9.1", 12401567),
    image("docker.io/rancher/mirrored-sig-storage-csi-node-driver-registrar", "v2.14.0", 13987552),
    image("registry.k8s.io/sig-storage/nfsplugin", "v4.11.0", 38117044),
    image("docker.io/library/busybox", "1.37.0", 2156491),
]
RKE2_SERVER = [
    image("docker.io/rancher/hardened-etcd", "v3.6.5-k3s1-build20251017", 66902811),
    image("docker.io/rancher/hardened-coredns", "v1.12.3-build20251015", 25470112),
    image("docker.io/rancher/hardened-k8s-metrics-server", "v0.8.0-build20251015", 19941408),
    image("docker.io/rancher/nginx-ingress-controller", "v1.13.4-hardened2", 143558190),
    image("docker.io/rancher/klipper-helm", "v0.9.10-build20251111", 61309445),
    image("docker.io/rancher/hardened-cluster-autoscaler", "v1.10.2-build20251015", 14806212),
]
K3S_COMMON = [
    image("docker.io/rancher/mirrored-pause", "3.6", 301463),
    image("docker.io/rancher/klipper-lb", "v0.4.4", 4945411),
    image("docker.io/rancher/mirrored-library-busybox", "1.36.1", 2156491),
    image("docker.io/library/nginx", "1.25.3", 70544635),
    image("docker.io/grafana/promtail", "2.9.3", 77361243),
    image("quay.io/prometheus/node-exporter", "v1.7.0", 11705863),
]
K3S_SERVER = [
    image("docker.io/rancher/mirrored-coredns-coredns", "1.10.1", 16190758),
    image("docker.io/rancher/local-path-provisioner", "v0.0.24", 14887612),
    image("docker.io/rancher/mirrored-metrics-server", "v0.6.3", 29943298),
    image("docker.io/rancher/mirrored-library-traefik", "2.10.5", 43130297),
    image("docker.io/rancher/klipper-helm", "v0.8.2-build20230815", 90876339),
]
GPU = [
    image("nvcr.io/nvidia/k8s-device-plugin", "v0.17.4", 182334128),
    image("nvcr.io/nvidia/k8s/dcgm-exporter", "4.2.3-4.3.1-ubuntu22.04", 412880417),
    image("nvcr.io/nvidia/gpu-operator", "v25.3.4", 196127551),
    image("nvcr.io/nvidia/cloud-native/k8s-driver-manager", "v0.8.1", 247112839),
    image("nvcr.io/nvidia/k8s/container-toolkit", "v1.17.8-ubuntu20.04", 143701544),
    image("registry.example.internal/infra/node-check", "2026.09.2", 48260117),
]


def sorted_images(imgs):
    # the kubelet reports images largest first
    return sorted(imgs, key=lambda i: -i["sizeBytes"])


# ---------------------------------------------------------------- RKE2 node model

class Host:
    """A machine. Identity survives renames and IP changes; bootID changes at every boot."""

    def __init__(self, key, boot, cores=32, mem_gib=256, gpus=0, gpu_model=None, kernel="5.15.0-153-generic",
                 mem_ki=None):
        self.key = key
        self.system_uuid = uid("system-uuid", key).upper() if key.startswith("gpu") else uid("system-uuid", key)
        self.machine_id = hexid(32, "machine-id", key)
        self.boot = boot
        self.cores, self.mem_gib, self.gpus, self.gpu_model, self.kernel = cores, mem_gib, gpus, gpu_model, kernel
        self.mem_ki = mem_ki  # exact capacity when the story gives one (kubectl's "31.2 GiB"), else from mem_gib

    def boot_id(self):
        return uid("boot", self.key, ts(self.boot))


class NodeSpec:
    """One Node object as the API holds it at collection time."""

    def __init__(self, name, host, ip, created, roles=(), cordoned_at=None, gpu_taint_at=None,
                 last_status=None, lease_renew=None, unknown_at=None, noexecute_at=None, ready_since=None,
                 machine=None, kubelet="v1.34.3+rke2r3", etcd_member=None, extra_labels=None, rancher=True,
                 extra_args=None, runtime="containerd://1.7.11-k3s2", os_image="Ubuntu 22.04.5 LTS",
                 extra_taints=None, tainted_at=None):
        self.name, self.host, self.ip, self.created = name, host, ip, created
        self.roles = list(roles)
        self.cordoned_at, self.gpu_taint_at = cordoned_at, gpu_taint_at
        self.last_status, self.lease_renew = last_status, lease_renew
        self.unknown_at, self.noexecute_at, self.ready_since = unknown_at, noexecute_at, ready_since
        self.machine = machine or ("machine-" + hexid(5, "machine", name))
        self.kubelet, self.etcd_member = kubelet, etcd_member
        self.extra_labels = extra_labels or {}
        self.rancher = rancher
        self.extra_args, self.runtime, self.os_image = extra_args, runtime, os_image
        self.extra_taints, self.tainted_at = list(extra_taints or []), tainted_at  # `kubectl taint` by hand

    @property
    def is_server(self):
        return "etcd" in self.roles

    @property
    def ready(self):
        return self.unknown_at is None


class Cluster:
    def __init__(self, name, collected_at, server, server_version, vip, rancher_cluster, rv_start, cidr_base):
        self.name, self.now, self.server, self.server_version = name, collected_at, server, server_version
        self.vip, self.rancher_cluster = vip, rancher_cluster
        self.rv = Versions(rv_start)
        self.cidr_base = cidr_base
        self.nodes = []
        self.distro = "k3s" if "+k3s" in server_version else "rke2"
        minor = int(server_version.split(".")[1])
        self.typed_secrets = minor >= 34  # k3s/RKE2 releases since late 2025

    def pod_cidr(self, node):
        index = sorted(n.name for n in self.nodes).index(node.name)
        return f"10.{self.cidr_base}.{index}.0/24"


def node_object(c, n):
    h = n.host
    p = c.distro
    created = n.created
    boot = h.boot
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/instance-type": p,
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": n.name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": p,
    }
    for r in n.roles:
        labels["node-role.kubernetes.io/" + r] = "true"
    if n.rancher:
        labels["plan.cattle.io/cluster-name"] = c.rancher_cluster
        labels["plan.cattle.io/machine-kind"] = "Node"
        labels["plan.cattle.io/machine-name"] = n.machine
    if h.gpus:
        labels.update({
            "feature.node.kubernetes.io/pci-10de.present": "true",
            "nvidia.com/gpu.count": str(h.gpus),
            "nvidia.com/gpu.product": h.gpu_model,
            "nvidia.com/gpu.present": "true",
            "nvidia.com/gpu.deploy.device-plugin": "true",
            "nvidia.com/gpu.deploy.dcgm-exporter": "true",
        })
    labels.update(n.extra_labels)

    if n.is_server and p == "k3s":
        args = n.extra_args or ["server", "--server", f"https://{c.vip}:6443", "--token", "********"]
    elif n.is_server:
        args = ["server", "--tls-san", c.vip, "--token", "********", "--etcd-snapshot-schedule-cron", "0 */6 * * *"]
    elif p == "k3s":
        args = ["agent", "--server", f"https://{c.vip}:6443", "--token", "********"]
    else:
        args = ["agent", "--server", f"https://{c.vip}:9345", "--token", "********"]
        if h.gpus:
            args += ["--node-label", "nvidia.com/gpu.present=true"]
    annotations = {
        "alpha.kubernetes.io/provided-node-ip": n.ip,
        "flannel.alpha.coreos.com/backend-data": json.dumps({"VNI": 1, "VtepMAC": mac("vtep", n.name, ts(boot))},
                                                            separators=(",", ":")),
        "flannel.alpha.coreos.com/backend-type": "vxlan",
        "flannel.alpha.coreos.com/kube-subnet-manager": "true",
        "flannel.alpha.coreos.com/public-ip": n.ip,
        "node.alpha.kubernetes.io/ttl": "0",
        p + ".io/hostname": n.name,
        p + ".io/internal-ip": n.ip,
        p + ".io/node-args": json.dumps(args, separators=(",", ":")),
        p + ".io/node-config-hash": hexid(52, "config", n.name, c.vip).upper() + "====",
        p + ".io/node-env": "{}" if p == "rke2" else '{"K3S_DATA_DIR":"/var/lib/rancher/k3s/data/' + hexid(64, "data", n.kubelet) + '"}',
        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
    }
    if p == "rke2":  # canal = flannel for the network + calico for policy
        annotations["projectcalico.org/IPv4Address"] = n.ip + "/24"
    if n.is_server:
        annotations[f"etcd.{p}.cattle.io/node-name"] = n.etcd_member
        annotations[f"etcd.{p}.cattle.io/node-address"] = n.ip
        annotations[f"etcd.{p}.cattle.io/local-snapshots-timestamp"] = ts(c.now.replace(minute=0, second=0)
                                                                         - timedelta(hours=c.now.hour % 6))
    if n.rancher:
        annotations["management.cattle.io/pod-limits"] = '{"cpu":"1500m","memory":"1152Mi"}'
        annotations["management.cattle.io/pod-requests"] = ('{"cpu":"650m","memory":"712Mi","pods":"9"}'
                                                            if n.ready else '{"pods":"6"}')
        annotations["cluster.x-k8s.io/machine"] = n.machine
    # --- spec
    taints = []
    if n.gpu_taint_at:
        taints.append({"effect": "NoSchedule", "key": "nvidia.com/gpu"})
    taints.extend(n.extra_taints)
    if n.cordoned_at:
        taints.append({"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable",
                       "timeAdded": ts(n.cordoned_at)})
    if n.unknown_at:
        taints.append({"effect": "NoSchedule", "key": "node.kubernetes.io/unreachable",
                       "timeAdded": ts(n.unknown_at)})
        taints.append({"effect": "NoExecute", "key": "node.kubernetes.io/unreachable",
                       "timeAdded": ts(n.noexecute_at)})
    spec = {"podCIDR": c.pod_cidr(n), "podCIDRs": [c.pod_cidr(n)], "providerID": p + "://" + n.name}
    if taints:
        spec["taints"] = taints
    if n.cordoned_at:
        spec["unschedulable"] = True

    # --- status
    last_status = n.last_status
    net_up = boot + timedelta(seconds=38)
    ready_since = n.ready_since or (boot + timedelta(seconds=51))

    def cond(ctype, ok_reason, ok_msg, ok_status="False"):
        if n.unknown_at:
            return {"lastHeartbeatTime": ts(last_status), "lastTransitionTime": ts(n.unknown_at),
                    "message": "Kubelet stopped posting node status.", "reason": "NodeStatusUnknown",
                    "status": "Unknown", "type": ctype}
        return {"lastHeartbeatTime": ts(last_status),
                "lastTransitionTime": ts(ready_since if ctype == "Ready" else boot + timedelta(seconds=21)),
                "message": ok_msg, "reason": ok_reason, "status": ok_status, "type": ctype}

    conditions = [
        {"lastHeartbeatTime": ts(net_up), "lastTransitionTime": ts(net_up),
         "message": "Flannel is running on this node", "reason": "FlannelIsUp", "status": "False",
         "type": "NetworkUnavailable"},
        cond("MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        cond("DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        cond("PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        cond("Ready", "KubeletReady", "kubelet is posting ready status", ok_status="True"),
    ]
    mem_ki = h.mem_ki or h.mem_gib * 1024 * 1024 - 3932160
    capacity = {"cpu": str(h.cores), "ephemeral-storage": "959786032Ki", "hugepages-1Gi": "0",
                "hugepages-2Mi": "0", "memory": f"{mem_ki}Ki", "pods": "110"}
    allocatable = {"cpu": str(h.cores), "ephemeral-storage": "933679376629", "hugepages-1Gi": "0",
                   "hugepages-2Mi": "0", "memory": f"{mem_ki}Ki", "pods": "110"}
    if h.gpus:
        capacity["nvidia.com/gpu"] = str(h.gpus)
        allocatable["nvidia.com/gpu"] = str(h.gpus)
    if p == "k3s":
        imgs = list(K3S_COMMON) + (K3S_SERVER if n.is_server else [])
    else:
        imgs = list(RKE2_COMMON) + (RKE2_SERVER if n.is_server else []) + (GPU if h.gpus else [])
    handlers = [{"features": {"recursiveReadOnlyMounts": True, "userNamespaces": True}, "name": "runc"},
                {"features": {"recursiveReadOnlyMounts": True, "userNamespaces": True}, "name": ""}]
    if h.gpus:
        handlers.insert(0, {"features": {"recursiveReadOnlyMounts": True, "userNamespaces": True},
                            "name": "nvidia"})
    status = {
        "addresses": [{"address": n.ip, "type": "InternalIP"}, {"address": n.name, "type": "Hostname"}],
        "allocatable": allocatable,
        "capacity": capacity,
        "conditions": conditions,
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "features": {"supplementalGroupsPolicy": True},
        "images": sorted_images(imgs),
        "nodeInfo": {
            "architecture": "amd64",
            "bootID": h.boot_id(),
            "containerRuntimeVersion": "containerd://2.1.5-k3s1" if p == "rke2" else n.runtime,
            "kernelVersion": h.kernel,
            "kubeProxyVersion": "",
            "kubeletVersion": n.kubelet,
            "machineID": h.machine_id,
            "operatingSystem": "linux",
            "osImage": n.os_image,
            "systemUUID": h.system_uuid,
        },
        "runtimeHandlers": handlers,
    }

    # --- managedFields: who wrote what, and when
    managed = [
        mf("kubelet", created, fields("f:metadata|f:annotations|.|f:alpha.kubernetes.io/provided-node-ip",
                                      "f:metadata|f:annotations|f:volumes.kubernetes.io/controller-managed-attach-detach",
                                      "f:metadata|f:labels|.|f:beta.kubernetes.io/arch",
                                      "f:metadata|f:labels|f:beta.kubernetes.io/os",
                                      "f:metadata|f:labels|f:kubernetes.io/arch",
                                      "f:metadata|f:labels|f:kubernetes.io/hostname",
                                      "f:metadata|f:labels|f:kubernetes.io/os",
                                      "f:spec|f:providerID")),
        mf("kube-controller-manager", created + timedelta(seconds=1),
           fields("f:metadata|f:annotations|f:node.alpha.kubernetes.io/ttl", "f:spec|f:podCIDR",
                  "f:spec|f:podCIDRs|.", "f:spec|f:podCIDRs|v:\"" + c.pod_cidr(n) + "\"")),
        mf(p, max(boot + timedelta(seconds=30), created + timedelta(seconds=2)),
           fields(*(["f:metadata|f:annotations|f:" + p + ".io/" + k for k in
                     ("hostname", "internal-ip", "node-args", "node-config-hash", "node-env")]
                    + (["f:metadata|f:annotations|f:etcd." + p + ".cattle.io/node-address",
                        "f:metadata|f:annotations|f:etcd." + p + ".cattle.io/node-name",
                        "f:metadata|f:finalizers|.",
                        "f:metadata|f:finalizers|v:\"wrangler.cattle.io/managed-etcd-controller\"",
                        "f:metadata|f:finalizers|v:\"wrangler.cattle.io/node\""] if n.is_server else [])
                    + ["f:metadata|f:labels|f:beta.kubernetes.io/instance-type",
                       "f:metadata|f:labels|f:node.kubernetes.io/instance-type"]))),
        mf("flanneld", net_up, fields("f:metadata|f:annotations|f:flannel.alpha.coreos.com/backend-data",
                                      "f:metadata|f:annotations|f:flannel.alpha.coreos.com/backend-type",
                                      "f:metadata|f:annotations|f:flannel.alpha.coreos.com/kube-subnet-manager",
                                      "f:metadata|f:annotations|f:flannel.alpha.coreos.com/public-ip",
                                      "f:status|f:conditions|k:{\"type\":\"NetworkUnavailable\"}|.|"
                                      "f:lastHeartbeatTime"), subresource="status"),
    ]
    if n.roles:
        managed.append(mf("kubectl-label", created + timedelta(minutes=7),
                          fields(*["f:metadata|f:labels|f:node-role.kubernetes.io/" + r for r in n.roles])))
    if n.rancher:
        managed.append(mf("agent", created + timedelta(minutes=2),
                          fields("f:metadata|f:annotations|f:cluster.x-k8s.io/machine",
                                 "f:metadata|f:annotations|f:management.cattle.io/pod-limits",
                                 "f:metadata|f:annotations|f:management.cattle.io/pod-requests",
                                 "f:metadata|f:labels|f:plan.cattle.io/cluster-name",
                                 "f:metadata|f:labels|f:plan.cattle.io/machine-kind",
                                 "f:metadata|f:labels|f:plan.cattle.io/machine-name")))
    if n.gpu_taint_at:
        managed.append(mf("kubectl-taint", n.gpu_taint_at, fields("f:spec|f:taints")))
    if n.extra_taints:
        managed.append(mf("kubectl-taint", n.tainted_at, fields("f:spec|f:taints")))
    if h.gpus:
        managed.append(mf("nfd-master", created + timedelta(minutes=4),
                          fields("f:metadata|f:labels|f:feature.node.kubernetes.io/pci-10de.present",
                                 "f:metadata|f:labels|f:nvidia.com/gpu.count",
                                 "f:metadata|f:labels|f:nvidia.com/gpu.product")))
    if n.cordoned_at:
        managed.append(mf("kubectl-cordon", n.cordoned_at, fields("f:spec|f:unschedulable")))
    kcm_taint_time = n.noexecute_at or n.cordoned_at
    if kcm_taint_time:
        managed.append(mf("kube-controller-manager", kcm_taint_time, fields("f:spec|f:taints")))
    kubelet_status = fields("f:status|f:allocatable|f:nvidia.com/gpu" if h.gpus else "f:status|f:allocatable|f:cpu",
                            "f:status|f:conditions|k:{\"type\":\"Ready\"}|f:lastHeartbeatTime",
                            "f:status|f:conditions|k:{\"type\":\"Ready\"}|f:lastTransitionTime",
                            "f:status|f:conditions|k:{\"type\":\"Ready\"}|f:message",
                            "f:status|f:conditions|k:{\"type\":\"Ready\"}|f:reason",
                            "f:status|f:conditions|k:{\"type\":\"Ready\"}|f:status",
                            "f:status|f:images", "f:status|f:nodeInfo|f:bootID")
    managed.append(mf("kubelet", last_status, kubelet_status, subresource="status"))
    if n.unknown_at:
        managed.append(mf("kube-controller-manager", n.unknown_at,
                          fields(*["f:status|f:conditions|k:{\"type\":\"" + t + "\"}|f:" + f
                                   for t in ("DiskPressure", "MemoryPressure", "PIDPressure", "Ready")
                                   for f in ("lastTransitionTime", "message", "reason", "status")]),
                          subresource="status"))
    managed = merge_managed(managed)

    meta = {
        "annotations": annotations,
        "creationTimestamp": ts(created),
        "labels": labels,
        "managedFields": managed,
        "name": n.name,
        "resourceVersion": c.rv(),
        "uid": uid("node", c.name, n.name, ts(created)),
    }
    if n.is_server:
        meta["finalizers"] = ["wrangler.cattle.io/managed-etcd-controller", "wrangler.cattle.io/node"]
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": spec, "status": status}


def deep_merge(a, b):
    out = dict(a)
    for k, v in b.items():
        out[k] = deep_merge(out[k], v) if k in out else v
    return out


def merge_managed(entries):
    """The API server keeps one managedFields entry per (manager, operation, subresource): the latest write."""
    merged = {}
    for e in entries:
        key = (e["manager"], e["operation"], e.get("subresource"))
        if key in merged:
            prev = merged[key]
            e = dict(e, fieldsV1=deep_merge(prev["fieldsV1"], e["fieldsV1"]), time=max(prev["time"], e["time"]))
        merged[key] = e
    return sorted(merged.values(), key=lambda e: e["time"])


def owner(node_obj):
    return [{"apiVersion": "v1", "kind": "Node", "name": node_obj["metadata"]["name"],
             "uid": node_obj["metadata"]["uid"]}]


def lease_object(c, n, node_obj):
    created = n.created + timedelta(seconds=1)
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {
            "creationTimestamp": ts(created),
            "managedFields": [mf("kubelet", n.lease_renew,
                                 fields("f:metadata|f:ownerReferences|.",
                                        "f:metadata|f:ownerReferences|k:{\"uid\":\"" + node_obj["metadata"]["uid"]
                                        + "\"}", "f:spec|f:holderIdentity", "f:spec|f:leaseDurationSeconds",
                                        "f:spec|f:renewTime"), api="coordination.k8s.io/v1")],
            "name": n.name,
            "namespace": "kube-node-lease",
            "ownerReferences": owner(node_obj),
            "resourceVersion": c.rv(),
            "uid": uid("lease", c.name, n.name, ts(n.created)),
        },
        "spec": {"holderIdentity": n.name, "leaseDurationSeconds": 40, "renewTime": mts(n.lease_renew)},
    }


# k3s/RKE2 started typing node-password Secrets (and owning them by the Node) in late 2025; Secrets
# created before keep the API's default type Opaque and carry no ownerReference.
TYPED_SINCE = datetime(2025, 11, 1, tzinfo=timezone.utc)


def secret_object(c, n, node_obj, distribution="rke2"):
    created = n.created - timedelta(seconds=2)  # the supervisor writes it before the kubelet registers
    typed = created >= TYPED_SINCE and c.typed_secrets
    meta = {
        "creationTimestamp": ts(created),
        "managedFields": [mf(distribution + "-supervisor" if typed else distribution, created,
                             fields("f:immutable", "f:type") if typed else fields("f:immutable"))],
        "name": n.name.lower() + ".node-password." + distribution,
        "namespace": "kube-system",
        "resourceVersion": c.rv(),
        "uid": uid("secret", c.name, n.name, ts(n.created)),
    }
    if typed:
        meta["ownerReferences"] = owner(node_obj)
    # metadata only: `nodegate collect` never writes data, and neither do these examples
    return {"apiVersion": "v1", "immutable": True, "kind": "Secret", "metadata": meta,
            "type": distribution + ".cattle.io/node-password" if typed else "Opaque"}


def csinode_object(c, n, node_obj, driver="nfs.csi.k8s.io"):
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSINode",
        "metadata": {
            "annotations": {"storage.alpha.kubernetes.io/migrated-plugins":
                            "kubernetes.io/aws-ebs,kubernetes.io/azure-disk,kubernetes.io/azure-file,"
                            "kubernetes.io/cinder,kubernetes.io/gce-pd,kubernetes.io/portworx-volume,"
                            "kubernetes.io/vsphere-volume"},
            "creationTimestamp": ts(n.created + timedelta(seconds=3)),
            "name": n.name,
            "ownerReferences": owner(node_obj),
            "resourceVersion": c.rv(),
            "uid": uid("csinode", c.name, n.name, ts(n.created)),
        },
        "spec": {"drivers": [{"name": driver, "nodeID": n.name, "topologyKeys": None}] if driver else None},
    }


def endpointslice(c, server_ips, created):
    return kube_list([{
        "addressType": "IPv4",
        "apiVersion": "discovery.k8s.io/v1",
        "endpoints": [{"addresses": [ip], "conditions": {"ready": True}} for ip in server_ips],
        "kind": "EndpointSlice",
        "metadata": {
            "creationTimestamp": ts(created),
            "generation": 1 + len(server_ips),
            "labels": {"kubernetes.io/service-name": "kubernetes"},
            "name": "kubernetes",
            "namespace": "default",
            "resourceVersion": c.rv(),
            "uid": uid("eps", c.name),
        },
        "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}],
    }])


def daemonset(c, namespace, name, image_ref, nodes, created, ready_pred=lambda n: n.ready):
    desired = len(nodes)
    ready = sum(1 for n in nodes if ready_pred(n))
    labels = {"app.kubernetes.io/name": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {
            "annotations": {"deprecated.daemonset.template.generation": "3"},
            "creationTimestamp": ts(created),
            "generation": 3,
            "labels": labels,
            "name": name,
            "namespace": namespace,
            "resourceVersion": c.rv(),
            "uid": uid("ds", c.name, namespace, name),
        },
        "spec": {
            "revisionHistoryLimit": 10,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"image": image_ref, "name": name.split("-")[-1]}],
                         "tolerations": [{"operator": "Exists"}]},
            },
            "updateStrategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}, "type": "RollingUpdate"},
        },
        "status": {
            "currentNumberScheduled": desired,
            "desiredNumberScheduled": desired,
            "numberAvailable": ready,
            "numberMisscheduled": 0,
            "numberReady": ready,
            "numberUnavailable": desired - ready if desired - ready else None,
            "observedGeneration": 3,
            "updatedNumberScheduled": desired,
        },
    }


def strip_none(obj):
    if isinstance(obj, dict):
        return {k: strip_none(v) for k, v in obj.items() if v is not None}
    if isinstance(obj, list):
        return [strip_none(v) for v in obj]
    return obj


def safe_concat_name(name):
    """wrangler's name.SafeConcatName, as system-upgrade-controller names Jobs: at most 63 characters."""
    if len(name) <= 63:
        return name
    return name[:57].rstrip("-") + "-" + hashlib.sha256(name.encode()).hexdigest()[:5]


def upgrader_job(c, node_name, plan_hash, created, outcome):
    """Job that system-upgrade-controller creates for Rancher's system-agent-upgrader Plan on one node."""
    name = safe_concat_name(f"apply-system-agent-upgrader-on-{node_name}-with-{plan_hash}")
    labels = {"plan.upgrade.cattle.io/system-agent-upgrader": plan_hash,
              "upgrade.cattle.io/controller": "system-upgrade-controller",
              "upgrade.cattle.io/node": node_name,
              "upgrade.cattle.io/plan": "system-agent-upgrader",
              "upgrade.cattle.io/version": "v0.3.13-suc"}
    status = {"startTime": ts(created)}
    if outcome == "failed":
        end = created + timedelta(seconds=900)
        status.update({"failed": 1, "conditions": [
            {"lastProbeTime": ts(end), "lastTransitionTime": ts(end),
             "message": "Job was active longer than specified deadline", "reason": "DeadlineExceeded",
             "status": "True", "type": "FailureTarget"},
            {"lastProbeTime": ts(end), "lastTransitionTime": ts(end),
             "message": "Job was active longer than specified deadline", "reason": "DeadlineExceeded",
             "status": "True", "type": "Failed"}], "ready": 0, "terminating": 0})
    elif outcome == "complete":
        end = created + timedelta(seconds=23)
        status.update({"succeeded": 1, "completionTime": ts(end), "conditions": [
            {"lastProbeTime": ts(end), "lastTransitionTime": ts(end),
             "message": "Reached expected number of succeeded pods", "reason": "CompletionsReached",
             "status": "True", "type": "SuccessCriteriaMet"},
            {"lastProbeTime": ts(end), "lastTransitionTime": ts(end),
             "message": "Reached expected number of succeeded pods", "reason": "CompletionsReached",
             "status": "True", "type": "Complete"}], "ready": 0, "terminating": 0})
    else:  # active: the pod is bound to a silent node and never starts
        status.update({"active": 1, "ready": 0, "terminating": 0})
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "annotations": {"upgrade.cattle.io/plan-latest-version": "v0.3.13-suc"},
            "creationTimestamp": ts(created),
            "generation": 1,
            "labels": labels,
            "name": name,
            "namespace": "cattle-system",
            "ownerReferences": [{"apiVersion": "upgrade.cattle.io/v1", "blockOwnerDeletion": True,
                                 "controller": True, "kind": "Plan", "name": "system-agent-upgrader",
                                 "uid": uid("plan", c.name)}],
            "resourceVersion": c.rv(),
            "uid": uid("job", c.name, name),
        },
        "spec": {
            "activeDeadlineSeconds": 900,
            "backoffLimit": 2,
            "completionMode": "NonIndexed",
            "completions": 1,
            "manualSelector": False,
            "parallelism": 1,
            "podReplacementPolicy": "TerminatingOrFailed",
            "suspend": False,
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchExpressions": [
                            {"key": "kubernetes.io/hostname", "operator": "In", "values": [node_name]}]}]}}},
                    "containers": [{"image": "docker.io/rancher/system-agent:v0.3.13-suc", "name": "upgrade"}],
                    "hostIPC": True, "hostNetwork": True, "hostPID": True,
                    "restartPolicy": "Never",
                    "serviceAccountName": "system-agent-upgrader",
                    "tolerations": [{"operator": "Exists"}],
                },
            },
            "ttlSecondsAfterFinished": None,
        },
        "status": status,
    }


def control_plane_leases(c, servers, holder_of):
    """kube-system Leases: leader election and apiserver identity (read by the redundancy check)."""
    items = []
    for name, duration in (("kube-controller-manager", 15), ("kube-scheduler", 15),
                           ("cloud-controller-manager", 15), (c.distro, 45), (c.distro + "-etcd", 45)):
        holder = holder_of[name]
        renew = c.now - timedelta(seconds=1, microseconds=348211 + 7919 * len(name))
        items.append({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"creationTimestamp": ts(servers[0].created + timedelta(minutes=1)),
                         "name": name, "namespace": "kube-system", "resourceVersion": c.rv(),
                         "uid": uid("cplease", c.name, name)},
            "spec": {"acquireTime": mts(c.now - timedelta(days=4, hours=3, seconds=17, microseconds=420115)),
                     "holderIdentity": holder if name.startswith(c.distro) else holder + "_" + uid("leader", c.name, name),
                     "leaseDurationSeconds": duration, "leaseTransitions": 11,
                     "renewTime": mts(renew)},
        })
    for s in servers:
        ident = "apiserver-" + hexid(26, "apiserver", c.name, s.name)
        items.append({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"creationTimestamp": ts(s.host.boot + timedelta(seconds=40)),
                         "labels": {"apiserver.kubernetes.io/identity": "kube-apiserver",
                                    "kubernetes.io/hostname": s.name},
                         "name": ident, "namespace": "kube-system", "resourceVersion": c.rv(),
                         "uid": uid("idlease", c.name, s.name)},
            "spec": {"holderIdentity": ident + "_" + uid("idholder", c.name, s.name),
                     "leaseDurationSeconds": 3600,
                     "renewTime": mts(c.now - timedelta(seconds=4, microseconds=101937 * (1 + servers.index(s))))},
        })
    return kube_list(items)


def write_cluster(dirname, c, jobs, daemonsets, context=None, apiservers=None, pods=None):
    """jobs None: no Rancher, cattle-system proven absent. apiservers: the servers in default/kubernetes
    (default: every Ready server). pods: written as pods.json, as `collect --with-pods` does."""
    out = os.path.join(HERE, dirname)
    if os.path.isdir(out):
        for f in os.listdir(out):
            if f.endswith(".json"):
                os.remove(os.path.join(out, f))
    nodes = sorted(c.nodes, key=lambda n: n.name)
    node_objs = {n.name: node_object(c, n) for n in nodes}
    write(dirname, "nodes.json", kube_list([node_objs[n.name] for n in nodes]))
    write(dirname, "node-leases.json", kube_list([lease_object(c, n, node_objs[n.name]) for n in nodes]))
    write(dirname, "node-password-secrets.json",
          kube_list(sorted([secret_object(c, n, node_objs[n.name], c.distro) for n in nodes],
                           key=lambda s: s["metadata"]["name"])))
    write(dirname, "csinodes.json", kube_list([csinode_object(c, n, node_objs[n.name]) for n in nodes]))
    # a stopped apiserver drops out of default/kubernetes and its identity Lease expires
    servers = apiservers or [n for n in nodes if n.is_server and n.ready]
    write(dirname, "kubernetes-endpointslices.json", endpointslice(c, [s.ip for s in servers], servers[0].created))
    write(dirname, "daemonsets.json", kube_list([strip_none(d) for d in daemonsets]))
    if jobs is not None:
        write(dirname, "cattle-system-jobs.json", kube_list([strip_none(j) for j in jobs]))
    if pods is not None:
        write(dirname, "pods.json", kube_list(pods))
    pick = lambda i: servers[i % len(servers)].name
    holders = {"kube-controller-manager": pick(1), "kube-scheduler": pick(0), "cloud-controller-manager": pick(2),
               c.distro: pick(0), c.distro + "-etcd": pick(1)}
    write(dirname, "kube-system-leases.json", control_plane_leases(c, servers, holders))
    # ConfigMaps in nodegate-system, as `collect` saves them: no host was removed with `nodegate remove` here
    write(dirname, "tombstones.json", kube_list([]))
    collected = {"absent": [] if jobs is not None else ["cattle-system-jobs"], "collectedAt": ts(c.now),
                 "context": context or c.name, "kind": "NodegateCollection", "server": c.server,
                 "serverVersion": c.server_version}
    if pods is not None:
        collected["pods"] = True
    write(dirname, "collected.json", collected)
    return node_objs


# ---------------------------------------------------------------- cluster A (seed 000)

def cluster_a(moment):
    """Cluster A at D+15 06:10Z ('batch-stop') or D+17 04:05Z ('renamed-rejoin')."""
    now = day(15, "06:10:00") if moment == "batch-stop" else day(17, "04:05:00")
    c = Cluster("cluster-a", now, "https://192.0.2.10:6443", "v1.34.3+rke2r3", "192.0.2.10", "c-m8q2x",
                4812200 if moment == "batch-stop" else 5243900, 42)

    def fresh(seconds_ago, micro):
        return now - timedelta(seconds=seconds_ago, microseconds=micro)

    def ready_node(name, host, ip, created, idx, **kw):
        # a live kubelet: status patched within the last 5 min, Lease renewed within the last 10 s
        return NodeSpec(name, host, ip, created, last_status=fresh(17 + (idx * 37) % 260, 0),
                        lease_renew=fresh(0.4 + (idx * 2.9) % 9.2, (idx * 104729) % 1000000), **kw)

    maintenance = datetime(2026, 9, 21, 17, 2, 0, tzinfo=timezone.utc)  # last planned reboot wave
    idx = 0
    # control plane: etcd members
    for i in range(1, 4):
        idx += 1
        name = f"ctl-{i}"
        host = Host(name, maintenance + timedelta(minutes=9 * i, seconds=13 * i), cores=16, mem_gib=64,
                    kernel="5.15.0-153-generic")
        c.nodes.append(ready_node(name, host, f"192.0.2.{10 + i}",
                                  datetime(2025, 3, 11, 2, 10 + 14 * i, 5 * i, tzinfo=timezone.utc), idx,
                                  roles=("control-plane", "etcd", "master"),
                                  etcd_member=f"{name}-{hexid(8, 'etcd-member', name)}"))
    # ordinary CPU workers; keep-1 is the positive control of seed 000
    cpu_created = [datetime(2026, 1, 20, 6, 31, 44, tzinfo=timezone.utc)] + [
        datetime(2025, 3, 12, 1, 5, 0, tzinfo=timezone.utc) + timedelta(days=41 * k, minutes=17 * k) for k in range(6)]
    for k, name in enumerate(["keep-1"] + [f"cpu-w0{j}" for j in range(1, 7)]):
        idx += 1
        host = Host(name, maintenance + timedelta(minutes=40 + 6 * k, seconds=7 * k), cores=48, mem_gib=384)
        c.nodes.append(ready_node(name, host, f"192.0.2.{21 + k}", cpu_created[k], idx, roles=("worker",)))
    # the training pool (4090): gpu-t01..t11 stay, gpu-b01/b02 are among the 13 being moved
    for k in range(1, 12):
        idx += 1
        name = f"gpu-t{k:02d}"
        host = Host(name, maintenance + timedelta(minutes=70 + 4 * k, seconds=3 * k), cores=64, mem_gib=512,
                    gpus=8, gpu_model="NVIDIA-GeForce-RTX-4090")
        c.nodes.append(ready_node(name, host, f"192.0.2.{130 + k}",
                                  datetime(2025, 11, 18, 3, 0, 0, tzinfo=timezone.utc) + timedelta(days=9 * k, minutes=23 * k),
                                  idx, roles=("train",), gpu_taint_at=datetime(2025, 11, 18, 3, 30, tzinfo=timezone.utc)
                                  + timedelta(days=9 * k, minutes=23 * k)))
    cordon_base = day(1, "01:02:11")  # D+1 10:02 KST: cordon + drain of the 13
    for k in (1, 2):
        idx += 1
        name = f"gpu-b{k:02d}"
        host = Host(name, maintenance + timedelta(minutes=120 + 5 * k), cores=64, mem_gib=512, gpus=8,
                    gpu_model="NVIDIA-GeForce-RTX-4090")
        created = datetime(2026, 2, 3, 5, 12, 0, tzinfo=timezone.utc) + timedelta(minutes=31 * k)
        c.nodes.append(ready_node(name, host, f"192.0.2.{120 + k}", created, idx, roles=("train",),
                                  gpu_taint_at=created + timedelta(minutes=20),
                                  cordoned_at=cordon_base + timedelta(minutes=31 + 2 * k, seconds=9 * k)))

    # the 4080 burn-in pool gpu-a01..a11, registered half a year before D+0 (seed: "D-180")
    a_created = {k: day(-180, "04:%02d:%02d" % (10 + 3 * k, (17 * k) % 60)) for k in range(1, 12)}
    a_boot = {k: datetime(2026, 8, 30, 22, 10, 0, tzinfo=timezone.utc) + timedelta(minutes=3 * k, seconds=11 * k)
              for k in range(1, 12)}
    # D+9: a07, a08, a09, a11 rebooted and came back Ready under the same name
    d9_boot = {7: day(9, "04:12:40"), 8: day(9, "04:13:02"), 9: day(9, "04:14:29"), 11: day(9, "04:16:51")}
    a_boot.update(d9_boot)
    # D+15 (before the batch): a03 and a05 came back with new IPs, attaching to their old objects
    a_boot[3] = day(15, "01:40:55")
    a_boot[5] = day(15, "01:54:07")
    a_ip = {k: f"192.0.2.{100 + k}" for k in range(1, 12)}
    a_ip[3], a_ip[5] = "203.0.113.23", "203.0.113.25"
    # Lease stops. a01, a02, a04 went silent on D+2, minutes apart (no batch); a06 on D+8.
    stops = {1: day(2, "02:14:07", 388120), 2: day(2, "02:31:52", 905311), 4: day(2, "05:47:29", 17003),
             6: day(8, "07:41:19", 640557),
             # D+15 14:23 KST: the batch. Seed: a07 renewTime 05:23:42.676430Z; four within 12 s
             9: day(15, "05:23:40", 912384), 7: day(15, "05:23:42", 676430), 8: day(15, "05:23:47", 105227),
             10: day(15, "05:23:52", 318906)}
    # last kubelet status PATCH before each stop (seed: a07 05:23:24Z)
    last_status = {1: day(2, "02:11:58"), 2: day(2, "02:28:40"), 4: day(2, "05:45:02"), 6: day(8, "07:38:51"),
                   9: day(15, "05:21:07"), 7: day(15, "05:23:24"), 8: day(15, "05:22:48"), 10: day(15, "05:19:55")}
    # Ready=Unknown lands on the first 5 s monitor tick >= renewTime + 50 s (ticks at :00/:05 here)
    def unknown_at(stop):
        t = stop + timedelta(seconds=50)
        t = t.replace(microsecond=0) + (timedelta(seconds=1) if t.microsecond else timedelta())
        return t + timedelta(seconds=(5 - t.second % 5) % 5)
    # NoExecute through the zone rate limiter (0.1/s, burst 1): a09 first at once, then one per 10 s
    noexecute = {1: unknown_at(stops[1]), 2: unknown_at(stops[2]), 4: unknown_at(stops[4]),
                 6: unknown_at(stops[6]),
                 9: day(15, "05:24:35"), 7: day(15, "05:24:45"), 8: day(15, "05:24:55"), 10: day(15, "05:25:05")}
    for k in range(1, 12):
        idx += 1
        name = f"gpu-a{k:02d}"
        host = Host(name, a_boot[k], cores=32, mem_gib=256, gpus=8, gpu_model="NVIDIA-GeForce-RTX-4080")
        kw = dict(roles=("burnin",), gpu_taint_at=a_created[k] + timedelta(minutes=12),
                  cordoned_at=cordon_base + timedelta(minutes=2 * k, seconds=(13 * k) % 60))
        if k in stops:
            n = NodeSpec(name, host, a_ip[k], a_created[k], last_status=last_status[k], lease_renew=stops[k],
                         unknown_at=unknown_at(stops[k]), noexecute_at=noexecute[k], **kw)
        else:
            n = ready_node(name, host, a_ip[k], a_created[k], idx, **kw)
        c.nodes.append(n)
    assert unknown_at(stops[7]) == day(15, "05:24:35"), "seed: gpu-a07 Unknown at 05:24:35Z"

    if moment == "renamed-rejoin":
        # D+17 ~11:48 KST: the receiving team renamed and re-IP'd three hosts and rebooted them before any
        # cleanup; /etc/rancher/rke2/config.yaml and an enabled rke2-agent brought them back as new Nodes.
        by_name = {n.name: n for n in c.nodes}
        for new, old, joined, ip in (("new-01", "gpu-a02", day(17, "02:48:12"), "203.0.113.51"),
                                     ("new-02", "gpu-a01", day(17, "02:49:40"), "203.0.113.52"),
                                     ("new-03", "gpu-a04", day(17, "02:53:05"), "203.0.113.53")):
            old_host = by_name[old].host
            host = Host(old_host.key, joined - timedelta(seconds=44), cores=32, mem_gib=256, gpus=8,
                        gpu_model="NVIDIA-GeForce-RTX-4080")
            assert host.system_uuid == old_host.system_uuid and host.machine_id == old_host.machine_id
            idx += 1
            c.nodes.append(ready_node(new, host, ip, joined, idx, ready_since=joined + timedelta(seconds=33)))
    return c


def cluster_a_workloads(c, moment):
    nodes = c.nodes
    gpu_nodes = [n for n in nodes if n.host.gpus]
    created = datetime(2025, 3, 11, 3, 0, tzinfo=timezone.utc)
    ds = [
        daemonset(c, "kube-system", "rke2-canal", "docker.io/rancher/hardened-calico:v3.30.3-build20251015",
                  nodes, created),
        daemonset(c, "kube-system", "rke2-ingress-nginx-controller",
                  "docker.io/rancher/nginx-ingress-controller:v1.13.4-hardened2",
                  [n for n in nodes if not n.is_server and not n.cordoned_at], created),
        daemonset(c, "cattle-monitoring-system", "rancher-monitoring-prometheus-node-exporter",
                  "docker.io/rancher/mirrored-prometheus-node-exporter:v1.9.1", nodes,
                  datetime(2025, 4, 2, 8, 0, tzinfo=timezone.utc)),
        daemonset(c, "kube-system", "nfs-csi-node", "registry.k8s.io/sig-storage/nfsplugin:v4.11.0", nodes,
                  datetime(2025, 5, 6, 2, 0, tzinfo=timezone.utc)),
        daemonset(c, "gpu-operator", "nvidia-device-plugin-daemonset", "nvcr.io/nvidia/k8s-device-plugin:v0.17.4",
                  gpu_nodes, datetime(2025, 11, 17, 9, 0, tzinfo=timezone.utc)),
        daemonset(c, "gpu-operator", "nvidia-dcgm-exporter", "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.3.1-ubuntu22.04",
                  gpu_nodes, datetime(2025, 11, 17, 9, 0, tzinfo=timezone.utc)),
        daemonset(c, "infra-system", "node-check", "registry.example.internal/infra/node-check:2026.09.2",
                  gpu_nodes, datetime(2026, 3, 2, 1, 0, tzinfo=timezone.utc)),
    ]
    # Plan system-agent-upgrader (Rancher 2.15, concurrency 1). The D+9 revision ran everywhere; a new
    # revision started at D+15 05:40Z and reached the silent gpu-a07 first: its pod never started and the
    # Job hit activeDeadlineSeconds (900 s). The next node's Job then waited out its own deadline.
    old_hash, new_hash = hexid(56, "plan", "d9"), hexid(56, "plan", "d15")
    jobs = []
    t = day(9, "06:00:03")
    for n in sorted(nodes, key=lambda n: n.name):
        if n.name.startswith("new-"):
            continue
        if n.name in ("gpu-a01", "gpu-a02", "gpu-a03", "gpu-a04", "gpu-a05", "gpu-a06"):
            continue  # silent on D+9 (see below)
        jobs.append(upgrader_job(c, n.name, old_hash, t, "complete"))
        t += timedelta(seconds=31)
    # gpu-a03 and gpu-a05 ran the D+9 revision when they reattached on D+15. The D+9 Jobs of gpu-a01, a02,
    # a04 and a06 are not in this listing (not part of the seed's account).
    for n in nodes:
        if n.name in ("gpu-a03", "gpu-a05"):
            jobs.append(upgrader_job(c, n.name, old_hash, n.host.boot + timedelta(seconds=97), "complete"))
    new_rev = day(15, "05:40:12")
    order = ["gpu-a07", "gpu-a08", "gpu-a09", "gpu-a10"]
    for i, name in enumerate(order):
        created = new_rev + timedelta(seconds=901 * i)
        if created > c.now:
            break
        outcome = "failed" if created + timedelta(seconds=900) <= c.now else "active"
        jobs.append(upgrader_job(c, name, new_hash, created, outcome))
    if moment == "renamed-rejoin":
        for n in nodes:
            if n.name.startswith("new-"):
                jobs.append(upgrader_job(c, n.name, new_hash, n.created + timedelta(seconds=71), "complete"))
    return ds, jobs


# ---------------------------------------------------------------- healthy RKE2

def healthy():
    now = datetime(2026, 11, 2, 9, 30, 0, tzinfo=timezone.utc)
    c = Cluster("lab-rke2", now, "https://198.51.100.10:6443", "v1.34.3+rke2r3", "198.51.100.10", "c-7kp4d",
                918400, 43)
    boot = datetime(2026, 10, 19, 23, 5, 0, tzinfo=timezone.utc)
    for i in range(1, 4):
        name = f"srv-{i}"
        host = Host(name, boot + timedelta(minutes=7 * i), cores=8, mem_gib=32)
        c.nodes.append(NodeSpec(name, host, f"198.51.100.{10 + i}",
                                datetime(2025, 6, 2, 1, 0, 0, tzinfo=timezone.utc) + timedelta(minutes=12 * i),
                                roles=("control-plane", "etcd", "master"),
                                etcd_member=f"{name}-{hexid(8, 'etcd-member', name)}",
                                last_status=now - timedelta(seconds=40 + 61 * i),
                                lease_renew=now - timedelta(seconds=1 + 2 * i, microseconds=251003 * i)))
    # RKE2 agents carry no role label by default. wrk-4 joined 80 h ago: older than the 72 h newcomer window.
    created = {1: datetime(2025, 6, 2, 2, 0, tzinfo=timezone.utc), 2: datetime(2025, 8, 14, 5, 40, tzinfo=timezone.utc),
               3: datetime(2026, 1, 9, 7, 3, tzinfo=timezone.utc), 4: now - timedelta(hours=80)}
    for i in range(1, 5):
        name = f"wrk-{i}"
        b = boot + timedelta(minutes=30 + 5 * i) if i < 4 else created[4] - timedelta(seconds=40)
        host = Host(name, b, cores=16, mem_gib=64)
        c.nodes.append(NodeSpec(name, host, f"198.51.100.{20 + i}", created[i],
                                last_status=now - timedelta(seconds=12 + 47 * i),
                                lease_renew=now - timedelta(seconds=i * 1.9, microseconds=77731 * i)))
    ds = [daemonset(c, "kube-system", "rke2-canal", "docker.io/rancher/hardened-calico:v3.30.3-build20251015",
                    c.nodes, datetime(2025, 6, 2, 1, 5, tzinfo=timezone.utc)),
          daemonset(c, "kube-system", "rke2-ingress-nginx-controller",
                    "docker.io/rancher/nginx-ingress-controller:v1.13.4-hardened2",
                    [n for n in c.nodes if not n.is_server], datetime(2025, 6, 2, 1, 5, tzinfo=timezone.utc))]
    plan = hexid(56, "plan", "healthy")
    jobs = [upgrader_job(c, n.name, plan, datetime(2026, 10, 20, 2, 0, tzinfo=timezone.utc) + timedelta(seconds=29 * k),
                         "complete") for k, n in enumerate(sorted(c.nodes, key=lambda n: n.name))
            if n.created < datetime(2026, 10, 20, tzinfo=timezone.utc)]
    jobs.append(upgrader_job(c, "wrk-4", plan, created[4] + timedelta(seconds=65), "complete"))
    write_cluster("healthy", c, jobs, ds, context="lab-rke2")
    return c


# ---------------------------------------------------------------- seed 002 lab (kubeadm, duplicate InternalIP)

def lab_duplicate_ip():
    """Three kubeadm VMs whose first NIC all have the same address; the workers joined without --node-ip."""
    now = datetime(2026, 9, 8, 5, 40, 0, tzinfo=timezone.utc)
    rv = Versions(11800)
    nat_ip = "198.51.100.2"  # the seed's 10.0.2.2, mapped into RFC 5737
    # built on the course's first day, four days before this snapshot (so nothing here is a "newcomer")
    specs = [("controlplane", "192.0.2.10", now - timedelta(days=4, hours=2, minutes=14), True),
             ("node01", nat_ip, now - timedelta(days=4, hours=1, minutes=31), False),
             ("node02", nat_ip, now - timedelta(days=4, hours=1, minutes=28), False)]
    nodes, leases, csinodes = [], [], []
    for k, (name, ip, created, cp) in enumerate(specs):
        boot = created - timedelta(minutes=6)
        labels = {"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
                  "kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
        if cp:
            labels["node-role.kubernetes.io/control-plane"] = ""
            labels["node.kubernetes.io/exclude-from-external-load-balancers"] = ""
        node_uid = uid("node", "lab", name)
        last = now - timedelta(seconds=30 + 70 * k)
        net_up = created + timedelta(minutes=3)
        ready = created + timedelta(minutes=3, seconds=9)

        def cond(t, reason, msg, st="False"):
            return {"lastHeartbeatTime": ts(last), "lastTransitionTime": ts(ready if t == "Ready" else created),
                    "message": msg, "reason": reason, "status": st, "type": t}
        node = {
            "apiVersion": "v1", "kind": "Node",
            "metadata": {
                "annotations": {"flannel.alpha.coreos.com/backend-data":
                                json.dumps({"VNI": 1, "VtepMAC": mac("lab", name)}, separators=(",", ":")),
                                "flannel.alpha.coreos.com/backend-type": "vxlan",
                                "flannel.alpha.coreos.com/kube-subnet-manager": "true",
                                "flannel.alpha.coreos.com/public-ip": ip,
                                "kubeadm.alpha.kubernetes.io/cri-socket": "unix:///var/run/containerd/containerd.sock",
                                "node.alpha.kubernetes.io/ttl": "0",
                                "volumes.kubernetes.io/controller-managed-attach-detach": "true"},
                "creationTimestamp": ts(created), "labels": labels,
                "managedFields": [
                    mf("kubelet", created, fields("f:metadata|f:labels|f:kubernetes.io/hostname")),
                    mf("kubeadm", created + timedelta(seconds=2),
                       fields("f:metadata|f:annotations|f:kubeadm.alpha.kubernetes.io/cri-socket")),
                    mf("flanneld", net_up, fields("f:metadata|f:annotations|f:flannel.alpha.coreos.com/public-ip",
                                                  "f:status|f:conditions|k:{\"type\":\"NetworkUnavailable\"}|.|f:type"),
                       subresource="status"),
                    mf("kubelet", last, fields("f:status|f:conditions|k:{\"type\":\"Ready\"}|f:lastHeartbeatTime",
                                               "f:status|f:nodeInfo|f:bootID"), subresource="status")],
                "name": name, "resourceVersion": rv(), "uid": node_uid},
            "spec": {"podCIDR": f"10.244.{k}.0/24", "podCIDRs": [f"10.244.{k}.0/24"]},
            "status": {
                "addresses": [{"address": ip, "type": "InternalIP"}, {"address": name, "type": "Hostname"}],
                "allocatable": {"cpu": "2", "ephemeral-storage": "18698430040", "hugepages-2Mi": "0",
                                "memory": "3927556Ki", "pods": "110"},
                "capacity": {"cpu": "2", "ephemeral-storage": "20289200Ki", "hugepages-2Mi": "0",
                             "memory": "4029956Ki", "pods": "110"},
                "conditions": [
                    {"lastHeartbeatTime": ts(net_up), "lastTransitionTime": ts(net_up),
                     "message": "Flannel is running on this node", "reason": "FlannelIsUp", "status": "False",
                     "type": "NetworkUnavailable"},
                    cond("MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                    cond("DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                    cond("PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                    cond("Ready", "KubeletReady", "kubelet is posting ready status", "True")],
                "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                "images": sorted_images([
                    image("registry.k8s.io/kube-proxy", "v1.34.2", 31898754),
                    image("ghcr.io/flannel-io/flannel", "v0.27.4", 33052261),
                    image("ghcr.io/flannel-io/flannel-cni-plugin", "v1.8.0-flannel1", 4869410),
                    image("registry.k8s.io/pause", "3.10.1", 320448)]
                    + ([image("registry.k8s.io/etcd", "3.6.4-0", 74311308),
                        image("registry.k8s.io/kube-apiserver", "v1.34.2", 27058926),
                        image("registry.k8s.io/kube-controller-manager", "v1.34.2", 22819474),
                        image("registry.k8s.io/kube-scheduler", "v1.34.2", 17381409),
                        image("registry.k8s.io/coredns/coredns", "v1.12.1", 22384805)] if cp else [])),
                "nodeInfo": {"architecture": "amd64", "bootID": uid("boot", "lab", name, ts(boot)),
                             "containerRuntimeVersion": "containerd://1.7.28", "kernelVersion": "6.8.0-85-generic",
                             "kubeProxyVersion": "", "kubeletVersion": "v1.34.2",
                             "machineID": hexid(32, "machine-id", "lab", name), "operatingSystem": "linux",
                             "osImage": "Ubuntu 24.04.3 LTS", "systemUUID": uid("system-uuid", "lab", name)}},
        }
        if cp:
            node["spec"]["taints"] = [{"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"}]
        nodes.append(node)
        renew = now - timedelta(seconds=2 + 3 * k, microseconds=412337 + 1000 * k)
        leases.append({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                       "metadata": {"creationTimestamp": ts(created + timedelta(seconds=1)), "name": name,
                                    "namespace": "kube-node-lease",
                                    "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": name,
                                                         "uid": node_uid}],
                                    "resourceVersion": rv(), "uid": uid("lease", "lab", name)},
                       "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": mts(renew)}})
        csinodes.append({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                         "metadata": {"creationTimestamp": ts(created + timedelta(seconds=3)), "name": name,
                                      "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": name,
                                                           "uid": node_uid}],
                                      "resourceVersion": rv(), "uid": uid("csinode", "lab", name)},
                         "spec": {"drivers": None}})
    d = "lab-duplicate-ip"
    write(d, "nodes.json", kube_list(nodes))
    write(d, "node-leases.json", kube_list(leases))
    write(d, "node-password-secrets.json", kube_list([]))  # kubeadm has no node-password mechanism
    write(d, "csinodes.json", kube_list([strip_none(x) for x in csinodes]))
    write(d, "kubernetes-endpointslices.json", kube_list([{
        "addressType": "IPv4", "apiVersion": "discovery.k8s.io/v1",
        "endpoints": [{"addresses": ["192.0.2.10"], "conditions": {"ready": True}}], "kind": "EndpointSlice",
        "metadata": {"creationTimestamp": ts(specs[0][2]), "generation": 1,
                     "labels": {"kubernetes.io/service-name": "kubernetes"}, "name": "kubernetes",
                     "namespace": "default", "resourceVersion": rv(), "uid": uid("eps", "lab")},
        "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}]))

    lab = SimpleNamespace(name="lab", rv=rv)  # what daemonset() needs of a cluster
    ready_node = SimpleNamespace(ready=True)
    write(d, "daemonsets.json", kube_list([
        strip_none(daemonset(lab, "kube-flannel", "kube-flannel-ds", "ghcr.io/flannel-io/flannel:v0.27.4",
                             [ready_node] * 3, specs[0][2])),
        strip_none(daemonset(lab, "kube-system", "kube-proxy", "registry.k8s.io/kube-proxy:v1.34.2",
                             [ready_node] * 3, specs[0][2]))]))
    write(d, "cattle-system-jobs.json", kube_list([]))  # no Rancher: the namespace does not exist
    write(d, "kube-system-leases.json", kube_list([
        {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
         "metadata": {"creationTimestamp": ts(specs[0][2]), "name": name, "namespace": "kube-system",
                      "resourceVersion": rv(), "uid": uid("cplease", "lab", name)},
         "spec": {"acquireTime": mts(specs[0][2] + timedelta(seconds=20, microseconds=118822)),
                  "holderIdentity": "controlplane_" + uid("leader", "lab", name), "leaseDurationSeconds": 15,
                  "leaseTransitions": 0, "renewTime": mts(now - timedelta(seconds=1, microseconds=530021))}}
        for name in ("kube-controller-manager", "kube-scheduler")]))
    write(d, "collected.json", {"absent": [], "collectedAt": ts(now), "context": "kubernetes-admin@kubernetes",
                                "kind": "NodegateCollection", "server": "https://192.0.2.10:6443",
                                "serverVersion": "v1.34.2"})


# ---------------------------------------------------------------- seed 001: k3s split brain

def split_brain():
    """cp-node-c, repaired, was started with `k3s server` and no --server: a second, one-member etcd cluster.

    The etcdctl files are real etcd output (capture-etcd.sh ran etcd on loopback, saved in raw/); here only
    URLs, the version string and the size/revision counters are rewritten to look like the seed's cluster.
    """
    now = datetime(2026, 6, 12, 1, 20, 0, tzinfo=timezone.utc)
    ips = {"cp-node-a": "192.0.2.31", "cp-node-b": "192.0.2.32", "cp-node-c": "192.0.2.33",
           "worker-01": "192.0.2.41", "worker-02": "192.0.2.42"}
    members = {"cp-node-a": "cp-node-a-0e5c3b1d", "cp-node-b": "cp-node-b-7a91f2c4", "cp-node-c": "cp-node-c-4d2b8e6f"}
    ports = {"2379" + str(i): ("cp-node-" + x, "2379") for i, x in zip((1, 2, 3), "abc")}
    ports.update({"2380" + str(i): ("cp-node-" + x, "2380") for i, x in zip((1, 2, 3), "abc")})

    def url(text):
        # http://127.0.0.1:2379N -> https://<that server's IP>:2379
        host, port = ports[text.rsplit(":", 1)[1]]
        return f"https://{ips[host]}:{port}"

    def raw(name):
        with open(os.path.join(HERE, "split-brain", "raw", name), encoding="utf-8") as f:
            return json.load(f)

    counters = {  # per side: dbSize, dbSizeInUse, revision, raftIndex (the loopback run had a near-empty db)
        "original": (48234496, 21803008, 18734512, 21450339),
        "separated": (3198976, 2785280, 5422, 6120),
    }

    def edit_status(entries, side_of):
        for e in entries:
            e["Endpoint"] = url(e["Endpoint"])
            st = e["Status"]
            side = side_of(st["header"]["cluster_id"])
            db, in_use, rev, idx = counters[side]
            st["header"]["revision"] = rev
            st["version"] = "3.5.9"  # k3s v1.27.9+k3s1 embeds etcd v3.5.9; the JSON shape is the same as 3.4's
            st["dbSize"], st["dbSizeInUse"] = db, in_use
            st["raftIndex"] = st["raftAppliedIndex"] = idx
            st["header"]["raft_term"] = st["raftTerm"] = terms[side]
        return entries

    def edit_members(doc):
        doc["header"]["raft_term"] = terms["original" if doc is original_members_raw else "separated"]
        for m in doc["members"]:
            m["peerURLs"] = [url(u) for u in m["peerURLs"]]
            m["clientURLs"] = [url(u) for u in m["clientURLs"]]
        return doc

    terms = {"original": 14, "separated": 2}  # 490 days and a few leader changes vs. 19 hours alone
    original_members_raw = raw("original-member-list.json")
    original_members = edit_members(original_members_raw)
    separated_members = edit_members(raw("separated-member-list.json"))
    original_id = original_members["header"]["cluster_id"]
    side_of = lambda cid: "original" if cid == original_id else "separated"
    sides = {
        "original-side": (original_members, edit_status(raw("original-endpoint-status-cluster.json"), side_of)),
        "separated-side": (separated_members, edit_status(raw("separated-endpoint-status.json"), side_of)),
    }

    def write_etcd():
        for side, (member_list, status) in sides.items():
            write_etcdctl(os.path.join("split-brain", side), "member-list.json", member_list)
            write_etcdctl(os.path.join("split-brain", side), "endpoint-status.json", status)

    repair_stop = datetime(2026, 6, 10, 7, 40, 12, 301554, tzinfo=timezone.utc)  # k3s stopped for the repair
    repaired_boot = datetime(2026, 6, 11, 6, 14, 37, tzinfo=timezone.utc)
    separated_start = datetime(2026, 6, 11, 6, 20, 4, tzinfo=timezone.utc)  # `k3s server`, no --server: AGE 19h
    old_boot = datetime(2026, 4, 20, 21, 30, 0, tzinfo=timezone.utc)  # last patch reboot, before the repair
    hosts = {n: Host(n, old_boot + timedelta(minutes=11 * k), cores=8, mem_gib=32, kernel="5.15.0-91-generic")
             for k, n in enumerate(ips)}
    created = {"cp-node-a": now - timedelta(days=490, hours=3), "cp-node-b": now - timedelta(days=75, hours=2),
               "cp-node-c": now - timedelta(days=77, hours=5), "worker-01": now - timedelta(days=340, hours=1),
               "worker-02": now - timedelta(days=313, hours=6)}
    server_args = {"cp-node-a": ["server", "--cluster-init", "--token", "********"],
                   "cp-node-b": ["server", "--server", "https://192.0.2.31:6443", "--token", "********"],
                   "cp-node-c": ["server", "--server", "https://192.0.2.31:6443", "--token", "********"]}
    common = dict(kubelet="v1.27.9+k3s1", rancher=False, os_image="Ubuntu 22.04.3 LTS")

    def live(name, idx, **kw):
        return NodeSpec(name, hosts[name], ips[name], created[name], last_status=now - timedelta(seconds=31 + 53 * idx),
                        lease_renew=now - timedelta(seconds=1 + 2.1 * idx, microseconds=93011 * idx), **common, **kw)

    orig = Cluster("k3s-prod", now, "https://192.0.2.31:6443", "v1.27.9+k3s1", "192.0.2.31", None, 77120400, 42)
    for k, name in enumerate(("cp-node-a", "cp-node-b")):
        orig.nodes.append(live(name, k, roles=("control-plane", "etcd", "master"), etcd_member=members[name],
                               extra_args=server_args[name]))
    for k, name in enumerate(("worker-01", "worker-02")):
        orig.nodes.append(live(name, k + 2))
    unknown = repair_stop + timedelta(seconds=52, microseconds=698446)
    orig.nodes.append(NodeSpec("cp-node-c", hosts["cp-node-c"], ips["cp-node-c"], created["cp-node-c"],
                               roles=("control-plane", "etcd", "master"), etcd_member=members["cp-node-c"],
                               extra_args=server_args["cp-node-c"], last_status=repair_stop - timedelta(seconds=96),
                               lease_renew=repair_stop, unknown_at=unknown, noexecute_at=unknown, **common))
    k3s_ds = lambda c: [
        daemonset(c, "kube-system", "svclb-traefik-5b2e4c1a", "docker.io/rancher/klipper-lb:v0.4.4", c.nodes,
                  c.nodes[0].created + timedelta(minutes=2)),
        daemonset(c, "monitoring", "node-exporter", "quay.io/prometheus/node-exporter:v1.7.0", c.nodes,
                  c.nodes[0].created + timedelta(days=3))]
    write_cluster("split-brain/original-side", orig, [], k3s_ds(orig), context="k3s-prod (from cp-node-a)")

    sep = Cluster("k3s-prod-separated", now + timedelta(seconds=90), "https://192.0.2.33:6443", "v1.27.9+k3s1",
                  "192.0.2.33", None, 1184300, 42)
    sep_host = Host("cp-node-c", repaired_boot, cores=8, mem_gib=32, kernel="5.15.0-91-generic")
    sep.nodes.append(NodeSpec("cp-node-c", sep_host, ips["cp-node-c"], separated_start,
                              roles=("control-plane", "etcd", "master"), etcd_member=members["cp-node-c"],
                              extra_args=["server"], last_status=sep.now - timedelta(seconds=48),
                              lease_renew=sep.now - timedelta(seconds=3, microseconds=207815),
                              ready_since=separated_start + timedelta(seconds=21), **common))
    write_cluster("split-brain/separated-side", sep, [], k3s_ds(sep), context="default (on cp-node-c)")
    write_etcd()


# ---------------------------------------------------------------- seed 003: k3s home lab, redundancy per role

def pod_object(c, namespace, name, node, created, image_ref, owner_kind, owner_name, phase="Running", ip=None,
               restarts=None):
    """A Pod as `kubectl get pods -A -o json` lists it: bound (spec.nodeName), with the phase the count reads.
    restarts: (count, last termination time) of a container that keeps exiting."""
    app = owner_name if owner_kind != "ReplicaSet" else owner_name.rsplit("-", 1)[0]
    container = app.split("-")[-1]
    status = {"hostIP": node.ip, "hostIPs": [{"ip": node.ip}], "phase": phase, "qosClass": "BestEffort",
              "startTime": ts(created + timedelta(seconds=1))}
    if ip:
        status["podIP"], status["podIPs"] = ip, [{"ip": ip}]
    if phase == "Running":
        status["conditions"] = [{"lastProbeTime": None, "lastTransitionTime": ts(created + timedelta(seconds=s)),
                                 "status": "True", "type": t}
                                for t, s in (("PodScheduled", 0), ("Initialized", 2), ("ContainersReady", 9),
                                             ("Ready", 9))]
        cs = {"containerID": "containerd://" + hexid(64, "container", c.name, namespace, name),
              "image": image_ref, "imageID": image_ref.split(":")[0] + "@sha256:" + hexid(64, image_ref),
              "name": container, "ready": True, "restartCount": 0, "started": True,
              "state": {"running": {"startedAt": ts(created + timedelta(seconds=8))}}}
        if restarts:
            count, finished = restarts
            cs["restartCount"] = count
            cs["lastState"] = {"terminated": {
                "containerID": "containerd://" + hexid(64, "container", c.name, namespace, name, str(count - 1)),
                "exitCode": 1, "finishedAt": ts(finished), "reason": "Error",
                "startedAt": ts(finished - timedelta(hours=20, minutes=13))}}
            cs["state"] = {"running": {"startedAt": ts(finished + timedelta(seconds=1))}}
        status["containerStatuses"] = [cs]
    return strip_none({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"creationTimestamp": ts(created), "labels": {"app.kubernetes.io/name": app},
                     "name": name, "namespace": namespace,
                     "ownerReferences": [{"apiVersion": "batch/v1" if owner_kind == "Job" else "apps/v1",
                                          "blockOwnerDeletion": True, "controller": True, "kind": owner_kind,
                                          "name": owner_name, "uid": uid("owner", c.name, namespace, owner_name)}],
                     "resourceVersion": c.rv(), "uid": uid("pod", c.name, namespace, name)},
        "spec": {"containers": [{"image": image_ref, "name": container}], "nodeName": node.name,
                 "restartPolicy": "Never" if owner_kind == "Job" else "Always", "schedulerName": "default-scheduler"},
        "status": status,
    })


def etcd_id(rank, *key):
    """uint64 member/cluster IDs; the top bits order the members as `etcdctl member list` prints them (by ID)."""
    return (rank << 62) | (int(hexid(16, *key), 16) & ((1 << 62) - 1))


def k3s_six_nodes():
    """Seed 003: six Ready nodes, three of them servers, but redundancy differs per role.

    solomon runs with disable-apiserver/-scheduler/-controller-manager and stays an etcd voter: etcd 3 layers,
    kube-apiserver 2 (ilwon, lemuel), the agents' failover list 2. Taints NoSchedule vs PreferNoSchedule show
    up as running pods (lemuel 6, solomon 6, ilwon 34). The seed redacted addresses to node names; here they
    are RFC 5737 addresses.
    """
    now = datetime(2026, 8, 15, 5, 10, 0, tzinfo=timezone.utc)  # the seed's numbers are from 2026-08-15
    ips = {"lemuel": "203.0.113.11", "ilwon": "203.0.113.12", "solomon": "203.0.113.13",
           "david": "203.0.113.21", "isagal": "203.0.113.22", "louise": "203.0.113.23"}
    members = {"ilwon": "ilwon-f3f37c02", "solomon": "solomon-0012157a", "lemuel": "lemuel-64066392"}  # seed
    lemuel_created = now - timedelta(days=116, hours=3, minutes=12)  # seed: the oldest node, 116 days
    created = {"lemuel": lemuel_created, "ilwon": lemuel_created + timedelta(days=2, hours=1, minutes=7),
               "solomon": lemuel_created + timedelta(days=2, hours=1, minutes=31),
               "david": lemuel_created + timedelta(days=3, hours=4), "isagal": lemuel_created + timedelta(days=9),
               "louise": lemuel_created + timedelta(days=23, hours=6, minutes=40)}
    # seed table: CPU and memory as kubectl reports them (capacity.cpu counts threads: solomon is a 2-core
    # i5-2415M with 4 threads)
    shape = {"lemuel": (4, 32715571), "ilwon": (12, 32191283), "solomon": (4, 15732044),
             "david": (6, 15833498), "isagal": (40, 15728652), "louise": (8, 16252931)}
    boot = datetime(2026, 7, 28, 18, 2, 0, tzinfo=timezone.utc)
    c = Cluster("k3s-home", now, f"https://{ips['ilwon']}:6443", "v1.35.4+k3s1", ips["lemuel"], None, 48211500, 42)
    common = dict(kubelet="v1.35.4+k3s1", rancher=False, runtime="containerd://2.2.3-k3s1",
                  os_image="Ubuntu 24.04.2 LTS")
    lemuel_url = f"https://{ips['lemuel']}:6443"
    server_args = {
        "lemuel": ["server", "--cluster-init", "--token", "********"],
        "ilwon": ["server", "--server", lemuel_url, "--token", "********"],
        # /etc/rancher/k3s/config.yaml ends with the three disable-* lines; k3s records config-file values as
        # flag/value pairs in k3s.io/node-args
        "solomon": ["server", "--server", lemuel_url, "--token", "********", "--disable-apiserver", "true",
                    "--disable-controller-manager", "true", "--disable-scheduler", "true"],
    }
    taints = {"lemuel": {"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"},
              "ilwon": {"effect": "PreferNoSchedule", "key": "dedicated", "value": "management"},
              "solomon": {"effect": "NoSchedule", "key": "dedicated", "value": "storage"}}
    for k, name in enumerate(ips):
        cores, mem_ki = shape[name]
        host = Host(name, boot + timedelta(minutes=6 * k, seconds=17 * k), cores=cores, mem_ki=mem_ki,
                    kernel="6.8.0-71-generic")
        kw = dict(last_status=now - timedelta(seconds=23 + 41 * k),
                  lease_renew=now - timedelta(seconds=1 + 1.6 * k, microseconds=61843 * (k + 1)), **common)
        if name in server_args:
            kw.update(roles=("control-plane", "etcd", "master"), etcd_member=members[name],
                      extra_args=server_args[name], extra_taints=[taints[name]],
                      tainted_at=created[name] + timedelta(days=30 + 7 * k, hours=2))
        c.nodes.append(NodeSpec(name, host, ips[name], created[name], **kw))
    by_name = {n.name: n for n in c.nodes}

    ds_created = lemuel_created + timedelta(days=4)
    daemonsets = [("kube-system", "node-local-dns", "registry.k8s.io/dns/k8s-dns-node-cache:1.26.4"),
                  ("kube-system", "node-healer", "registry.example.internal/home/node-healer:2026.07.3"),
                  ("monitoring", "node-exporter", "quay.io/prometheus/node-exporter:v1.9.1"),
                  ("logging", "promtail", "docker.io/grafana/promtail:3.5.1")]
    ds = [daemonset(c, ns, name, img, c.nodes, ds_created + timedelta(hours=3 * i))
          for i, (ns, name, img) in enumerate(daemonsets)]

    pods = []
    pod_ip_count = {}

    # seed, section 5: the operators still restart with "leader election lost" (count, last termination)
    restarting = {"sops-operator": (62, datetime(2026, 8, 15, 4, 46, 45, tzinfo=timezone.utc)),
                  "elastic-operator": (60, datetime(2026, 8, 14, 4, 49, 32, tzinfo=timezone.utc))}

    def add(namespace, name, node, owner_kind, owner_name, image_ref, phase="Running", t=None):
        n = by_name[node]
        pod_ip_count[node] = pod_ip_count.get(node, 1) + 1
        ip = f"10.42.{c.pod_cidr(n).split('.')[2]}.{pod_ip_count[node]}" if phase == "Running" else None
        restarts = next((v for k, v in restarting.items() if name.startswith(k + "-")), None)
        if restarts:  # the same pods the 08-05 note counted 57 and 56 restarts on: created well before
            t = lemuel_created + timedelta(days=31, hours=len(pods))
        pods.append(pod_object(c, namespace, name, n, t or now - timedelta(days=3, minutes=97 * len(pods)),
                               image_ref, owner_kind, owner_name, phase, ip, restarts))

    for ns, name, img in daemonsets:
        for node in ips:
            add(ns, f"{name}-{hexid(5, 'dspod', name, node)}", node, "DaemonSet", name, img)
    # lemuel (NoSchedule): only what tolerates the control-plane taint. k3s' coredns and metrics-server do.
    for ns, dep, img in (("kube-system", "coredns", "docker.io/rancher/mirrored-coredns-coredns:1.12.3"),
                         ("kube-system", "metrics-server", "docker.io/rancher/mirrored-metrics-server:v0.8.0")):
        rs = f"{dep}-{hexid(9, 'rs', dep)}"
        add(ns, f"{rs}-{hexid(5, 'pod', dep)}", "lemuel", "ReplicaSet", rs, img)
    # solomon (dedicated=storage:NoSchedule): the ES cold tier, the only workload that tolerates it
    for i in range(2):
        add("elastic", f"elasticsearch-es-cold-{i}", "solomon", "StatefulSet", "elasticsearch-es-cold",
            "docker.elastic.co/elasticsearch/elasticsearch:8.18.2")
    # everything else lands on ilwon (PreferNoSchedule: avoided, not excluded) and the three workers
    workloads = [
        ("argocd", "argocd-server", 2), ("argocd", "argocd-repo-server", 2), ("argocd", "argocd-redis", 1),
        ("argocd", "argocd-applicationset-controller", 1), ("argocd", "argocd-notifications-controller", 1),
        ("argocd", "argocd-dex-server", 1), ("velero", "velero", 1), ("sops-operator", "sops-operator", 1),
        ("elastic-system", "elastic-operator", 1), ("elastic", "elasticsearch-es-hot", 3),
        ("elastic", "elasticsearch-es-warm", 2), ("elastic", "kibana-kb", 1), ("logging", "loki", 3),
        ("monitoring", "prometheus", 2), ("monitoring", "alertmanager", 2), ("monitoring", "grafana", 2),
        ("monitoring", "kube-state-metrics", 1), ("monitoring", "prometheus-operator", 1),
        ("cert-manager", "cert-manager", 1), ("cert-manager", "cert-manager-cainjector", 1),
        ("cert-manager", "cert-manager-webhook", 1), ("kube-system", "traefik", 2),
        ("kube-system", "local-path-provisioner", 1), ("kube-system", "nfs-subdir-provisioner", 1),
        ("external-dns", "external-dns", 1), ("sealed-secrets", "sealed-secrets-controller", 1),
        ("gitea", "gitea", 1), ("gitea", "gitea-postgresql", 1), ("vaultwarden", "vaultwarden", 1),
        ("nextcloud", "nextcloud", 2), ("nextcloud", "nextcloud-redis", 1), ("nextcloud", "nextcloud-postgresql", 1),
        ("immich", "immich-server", 1), ("immich", "immich-machine-learning", 1), ("immich", "immich-postgresql", 1),
        ("paperless", "paperless-ngx", 1), ("home-assistant", "home-assistant", 1), ("jellyfin", "jellyfin", 1),
        ("homepage", "homepage", 2), ("uptime-kuma", "uptime-kuma", 1), ("minio", "minio", 4),
        ("harbor", "harbor-core", 2), ("harbor", "harbor-registry", 2), ("harbor", "harbor-portal", 1),
        ("harbor", "harbor-jobservice", 1), ("harbor", "harbor-database", 1), ("harbor", "harbor-redis", 1),
        ("kyverno", "kyverno-admission-controller", 3), ("kyverno", "kyverno-background-controller", 1),
        ("kyverno", "kyverno-cleanup-controller", 1), ("kyverno", "kyverno-reports-controller", 1),
        ("metallb-system", "metallb-controller", 1), ("tailscale", "tailscale-operator", 1),
        ("renovate", "renovate-dashboard", 1), ("mealie", "mealie", 1), ("miniflux", "miniflux", 2),
        ("miniflux", "miniflux-postgresql", 1), ("n8n", "n8n", 2), ("ntfy", "ntfy", 1), ("adguard", "adguard-home", 2),
        ("wikijs", "wikijs", 1), ("wikijs", "wikijs-postgresql", 1), ("code-server", "code-server", 1),
        ("freshrss", "freshrss", 1), ("syncthing", "syncthing", 1), ("linkding", "linkding", 1),
        ("changedetection", "changedetection", 1), ("changedetection", "browserless-chrome", 2),
        ("stirling-pdf", "stirling-pdf", 1), ("excalidraw", "excalidraw", 2), ("it-tools", "it-tools", 2),
        ("cyberchef", "cyberchef", 1), ("dashy", "dashy", 1), ("audiobookshelf", "audiobookshelf", 1),
        ("navidrome", "navidrome", 1), ("photoprism", "photoprism", 1), ("photoprism", "photoprism-mariadb", 1),
        ("actual", "actual-budget", 1), ("firefly", "firefly-iii", 1), ("firefly", "firefly-mariadb", 1),
        ("grocy", "grocy", 1), ("kavita", "kavita", 1), ("calibre", "calibre-web", 1), ("tandoor", "tandoor", 1),
        ("tandoor", "tandoor-postgresql", 1), ("paperless", "paperless-redis", 1), ("immich", "immich-redis", 1),
        ("gitea", "gitea-runner", 2), ("monitoring", "blackbox-exporter", 1), ("reloader", "reloader", 1),
        ("trivy-system", "trivy-operator", 1),
    ]
    # per node, as the seed counted Running pods: ilwon 34, david 34, isagal 32, louise 34 (4 DaemonSet pods each)
    slots = {"ilwon": 30, "david": 30, "isagal": 28, "louise": 30}
    order = [node for node in ("ilwon", "david", "isagal", "louise") for _ in range(slots[node])]
    replicas = [(ns, dep, i) for ns, dep, r in workloads for i in range(r)]
    assert len(replicas) == len(order), (len(replicas), len(order))
    # spread each Deployment's replicas over different nodes, deterministically
    placement = {}
    free = dict(slots)
    for ns, dep, i in replicas:
        start = int(hexid(4, "spread", ns, dep), 16) % 4
        for step in range(4):
            node = ("ilwon", "david", "isagal", "louise")[(start + i + step) % 4]
            if free[node]:
                free[node] -= 1
                placement[(ns, dep, i)] = node
                break
    for (ns, dep, i), node in placement.items():
        stateful = dep.endswith(("postgresql", "mariadb", "redis", "database", "-hot", "-warm")) or dep in (
            "loki", "prometheus", "alertmanager", "minio")
        image_ref = f"registry.example.internal/home/{dep}:stable"
        if stateful:
            add(ns, f"{dep}-{i}", node, "StatefulSet", dep, image_ref)
        else:
            rs = f"{dep}-{hexid(9, 'rs', ns, dep)}"
            add(ns, f"{rs}-{hexid(5, 'pod', ns, dep, str(i))}", node, "ReplicaSet", rs, image_ref)
    # the latest Velero backup Jobs' pods: Succeeded, still bound to their nodes (the seed's 149 Succeeded pods
    # are mostly these). They must not count as running.
    for k, (schedule, node) in enumerate((("hourly-critical", "ilwon"), ("hourly-critical", "david"),
                                          ("daily-with-volumes", "ilwon"))):
        job = f"velero-{schedule}-{(now - timedelta(hours=2 * k + 1)).strftime('%Y%m%d%H%M%S')}"
        add("velero", f"{job}-{hexid(5, 'jobpod', job)}", node, "Job", job, "docker.io/velero/velero:v1.16.1",
            phase="Succeeded", t=now - timedelta(hours=2 * k + 1))
    pods.sort(key=lambda p: (p["metadata"]["namespace"], p["metadata"]["name"]))
    running = {}
    for p in pods:
        if p["status"]["phase"] == "Running":
            running[p["spec"]["nodeName"]] = running.get(p["spec"]["nodeName"], 0) + 1
    assert running == {"lemuel": 6, "ilwon": 34, "solomon": 6, "david": 34, "isagal": 32, "louise": 34}, running

    d = "k3s-six-nodes"
    apiservers = [by_name["ilwon"], by_name["lemuel"]]  # solomon: disable-apiserver, never in default/kubernetes
    write_cluster(d, c, None, ds, context="default", apiservers=apiservers, pods=pods)

    # etcdctl -w json, run on ilwon against https://127.0.0.1:2379 (member list) and with --cluster (status)
    cluster_id = etcd_id(1, "etcd-cluster", c.name)
    ids = {name: etcd_id(rank, "etcd-member", members[name])
           for rank, name in ((1, "ilwon"), (2, "solomon"), (3, "lemuel"))}  # seed's member list order
    term, revision, index = 9, 31870214, 35512977
    member_list = {"header": {"cluster_id": cluster_id, "member_id": ids["ilwon"], "raft_term": term},
                   "members": [{"ID": ids[n], "name": members[n], "peerURLs": [f"https://{ips[n]}:2380"],
                                "clientURLs": [f"https://{ips[n]}:2379"]}
                               for n in sorted(ids, key=ids.get)]}
    status = [{"Endpoint": f"https://{ips[n]}:2379",
               "Status": {"header": {"cluster_id": cluster_id, "member_id": ids[n], "revision": revision,
                                     "raft_term": term},
                          "version": "3.6.7", "dbSize": 92647424, "leader": ids["lemuel"],
                          "raftIndex": index + k, "raftTerm": term, "raftAppliedIndex": index + k,
                          "dbSizeInUse": 61390848, "storageVersion": "3.6.0", "dbSizeQuota": 2147483648}}
              for k, n in enumerate(sorted(ids, key=ids.get))]
    write_etcdctl(d, "member-list.json", member_list)
    write_etcdctl(d, "endpoint-status.json", status)


# ---------------------------------------------------------------- seed 000's departure, seen from both clusters

def fleet_departure():
    """D+15: cluster A as in cluster-a-batch-stop, and cluster B read a minute later. gpu-a07..a09 stopped renewing
    their Leases in A at 05:23:4xZ because their agents were restarted against B (only `server` changed in the RKE2
    config, no reboot: the bootID stays that of the D+9 boot); each registered in B about 3 s later under a new name.
    gpu-a10 stopped in the same batch but was really shut down: it appears in A only."""
    a = cluster_a("batch-stop")
    ds, jobs = cluster_a_workloads(a, "batch-stop")
    write_cluster("fleet-departure/cluster-a", a, jobs, ds)
    by_name = {n.name: n for n in a.nodes}

    now = day(15, "06:11:00")
    b = Cluster("cluster-b", now, "https://198.51.100.40:6443", "v1.34.3+rke2r3", "198.51.100.40", "c-m3k9d",
                2204100, 44)
    boot = datetime(2026, 9, 28, 21, 4, 0, tzinfo=timezone.utc)

    def live(name, host, ip, created, idx, **kw):
        return NodeSpec(name, host, ip, created, last_status=now - timedelta(seconds=23 + (idx * 41) % 240),
                        lease_renew=now - timedelta(seconds=0.7 + (idx * 3.1) % 9.0, microseconds=(idx * 7919) % 1000000),
                        **kw)

    idx = 0
    for i in range(1, 4):
        idx += 1
        name = f"b-ctl-{i}"
        host = Host(name, boot + timedelta(minutes=8 * i), cores=16, mem_gib=64)
        b.nodes.append(live(name, host, f"198.51.100.{40 + i}",
                            datetime(2025, 12, 1, 3, 0, 0, tzinfo=timezone.utc) + timedelta(minutes=11 * i), idx,
                            roles=("control-plane", "etcd", "master"),
                            etcd_member=f"{name}-{hexid(8, 'etcd-member', name)}"))
    for i in range(1, 5):
        idx += 1
        name = f"b-gpu-{i:02d}"
        host = Host(name, boot + timedelta(minutes=30 + 4 * i), cores=32, mem_gib=256, gpus=8,
                    gpu_model="NVIDIA-GeForce-RTX-4080")
        b.nodes.append(live(name, host, f"198.51.100.{60 + i}",
                            datetime(2026, 1, 14, 2, 0, 0, tzinfo=timezone.utc) + timedelta(days=3 * i), idx))
    # the three arrivals: same machine (systemUUID and machine-id), same boot, about 3 s after each Lease stopped
    for k in (7, 8, 9):
        idx += 1
        old = by_name[f"gpu-a{k:02d}"]
        joined = (old.lease_renew + timedelta(seconds=3)).replace(microsecond=0)
        host = Host(old.host.key, old.host.boot, cores=32, mem_gib=256, gpus=8, gpu_model="NVIDIA-GeForce-RTX-4080")
        assert host.system_uuid == old.host.system_uuid and host.machine_id == old.host.machine_id
        b.nodes.append(live(f"b-gpu-{k:02d}", host, f"198.51.100.{60 + k}", joined, idx,
                            ready_since=joined + timedelta(seconds=31)))
    assert by_name["gpu-a07"].lease_renew == day(15, "05:23:42", 676430), "seed: gpu-a07 stopped 05:23:42Z"
    write_cluster("fleet-departure/cluster-b", b, [], [], context="cluster-b")
    return a, b


def handover_case_2():
    """Seed 000's case 2 as a hand-over record: gpu-a06..a10 were to go to the receiving team's cluster. Step 0 (the
    request) and step 1 (cordon, drain) were recorded on D+1; the owner's reply (step 2) never came. The record is
    what `kubectl get nodehandover a06-a10-to-recv -o json` shows on D+15 before nodegate looks again: the identity
    of each target as read at open (the D+1 bootIDs, before the D+9 reboots), no status yet. Read it against
    fleet-departure's two clusters to see what the procedure's don'ts say about D+15."""
    a = cluster_a("batch-stop")
    by_name = {n.name: n for n in a.nodes}
    name = "a06-a10-to-recv"
    opened = day(1, "00:40:00")
    targets = []
    for k in range(6, 11):
        n = by_name[f"gpu-a{k:02d}"]
        obj = node_object(a, n)
        # the boot the hosts were on at open: the burn-in pool's last planned reboot, before D+9's
        open_boot = Host(n.host.key, datetime(2026, 8, 30, 22, 10, 0, tzinfo=timezone.utc)
                         + timedelta(minutes=3 * k, seconds=11 * k))
        targets.append({"bootID": open_boot.boot_id(), "gpus": 8, "internalIPs": [n.ip],
                        "kubeletVersion": n.kubelet, "machineID": obj["status"]["nodeInfo"]["machineID"],
                        "node": n.name, "roles": ["burnin"],
                        "systemUUID": obj["status"]["nodeInfo"]["systemUUID"],
                        "taints": ["nvidia.com/gpu:NoSchedule", "node.kubernetes.io/unschedulable:NoSchedule"],
                        "uid": obj["metadata"]["uid"]})
    nodes = [t["node"] for t in targets]
    step1 = [{"name": "cordoned/" + n, "value": "PASS"} for n in nodes]
    step1.append({"name": "silences", "value": "NOT_CHECKED"})
    record = {
        "apiVersion": "nodegate.io/v1alpha1", "kind": "NodeHandover",
        "metadata": {"creationTimestamp": ts(opened), "generation": 2, "name": name, "resourceVersion": "4811321",
                     "uid": uid("nodehandover", name)},
        "spec": {
            "destination": {"cluster": "recv-cluster", "context": "recv"},
            "due": "2026-10-31", "nodes": nodes, "requester": "lee", "silence": {"duration": "4h", "matchers": []},
            "steps": [
                {"at": ts(opened), "by": "lee", "evidence": [{"name": "ticket",
                                                              "value": "https://chat.example/t/a06-a10"}],
                 "message": "gpu-a06..a10 to the receiving team (burn-in done)", "step": 0},
                {"at": ts(day(1, "01:40:00")), "by": "kim", "evidence": step1,
                 "message": "cordoned and drained", "step": 1}],
            "targets": targets, "ticket": "https://chat.example/t/a06-a10", "type": "move"},
    }
    write("handover-case-2", "nodehandover.json", record)


def main():
    for moment in ("batch-stop", "renamed-rejoin"):
        c = cluster_a(moment)
        ds, jobs = cluster_a_workloads(c, moment)
        write_cluster("cluster-a-" + moment, c, jobs, ds)
    healthy()
    lab_duplicate_ip()
    split_brain()
    k3s_six_nodes()
    fleet_departure()
    handover_case_2()


if __name__ == "__main__":
    main()
