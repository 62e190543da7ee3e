#!/usr/bin/env bash
# The Debian packages as an operator meets them:
#   1. cpack builds remote-clang-client and remote-clang-server;
#   2. their declared dependencies name what the binaries need (dpkg-deb
#      -f), and apt-get can satisfy them here (apt-get install --simulate:
#      it reads, installs nothing); the server carries its systemd unit,
#      its settings and its maintainer scripts;
#   3. both are unpacked with dpkg -x into a temporary root (nothing on
#      this machine changes; postinst scripts do not run), which must not
#      name the build tree, the source tree, the venv or the CUDA root;
#   4. a sample CUDA project is built with the unpacked remote-clang++,
#      with a PATH that holds only /usr/bin and /bin: through the toolchain
#      file and find_package(RemoteClang), and by calling the driver;
#   5. it runs against the unpacked rc-server --test-device;
#   6. a built program travels: the binary and its manifest, moved to a
#      fresh folder, run with only the installed client;
#   7. the installed tree moves: the moved drivers still compile, and the
#      moved rc-run runs the program, whose RUNPATH now names nothing.
#
#   package_test.sh CPACK BUILD_DIR SOURCE_DIR VENV CUDA_ROOT HAVE_SERVER
# Exits 77 (skipped) without dpkg-deb or without rc-server in the build.
set -uo pipefail
cpack="$1" build="$2" src="$3" venv="$4" cuda_root="$5" have_server="$6"

if ! command -v dpkg-deb >/dev/null; then
  echo "SKIP: dpkg-deb is not installed (Debian's dpkg builds and reads the packages)"
  exit 77
fi
if [ "$have_server" != 1 ]; then
  echo "SKIP: this build has no rc-server (no cuda.h in RC_SERVER_CUDA_INCLUDE)"
  exit 77
fi

work="$(mktemp -d /tmp/rc-package.XXXXXX)"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
step() { echo "== $*"; }
# Only the system's programs: nothing of the build tree can be found.
clean() { env -i HOME="$work" PATH=/usr/bin:/bin "$@"; }

step "cpack: the two packages"
# gzip instead of the release's xz: the same contents, built faster.
if ! (cd "$build" && "$cpack" -G DEB -B "$work/packages" \
        -D CPACK_DEBIAN_COMPRESSION_TYPE=gzip) > "$work/cpack.log" 2>&1; then
  cat "$work/cpack.log"; fail "cpack could not build the packages"
fi
client="$(ls "$work"/packages/remote-clang-client_*.deb)" || fail "no client package"
server="$(ls "$work"/packages/remote-clang-server_*.deb)" || fail "no server package"
ls -l "$client" "$server"

step "declared dependencies"
client_deps="$(dpkg-deb -f "$client" Depends)"
server_deps="$(dpkg-deb -f "$server" Depends)"
echo "client: $client_deps"; echo "server: $server_deps"
names() { tr ',|' '\n\n' <<<"$1" | sed 's/^ *//; s/[ (].*//'; }
for dep in clang-19 python3 binutils libfabric1 libssl3 libstdc++6; do
  names "$client_deps" | grep -qxF "$dep" || fail "client does not depend on $dep"
done
for dep in libfabric1 libssl3 libstdc++6; do
  names "$server_deps" | grep -qxF "$dep" || fail "server does not depend on $dep"
done
names "$server_deps" | grep -q clang && fail "the GPU server must not need clang"
names "$server_deps" | grep -qxF adduser || fail "server does not depend on adduser"

step "the server package's service"
server_files="$(dpkg-deb -c "$server")"
for f in ./usr/bin/rc-server ./usr/lib/systemd/system/rc-server.service \
         ./usr/share/remote-clang-server/rc-server.default \
         ./usr/share/remote-clang-server/rc-server.toml; do
  grep -qF " $f" <<<"$server_files" || fail "the server package lacks $f"
done
server_control="$(dpkg-deb --ctrl-tarfile "$server" | tar -t)"
for f in ./postinst ./prerm ./postrm; do
  grep -qxF "$f" <<<"$server_control" || fail "the server package lacks $f"
done
if command -v apt-get >/dev/null; then
  step "apt-get install --simulate"
  # Resolves the packages' dependencies against this machine's state and
  # prints what it would do; as another user than root it may warn.
  if ! apt-get install --simulate -q "$client" "$server" > "$work/apt.log" 2>&1; then
    cat "$work/apt.log"; fail "apt-get cannot satisfy the packages' dependencies"
  fi
  grep -E "^Inst remote-clang-(client|server)" "$work/apt.log" || true
fi

step "unpacked into $work/root"
root="$work/root"
dpkg -x "$client" "$root" && dpkg -x "$server" "$root" || fail "dpkg -x"
for tree in "$build" "$src" "$(realpath "$venv")" "$(realpath "$cuda_root")"; do
  named="$(grep -rlF "$tree" "$root" | head -5)"
  [ -z "$named" ] || fail "the installed files name $tree:"$'\n'"$named"
done
dangling="$(find "$root" -xtype l | head -5)"
[ -z "$dangling" ] || fail "links that lead nowhere:"$'\n'"$dangling"

step "a CUDA project built with the installed toolchain"
project="$work/project"
mkdir -p "$project"
cp "$src/test/package/project/CMakeLists.txt" "$src"/test/samples/project/{twin_int.cu,twin_double.cu,check.h} "$project/"
clean cmake -S "$project" -B "$project/build" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$root/usr/lib/cmake/RemoteClang/remote-clang-toolchain.cmake" \
  -DCMAKE_PREFIX_PATH="$root/usr" > "$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "configure with the installed toolchain file"; }
clean ninja -C "$project/build" > "$work/ninja.log" 2>&1 ||
  { cat "$work/ninja.log"; fail "build with the installed toolchain"; }
# The Makefile way: the driver called by path.
(cd "$project" && clean "$root/usr/bin/remote-clang++" -O2 twin_double.cu -o twin_double) ||
  fail "remote-clang++ twin_double.cu"
for f in "$project/build/twin_int.rcm" "$project/twin_double.rcm"; do
  [ -s "$f" ] || fail "no manifest $f"
done
runpath="$(readelf -d "$project/build/twin_int" | grep -o 'runpath: \[.*\]')"
[ "$runpath" = "runpath: [$root/usr/lib/remote-clang]" ] ||
  fail "twin_int's RUNPATH is not the installed runtime's: $runpath"

step "run against the installed rc-server --test-device"
url="shm://rc-package-$$"
clean "$root/usr/bin/rc-server" --listen "$url" --test-device \
  --manifest "$project/build/twin_int.rcm" --manifest "$project/twin_double.rcm" \
  > "$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do
  grep -qs "listening on" "$work/server.log" && break
  sleep 0.1
done
grep -q "listening on" "$work/server.log" || { cat "$work/server.log"; fail "rc-server did not start"; }
expect_pass() { # NAME COMMAND...: the sample says PASS NAME
  local name="$1"; shift
  local out
  out="$(clean RC_SERVER="$url" timeout 60 "$@" 2>&1)"
  echo "$out" | sed "s/^/  $name| /"
  grep -q "^PASS $name\$" <<<"$out" || fail "$name: $*"
}
expect_pass twin_int "$project/build/twin_int" --test-device
expect_pass twin_double "$project/twin_double" --test-device

step "a built program travels"
elsewhere="$work/elsewhere"
mkdir "$elsewhere"
mv "$project/build/twin_int" "$project/build/twin_int.rcm" "$elsewhere/"
rm -rf "$project"
expect_pass twin_int "$elsewhere/twin_int" --test-device

step "the installed tree moves"
mv "$root" "$work/moved"
moved="$work/moved/usr"
echo 'int main() { return 0; }' > "$work/moved.cu"
clean "$moved/bin/remote-clang++" "$work/moved.cu" -o "$work/moved-check" ||
  fail "the moved remote-clang++ cannot compile"
[ "$(clean "$moved/lib/remote-clang/cuda/bin/nvcc" -v __cmake_determine_cuda)" = \
  "$(printf '#$ TOP=%s\n#$ NVVMIR_LIBRARY_DIR=%s\n#$ INCLUDES="-I%s"' \
     "$moved/lib/remote-clang/cuda" "$moved/lib/remote-clang/cuda/nvvm/libdevice" \
     "$moved/lib/remote-clang/cuda/include")" ] || fail "the moved nvcc names another toolkit"
expect_pass twin_int "$moved/bin/rc-run" "$elsewhere/twin_int" --test-device
echo "PASS: packages build, install, build a program, run it, travel"
