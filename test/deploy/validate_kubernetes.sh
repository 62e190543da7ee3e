#!/usr/bin/env bash
# deploy/kubernetes/*.yaml are valid objects of Kubernetes KUBE_VERSION,
# strictly (no unknown field), checked offline by kubernetes-validate
# against its bundled schemas; and a manifest with a wrong field fails, so
# the check can fail.
#   validate_kubernetes.sh SOURCE_DIR VENV KUBE_VERSION
# Exits 77 (skipped) when the venv lacks kubernetes-validate.
set -uo pipefail
src="$1" venv="$2" version="$3"
validate="$venv/bin/kubernetes-validate"
if [ ! -x "$validate" ]; then
  echo "SKIP: $validate is missing (scripts/setup.sh installs the pinned kubernetes-validate)"
  exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }
manifests=("$src"/deploy/kubernetes/*.yaml)
"$validate" --strict -k "$version" "${manifests[@]}" || fail "the manifests are not valid for Kubernetes $version"

broken="$(mktemp /tmp/rc-k8s.XXXXXX.yaml)"
trap 'rm -f "$broken"' EXIT
sed 's/terminationGracePeriodSeconds:/terminationGracePeriod:/' \
  "$src/deploy/kubernetes/daemonset.yaml" > "$broken"
if "$validate" --strict -k "$version" "$broken" > /dev/null 2>&1; then
  fail "kubernetes-validate accepted a DaemonSet with an unknown field"
fi

# What docs/operations.md promises of the DaemonSet.
ds="$src/deploy/kubernetes/daemonset.yaml"
for text in "nvidia.com/gpu: 1" "secretName: rc-server-key" \
    "name: rc-server-quotas" "tcpSocket:" "prometheus.io/scrape" \
    "nvidia.com/gpu.present"; do
  grep -qF "$text" "$ds" || fail "daemonset.yaml lacks $text"
done
echo "PASS: deploy/kubernetes is valid for Kubernetes $version"
