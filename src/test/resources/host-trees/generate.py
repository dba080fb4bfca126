#!/usr/bin/env python3
"""Writes the fake host trees that HostInspectTest reads (deterministic; the files it writes are what you read).

Each case directory holds `tree/` (what `host inspect --root` reads, laid out as on the host), `units/` (what
`systemctl show` printed for each unit on such a host) and `systemctl` (a link to ../systemctl-stub.sh, which
answers from units/). The cases are the host states of seed 000 (cluster A's GPU workers) and seed 002 (a
kubeadm lab whose VMs all have 10.0.2.2 on their first NIC).
"""
import os
import shutil
import socket
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
BTIME = 1792396800  # 2026-10-19T00:00:00Z: the boot time in /proc/stat
TOKEN = "K10c0ffee0123456789abcdef0123456789abcdef0123456789abcdef01234567::server:s3cr3t-t0ken-value"
PASSWORD = "9f2b7c1d4e5a6b8c"


def le(ip):
    return "%08X" % struct.unpack("<I", socket.inet_aton(ip))[0]


def write(path, text, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def host(case, hostname, machine_id, uuid, boot_id, nics, default, shims=0, cali=0, flannel=False, mounts=0,
         rke2_config=None, dropins=None, lb=None, password=False, scripts=(), kubeadm=None, units=None):
    """nics: [(name, ip, prefix)]; default: (nic, gateway) or None."""
    base = os.path.join(HERE, case)
    shutil.rmtree(base, ignore_errors=True)
    t = os.path.join(base, "tree")
    write(t + "/etc/hostname", hostname + "\n")
    write(t + "/proc/sys/kernel/hostname", hostname + "\n")
    write(t + "/etc/machine-id", machine_id + "\n")
    write(t + "/sys/class/dmi/id/product_uuid", uuid + "\n")
    write(t + "/proc/sys/kernel/random/boot_id", boot_id + "\n")
    write(t + "/proc/stat", "cpu  1 2 3 4\nbtime %d\nprocesses 4242\n" % BTIME)
    write(t + "/sys/class/net/lo/operstate", "unknown\n")
    routes = ["Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT"]
    if default:
        routes.append("%s\t00000000\t%s\t0003\t0\t0\t100\t00000000\t0\t0\t0" % (default[0], le(default[1])))
    trie = ["Main:", "  +-- 0.0.0.0/0 3 0 5"]
    for name, ip, prefix in nics:
        write(t + "/sys/class/net/%s/operstate" % name, "up\n")
        mask = (0xffffffff << (32 - prefix)) & 0xffffffff
        net = struct.unpack("!I", socket.inet_aton(ip))[0] & mask
        routes.append("%s\t%s\t00000000\t0001\t0\t0\t100\t%s\t0\t0\t0"
                      % (name, le(socket.inet_ntoa(struct.pack("!I", net))), le(socket.inet_ntoa(struct.pack("!I", mask)))))
        trie += ["     +-- %s/%d 2 0 2" % (socket.inet_ntoa(struct.pack("!I", net)), prefix),
                 "        |-- %s" % socket.inet_ntoa(struct.pack("!I", net)), "           /%d link UNICAST" % prefix,
                 "        |-- %s" % ip, "           /32 host LOCAL"]
    trie += ["Local:", "  +-- 127.0.0.0/8 2 0 2", "     |-- 127.0.0.1", "        /32 host LOCAL"]
    for i in range(cali):
        name = "cali%010x" % (0x5eed000000 + i * 7919)
        write(t + "/sys/class/net/%s/operstate" % name, "up\n")
        routes.append("%s\t%s\t00000000\t0005\t0\t0\t0\tFFFFFFFF\t0\t0\t0" % (name, le("10.42.3.%d" % (10 + i))))
    if flannel:
        write(t + "/sys/class/net/flannel.1/operstate", "unknown\n")
        write(t + "/sys/class/net/cni0/operstate", "up\n")
    write(t + "/proc/net/route", "\n".join(routes) + "\n")
    write(t + "/proc/net/fib_trie", "\n".join(trie) + "\n")
    write(t + "/proc/1/comm", "systemd\n")
    write(t + "/proc/812/comm", "sshd\n")
    for i in range(shims):
        write(t + "/proc/%d/comm" % (20000 + i * 13), "containerd-shim\n")
    m = ["/dev/sda1 / ext4 rw,relatime 0 0", "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0"]
    for i in range(mounts):
        m.append("tmpfs /var/lib/kubelet/pods/%08x-0000-4000-8000-00000000%04d/volumes/kubernetes.io~projected/"
                 "kube-api-access-%05d tmpfs rw,relatime,size=4194304k 0 0" % (0x3a7c0000 + i, i, i))
    write(t + "/proc/mounts", "\n".join(m) + "\n")
    if rke2_config is not None:
        write(t + "/etc/rancher/rke2/config.yaml", rke2_config)
    for name, text in (dropins or {}).items():
        write(t + "/etc/rancher/rke2/config.yaml.d/" + name, text)
    if lb is not None:
        write(t + "/var/lib/rancher/rke2/agent/etc/rke2-agent-load-balancer.json", lb)
    if password:
        write(t + "/etc/rancher/node/password", PASSWORD + "\n")
    for s in scripts:
        write(t + s, "#!/bin/sh\n# stand-in for the installed script\nexit 0\n")
    if rke2_config is not None or lb is not None:
        write(t + "/usr/local/bin/rke2", "stand-in for the rke2 binary\n")
    if kubeadm:
        write(t + "/etc/kubernetes/kubelet.conf", kubeadm[0])
        write(t + "/var/lib/kubelet/kubeadm-flags.env", kubeadm[1])
    for unit, props in (units or {}).items():
        write(base + "/units/" + unit, "".join("%s=%s\n" % kv for kv in props))
    if not units:
        os.makedirs(base + "/units", exist_ok=True)
        write(base + "/units/.keep", "")
    os.symlink("../systemctl-stub.sh", base + "/systemctl")


def unit(load, active, sub, file_state, inactive_mono="0"):
    return [("LoadState", load), ("ActiveState", active), ("SubState", sub), ("UnitFileState", file_state),
            ("InactiveEnterTimestampMonotonic", inactive_mono)]


A_SERVER = "https://192.0.2.10:9345"          # cluster A's fixed registration address (VIP)
B_SERVER = "https://198.51.100.50:9345"       # cluster B, where gpu-a07 went
LB_A = '{"ServerURL":"%s","ServerAddresses":["192.0.2.11:9345","192.0.2.12:9345","192.0.2.13:9345"],"Listener":null}\n' % A_SERVER
LB_B = '{"ServerURL":"%s","ServerAddresses":["198.51.100.51:9345","198.51.100.52:9345"],"Listener":null}\n' % B_SERVER
NICS = [("ens3", "192.0.2.27", 24)]
SCRIPTS = ["/usr/local/bin/rke2-uninstall.sh", "/usr/local/bin/rke2-killall.sh"]

# gpu-a11 after rancher-system-agent-uninstall.sh and rke2-uninstall.sh: nothing that can rejoin is left
host("clean", "gpu-a11", "3e1f5a7c9b2d4f6a8c0e1a3b5d7f9a11", "4C4C4544-0047-3310-8035-C4C04F4A3131",
     "0b7e9a52-6c1d-4e8f-9a3b-2d4c6e8f0a11", NICS, ("ens3", "192.0.2.1"))

# gpu-a10 after `systemctl stop rke2-agent` only: KillMode=process left the shims, pods' NICs and mounts
host("stopped", "gpu-a10", "3e1f5a7c9b2d4f6a8c0e1a3b5d7f9a10", "4C4C4544-0047-3310-8035-C4C04F4A3130",
     "0b7e9a52-6c1d-4e8f-9a3b-2d4c6e8f0a10", [("ens3", "192.0.2.26", 24)], ("ens3", "192.0.2.1"),
     shims=5, cali=3, flannel=True, mounts=6,
     rke2_config="server: %s\ntoken: %s\nnode-label:\n  - gpu=true\n" % (A_SERVER, TOKEN),
     dropins={"50-node-ip.yaml": "node-ip: 192.0.2.26\n"}, lb=LB_A, password=True, scripts=SCRIPTS,
     units={"rke2-agent": unit("loaded", "inactive", "dead", "enabled", "52200000000"),
            "rancher-system-agent": unit("loaded", "inactive", "dead", "disabled", "52100000000")})

# gpu-a07 as found on D+22: server switched to cluster B, rke2-agent disabled/failed, rancher-system-agent
# enabled/active, 13 containerd-shims, 8 cali* interfaces and 17 pod volume mounts still there
host("points-elsewhere", "gpu-a07", "3e1f5a7c9b2d4f6a8c0e1a3b5d7f9a07", "4C4C4544-0047-3310-8035-C4C04F4A3037",
     "b71434d8-2f5e-4c1a-9d3e-7a6b5c4d3e07", NICS[:0] + [("ens3", "192.0.2.23", 24)], ("ens3", "192.0.2.1"),
     shims=13, cali=8, flannel=True, mounts=17,
     rke2_config="server: %s\ntoken: %s\n" % (B_SERVER, TOKEN), lb=LB_B, password=True, scripts=SCRIPTS,
     units={"rke2-agent": unit("loaded", "failed", "failed", "disabled", "535000000000"),
            "rancher-system-agent": unit("loaded", "active", "running", "enabled")})

# gpu-a02 renamed new-01 by the receiving team and rebooted before cleanup: the old config registers it with
# cluster A under its new hostname
host("renamed-running", "new-01", "3e1f5a7c9b2d4f6a8c0e1a3b5d7f9a02", "4C4C4544-0047-3310-8035-C4C04F4A3032",
     "6a0c2e4f-8b1d-4f3a-9c5e-7d9f1b3d5f02", [("ens3", "198.51.100.21", 24)], ("ens3", "198.51.100.1"),
     shims=9, cali=4, flannel=True, mounts=11,
     rke2_config="server: %s\ntoken: %s\n" % (A_SERVER, TOKEN), lb=LB_A, password=True, scripts=SCRIPTS,
     units={"rke2-agent": unit("loaded", "active", "running", "enabled"),
            "rancher-system-agent": unit("loaded", "active", "running", "enabled")})

# seed 002's node02: kubeadm worker whose kubelet was started by hand, never enabled; node-ip unset, so the
# kubelet takes the NAT NIC (eth0, 10.0.2.2 on every VM) while the control plane is on eth1
host("kubelet-not-enabled", "node02", "7d3c1b9a5e2f4a6c8e0b2d4f6a8c0e02", "8E2D0C4A-61B7-4F3E-9A55-2C7D1E0F0002",
     "c4e6a8b0-1d3f-4b5a-8c7e-9f1a3b5c7e02", [("eth0", "10.0.2.2", 24), ("eth1", "192.168.56.22", 24)],
     ("eth0", "10.0.2.1"), shims=2, flannel=True, mounts=3,
     kubeadm=("apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    certificate-authority: /etc/kubernetes/pki/ca.crt\n"
              "    server: https://192.168.56.10:6443\n  name: default-cluster\n",
              'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock '
              '--pod-infra-container-image=registry.k8s.io/pause:3.10"\n'),
     units={"kubelet": unit("loaded", "active", "running", "disabled")})
