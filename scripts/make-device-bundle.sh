#!/usr/bin/env bash
# Packs what must run on the GPU machine (which has no clang) into
# .bundle/bundle.tar.xz: rc-server, the runtime libraries, the sample binaries
# with their manifests, and the libfabric libraries with their dependencies.
# Carry `.bundle` with the device tool and run scripts/device-test.sh there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${RC_BUILD_DIR:-$ROOT/build}"
OUT="$ROOT/.bundle"
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/rc/bin" "$STAGE/rc/lib" "$STAGE/rc/samples" "$OUT"

cp "$BUILD/bin/rc-server" "$STAGE/rc/bin/"
# The server's GoogleTest suites: the GPU ones (label gpu) and the rest, which
# then also run rc-server's CUDA backend end to end; the transport bench
# (scripts/device-transport-bench.sh); the stress programs (test/stress: run
# there with RC_BUILD_DIR=/tmp/rc-bundle/rc after scripts/device-test.sh
# unpacked the bundle).
for t in rc_server_gpu_tests rc_server_tests rc_cublas_gpu_tests rc_transport_bench \
  rc_stress_client rc_stress_peers; do
  [ -x "$BUILD/bin/$t" ] && cp "$BUILD/bin/$t" "$STAGE/rc/bin/"
done
[ -f "$BUILD/test/unit/server/gpu_kernels.fatbin" ] &&
  cp "$BUILD/test/unit/server/gpu_kernels.fatbin" "$STAGE/rc/bin/"
cp -L "$BUILD"/lib/librc_*.so* "$STAGE/rc/lib/"
for b in "$BUILD"/samples/*; do
  [ -f "$b.rcm" ] && cp "$b" "$b.rcm" "$STAGE/rc/samples/"
done
# libfabric, libcrypto (OpenSSL 3, for authentication) and what they pull
# in; glibc and libstdc++ are newer on the GPU machine (Ubuntu 24.04), so
# those stay behind. libfabric is loaded at run time (docs/transport.md), so
# ldd does not list it: named here with its own dependencies.
FABRIC="$(pkg-config --variable=libdir libfabric)/libfabric.so.1"
for lib in "$FABRIC" $(ldd "$BUILD/bin/rc-server" "$BUILD"/lib/librc_cudart.so "$FABRIC" | awk '/=>/ {print $3}' | sort -u); do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libstdc++.so*|libgcc_s.so*|ld-linux*) ;;
    *) cp -L "$lib" "$STAGE/rc/lib/" ;;
  esac
done
# Without debug info the bundle is a tenth of the size, small enough to be
# carried beside llama.cpp's (the device tool carries 64 MiB a call).
strip --strip-debug "$STAGE"/rc/bin/* "$STAGE"/rc/lib/* "$STAGE"/rc/samples/* 2>/dev/null || true
tar -C "$STAGE" -cJf "$OUT/bundle.tar.xz" rc
ls -la "$OUT/bundle.tar.xz"
