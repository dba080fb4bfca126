// Command kubelet is a simulated kubelet: it does, against a real kube-apiserver and as the node itself
// (a client certificate for system:node:<name> in group system:nodes), the three things a kubelet does that
// nodegate reads: it registers its Node the way pkg/kubelet/kubelet_node_status.go does (POST; only on
// AlreadyExists GET and reconcile), renews its Lease in kube-node-lease every 10 s (pkg/kubelet/nodelease), and
// posts the Node's status (Ready condition heartbeats). It runs no pods. Stopping the process is a power-off:
// nothing more comes from that host.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
)

type host struct {
	name, hostname, ip, systemUUID, machineID, bootID, version string
	leaseSeconds                                            int32
}

func main() {
	var h host
	var kubeconfig string
	var leaseEvery, statusEvery time.Duration
	flag.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig with this node's client certificate")
	flag.StringVar(&h.name, "name", "", "Node name")
	flag.StringVar(&h.hostname, "hostname", "", "the host's name (rke2.io/hostname); defaults to --name")
	flag.StringVar(&h.ip, "ip", "", "InternalIP")
	flag.StringVar(&h.systemUUID, "system-uuid", "", "status.nodeInfo.systemUUID (the SMBIOS UUID)")
	flag.StringVar(&h.machineID, "machine-id", "", "status.nodeInfo.machineID (/etc/machine-id)")
	flag.StringVar(&h.bootID, "boot-id", "", "status.nodeInfo.bootID (new on every boot)")
	flag.StringVar(&h.version, "kubelet-version", "v1.34.4+rke2r1", "status.nodeInfo.kubeletVersion")
	flag.DurationVar(&leaseEvery, "lease-every", 10*time.Second, "Lease renewal interval (kubelet: 10 s)")
	flag.DurationVar(&statusEvery, "status-every", time.Minute, "status post interval")
	flag.Parse()
	if kubeconfig == "" || h.name == "" || h.ip == "" || h.systemUUID == "" || h.machineID == "" || h.bootID == "" {
		fmt.Fprintln(os.Stderr, "kubelet: --kubeconfig, --name, --ip, --system-uuid, --machine-id and --boot-id are required")
		os.Exit(2)
	}
	if h.hostname == "" {
		h.hostname = h.name
	}
	h.leaseSeconds = 40
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kubelet: %v\n", err)
		os.Exit(2)
	}
	cfg.Timeout = 10 * time.Second
	cfg.UserAgent = "kubelet/" + h.version + " (linux/amd64) nodegate-lab"
	client := kubernetes.NewForConfigOrDie(cfg)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	node := register(ctx, client, h)
	logf("registered Node %s uid=%s", node.Name, node.UID)
	postStatus(ctx, client, h)
	renew(ctx, client, h, node)
	leaseTick := time.NewTicker(leaseEvery)
	statusTick := time.NewTicker(statusEvery)
	for {
		select {
		case <-ctx.Done():
			return
		case <-leaseTick.C:
			renew(ctx, client, h, node)
		case <-statusTick.C:
			postStatus(ctx, client, h)
		}
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s %s\n", time.Now().UTC().Format(time.RFC3339), fmt.Sprintf(format, args...))
}

// desiredNode is what the kubelet POSTs: labels a kubelet may set on itself under NodeRestriction
// (kubernetes.io/hostname, arch, os, instance-type; node-role.kubernetes.io/* is refused for a kubelet and RKE2
// sets those with its own credentials), RKE2's annotations, and RKE2's providerID. Shape from a real RKE2
// v1.31.6+rke2r1 Node (shared/field/k8s/edgexr-nori-rke2/nodes.json).
func desiredNode(h host) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: h.name,
			Labels: map[string]string{
				"beta.kubernetes.io/arch":          "amd64",
				"beta.kubernetes.io/os":            "linux",
				"beta.kubernetes.io/instance-type": "rke2",
				"kubernetes.io/arch":               "amd64",
				"kubernetes.io/hostname":           h.hostname,
				"kubernetes.io/os":                 "linux",
				"node.kubernetes.io/instance-type": "rke2",
			},
			Annotations: map[string]string{
				"alpha.kubernetes.io/provided-node-ip":                    h.ip,
				"node.alpha.kubernetes.io/ttl":                            "0",
				"rke2.io/hostname":                                        h.hostname,
				"rke2.io/internal-ip":                                     h.ip,
				"rke2.io/node-args":                                       `["agent"]`,
				"rke2.io/node-env":                                        "{}",
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
			},
		},
		Spec: corev1.NodeSpec{ProviderID: "rke2://" + h.hostname},
	}
}

func desiredStatus(h host) corev1.NodeStatus {
	now := metav1.Now()
	cond := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: s, Reason: reason, Message: msg, LastHeartbeatTime: now, LastTransitionTime: now}
	}
	qty := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("8"),
		corev1.ResourceMemory:           resource.MustParse("32780364Ki"),
		corev1.ResourcePods:             resource.MustParse("110"),
		corev1.ResourceEphemeralStorage: resource.MustParse("101430960Ki"),
	}
	return corev1.NodeStatus{
		Capacity:    qty,
		Allocatable: qty,
		Conditions: []corev1.NodeCondition{
			cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
			cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
			cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
			cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
		},
		Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: h.ip},
			{Type: corev1.NodeHostName, Address: h.hostname},
		},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
		NodeInfo: corev1.NodeSystemInfo{
			MachineID:               h.machineID,
			SystemUUID:              h.systemUUID,
			BootID:                  h.bootID,
			KernelVersion:           "5.15.0-134-generic",
			OSImage:                 "Ubuntu 22.04.5 LTS",
			ContainerRuntimeVersion: "containerd://2.0.2-k3s2",
			KubeletVersion:          h.version,
			KubeProxyVersion:        h.version,
			OperatingSystem:         "linux",
			Architecture:            "amd64",
		},
	}
}

// register loops like tryRegisterWithAPIServer: POST; on AlreadyExists GET the existing Node and carry on with
// it; any other error (an admission policy's denial among them) is logged and retried, and no status is posted
// meanwhile.
func register(ctx context.Context, client kubernetes.Interface, h host) *corev1.Node {
	backoff := time.Second
	for {
		n := desiredNode(h)
		n.Status = desiredStatus(h)
		created, err := client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		if err == nil {
			return created
		}
		if apierrors.IsAlreadyExists(err) {
			existing, gerr := client.CoreV1().Nodes().Get(ctx, h.name, metav1.GetOptions{})
			if gerr == nil {
				return existing
			}
			err = gerr
		}
		logf("unable to register node %q with API server: %v", h.name, err)
		select {
		case <-ctx.Done():
			os.Exit(0)
		case <-time.After(backoff):
		}
		if backoff < 7*time.Second {
			backoff *= 2
		}
	}
}

func postStatus(ctx context.Context, client kubernetes.Interface, h host) {
	status := desiredStatus(h)
	patch, _ := json.Marshal(map[string]any{"status": status})
	if _, err := client.CoreV1().Nodes().Patch(ctx, h.name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		logf("error updating node status: %v", err)
	}
}

// renew creates or updates the Lease as pkg/kubelet/nodelease does: holder is the node name, 40 s duration,
// owned by the Node (so the garbage collector removes it with the Node).
func renew(ctx context.Context, client kubernetes.Interface, h host, node *corev1.Node) {
	leases := client.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	now := metav1.NewMicroTime(time.Now())
	lease, err := leases.Get(ctx, h.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		lease = &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{
				Name:      h.name,
				Namespace: corev1.NamespaceNodeLease,
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID,
				}},
			},
			Spec: coordinationv1.LeaseSpec{
				HolderIdentity:       ptr.To(h.name),
				LeaseDurationSeconds: ptr.To(h.leaseSeconds),
				RenewTime:            &now,
			},
		}
		if _, err = leases.Create(ctx, lease, metav1.CreateOptions{}); err != nil {
			logf("failed to create lease: %v", err)
		}
		return
	}
	if err != nil {
		logf("failed to get lease: %v", err)
		return
	}
	lease.Spec.RenewTime = &now
	lease.Spec.HolderIdentity = ptr.To(h.name)
	if _, err = leases.Update(ctx, lease, metav1.UpdateOptions{}); err != nil {
		logf("failed to update lease: %v", err)
	}
}
