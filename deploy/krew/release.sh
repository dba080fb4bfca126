#!/usr/bin/env bash
# Builds the krew archive of one nodegate release and fills in deploy/krew/nodegate.yaml for it.
#
#   deploy/krew/release.sh BASE_URL HOMEPAGE OUT_DIR [JAR]
#
# BASE_URL: where the archive will be published (https://..., without the file name); HOMEPAGE: the project's
# public page; JAR: the built jar (default target/nodegate.jar, from `mvn -B package`). Writes
# OUT_DIR/kubectl-nodegate-vVERSION.tar.gz (kubectl-nodegate, kubectl_complete-nodegate, nodegate.jar, README.md) and OUT_DIR/nodegate.yaml
# with the version, the archive's URI and its sha256. Publish the archive at that URI, then submit the manifest to
# a krew index (or install from it: kubectl krew install --manifest=OUT_DIR/nodegate.yaml
# --archive=OUT_DIR/kubectl-nodegate-vVERSION.tar.gz).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
if [[ $# -lt 3 || $# -gt 4 ]]; then
    echo "usage: deploy/krew/release.sh BASE_URL HOMEPAGE OUT_DIR [JAR]" >&2
    exit 2
fi
base_url="${1%/}"
homepage="$2"
out_dir="$3"
jar="${4:-$repo_root/target/nodegate.jar}"
for url in "$base_url" "$homepage"; do
    [[ "$url" == https://* ]] || { echo "release.sh: '$url' is not an https:// URL (krew downloads over https)" >&2; exit 2; }
done
[[ -f "$jar" ]] || { echo "release.sh: $jar not found: build it first (mvn -B package)" >&2; exit 2; }

# the version the build wrote from pom.xml, as krew wants it: semantic, with a leading v
version="$(sed -n 's:.*<version>\(.*\)</version>.*:\1:p' "$repo_root/pom.xml" | head -1)"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || { echo "release.sh: pom.xml version '$version' is not semantic" >&2; exit 2; }
tag="v$version"
archive="kubectl-nodegate-$tag.tar.gz"

mkdir -p "$out_dir"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
install -m 0755 "$repo_root/deploy/krew/kubectl-nodegate" "$stage/kubectl-nodegate"
install -m 0755 "$repo_root/deploy/krew/kubectl_complete-nodegate" "$stage/kubectl_complete-nodegate"
install -m 0644 "$jar" "$stage/nodegate.jar"
install -m 0644 "$repo_root/README.md" "$stage/README.md"
# reproducible: fixed order, owner and time, so the same inputs give the same sha256
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='1970-01-01 00:00:00Z' -C "$stage" \
    -cf - kubectl-nodegate kubectl_complete-nodegate nodegate.jar README.md | gzip -n >"$out_dir/$archive"
sha="$(sha256sum "$out_dir/$archive" | cut -d' ' -f1)"

sed -e "s|RELEASE_VERSION|$tag|" -e "s|RELEASE_HOMEPAGE|$homepage|" \
    -e "s|RELEASE_URI|$base_url/$archive|" -e "s|RELEASE_SHA256|$sha|" \
    "$repo_root/deploy/krew/nodegate.yaml" | sed '/^# UNFINISHED/,/^# both this template/d' >"$out_dir/nodegate.yaml"
echo "$out_dir/$archive sha256 $sha"
echo "$out_dir/nodegate.yaml"
