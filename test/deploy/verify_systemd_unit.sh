#!/usr/bin/env bash
# deploy/systemd/rc-server.service passes `systemd-analyze verify` without
# a single complaint, and keeps the settings docs/operations.md relies on.
#   verify_systemd_unit.sh SOURCE_DIR RC_SERVER
# systemd-analyze verify checks the unit against a root holding what the
# package installs (the unit, /usr/bin/rc-server, the settings) and this
# machine's own units (the targets it orders itself against); it needs no
# running systemd. Exits 77 (skipped) without systemd-analyze, or where it
# cannot verify even a trivial unit (some containers), saying which.
set -uo pipefail
src="$1" server="$2"
unit_src="$src/deploy/systemd/rc-server.service"

if ! command -v systemd-analyze >/dev/null; then
  echo "SKIP: systemd-analyze is not installed (scripts/setup.sh installs systemd)"
  exit 77
fi
system_units=/lib/systemd/system
[ -d "$system_units" ] || system_units=/usr/lib/systemd/system

root="$(mktemp -d /tmp/rc-unit.XXXXXX)"
trap 'rm -rf "$root"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$root/usr/bin" "$root/usr/lib/systemd" "$root/etc/systemd/system" \
         "$root/etc/default"
cp -r "$system_units" "$root/usr/lib/systemd/system"
cp "$server" "$root/usr/bin/rc-server"
cp "$src/deploy/systemd/rc-server.default" "$root/etc/default/rc-server"

# verify UNIT_TEXT: systemd-analyze's complaints about it, and its status.
verify() {
  printf '%s\n' "$1" > "$root/etc/systemd/system/rc-server.service"
  out="$(systemd-analyze verify --root="$root" /etc/systemd/system/rc-server.service 2>&1)"
}

trivial=$'[Service]\nType=oneshot\nExecStart=/usr/bin/rc-server --help'
if ! verify "$trivial" || [ -n "$out" ]; then
  echo "SKIP: systemd-analyze cannot verify units here (a trivial one gave: $out)"
  exit 77
fi

unit="$(cat "$unit_src")"
verify "$unit" || fail "systemd-analyze verify failed: $out"
[ -z "$out" ] || fail "systemd-analyze verify complains: $out"
echo "systemd-analyze verify: no complaint about rc-server.service"

# The check can fail: a misspelt key is reported.
verify "${unit/NoNewPrivileges=/NoNewPrivilege=}"
grep -q "Unknown key 'NoNewPrivilege'" <<<"$out" ||
  fail "systemd-analyze did not notice a misspelt key: $out"

# What docs/operations.md promises of the unit.
for setting in "Type=notify" "NotifyAccess=main" \
    "EnvironmentFile=/etc/default/rc-server" \
    "LoadCredential=rc-server.key:/etc/remote-clang/rc-server.key" \
    "--auth-key-file %d/rc-server.key" "KillSignal=SIGTERM" \
    "User=rc-server" "PrivateDevices=no" "DevicePolicy=closed" \
    "DeviceAllow=char-nvidia-frontend rw" "DeviceAllow=char-nvidia-uvm rw" \
    "ProtectSystem=strict" "ReadWritePaths=/var/lib/remote-clang" \
    "NoNewPrivileges=yes" "StateDirectory=remote-clang"; do
  grep -qF -- "$setting" "$unit_src" || fail "rc-server.service lacks $setting"
done
echo "PASS: rc-server.service verified"
