// Command etcd is etcd's own server entry point, built from go.etcd.io/etcd/server/v3 at the version that
// kube-apiserver's release is tested with (see go.mod).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
