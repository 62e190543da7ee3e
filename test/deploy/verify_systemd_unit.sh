#!/usr/bin/env bash
# deploy/systemd/rc-server.service passes `systemd-analyze verify` without
# a single complaint, and keeps the settings docs/operations.md relies on;
# rc-server takes the shipped settings file (deploy/systemd/rc-server.toml).
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
         "$root/etc/default" "$root/etc/remote-clang"
cp -r "$system_units" "$root/usr/lib/systemd/system"
cp "$server" "$root/usr/bin/rc-server"
# ExecReload's /bin/kill (procps; /bin is /usr/bin on merged-/usr systems).
mkdir -p "$root/bin" && cp /bin/kill "$root/bin/kill"
cp "$src/deploy/systemd/rc-server.default" "$root/etc/default/rc-server"
cp "$src/deploy/systemd/rc-server.toml" "$root/etc/remote-clang/rc-server.toml"

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
    "EnvironmentFile=-/etc/default/rc-server" \
    "--config /etc/remote-clang/rc-server.toml" \
    "ExecReload=/bin/kill -HUP \$MAINPID" "KillSignal=SIGTERM" \
    "User=rc-server" "PrivateDevices=no" "DevicePolicy=closed" \
    "DeviceAllow=char-nvidia-frontend rw" "DeviceAllow=char-nvidia-uvm rw" \
    "ProtectSystem=strict" "ReadWritePaths=/var/lib/remote-clang" \
    "NoNewPrivileges=yes" "StateDirectory=remote-clang"; do
  grep -qF -- "$setting" "$unit_src" || fail "rc-server.service lacks $setting"
done
# A reload must see a changed key file: no copy of it made at start.
! grep -q "LoadCredential" "$unit_src" ||
  fail "rc-server.service copies the key at start: a reload would miss changes"

toml="$src/deploy/systemd/rc-server.toml"
grep -q '^listen = ' "$toml" && grep -q '^auth_key_file = "/etc/remote-clang/rc-server.key"' "$toml" ||
  fail "rc-server.toml lacks listen or the key file the unit's comments name"
bash "$src/test/deploy/starts_with_config.sh" "$server" "$toml" || exit 1
echo "PASS: rc-server.service verified"
