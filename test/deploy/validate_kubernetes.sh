#!/usr/bin/env bash
# deploy/kubernetes/*.yaml are valid objects of Kubernetes KUBE_VERSION,
# strictly (no unknown field), checked offline by kubernetes-validate
# against its bundled schemas; and a manifest with a wrong field fails, so
# the check can fail. With RC_SERVER, rc-server also starts with the
# settings file of the rc-server-config ConfigMap.
#   validate_kubernetes.sh SOURCE_DIR VENV KUBE_VERSION [RC_SERVER]
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
grep -qF -- "--config /etc/remote-clang/config/rc-server.toml" "$ds" ||
  fail "daemonset.yaml does not start rc-server with its settings file"

# rc-server starts with the ConfigMap's settings file.
if [ -n "${4:-}" ]; then
  toml="$(mktemp /tmp/rc-k8s.XXXXXX.toml)"
  "$venv/bin/python" -c '
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
config = next(d for d in docs if d["metadata"]["name"] == "rc-server-config")
sys.stdout.write(config["data"]["rc-server.toml"])' \
    "$src/deploy/kubernetes/settings.yaml" > "$toml" ||
    fail "settings.yaml has no rc-server-config with rc-server.toml"
  bash "$src/test/deploy/starts_with_config.sh" "$4" "$toml"
  started=$?
  rm -f "$toml"
  [ "$started" = 0 ] || fail "rc-server refused settings.yaml's rc-server.toml"
fi
echo "PASS: deploy/kubernetes is valid for Kubernetes $version"
