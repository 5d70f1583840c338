#!/usr/bin/env bash
# Packs what tests/gpu/check.sh runs on the GPU machine, which has the NVIDIA driver, CUDA's
# nvcc and Python with PyTorch but no Bazel, no TensorFlow and none of Debian's libraries.
# Runs here: builds the default configuration (CUDA is built in where /usr/local/cuda has the
# toolkit; this script refuses a build without it) and writes .gpu_pack/pack.tar.xz
# (gitignored), to be named in the device tool's `carry`:
#   bin/     tensord, tensorctl
#   tests/   every kernel and runtime test that runs its cases on each visible device (its
#            source calls TestDevices() or names the GPU device), as <package>.<name>
#   lib/     the shared libraries they load, except glibc's, the C++ runtime and the NVIDIA
#            driver, which the GPU machine has (newer); cuBLAS comes from its Python wheels
#   weights/ the MLP and Transformer test models' weights for torch_bench.py (TensorFlow)
# Everything is stripped: the archive and the working tree must fit the tool's 64 MiB.
#
#   bash tests/gpu/pack.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.gpu_pack
stage="$out/stage"
rm -rf "$out"
mkdir -p "$stage/bin" "$stage/tests" "$stage/lib" "$stage/weights"

mapfile -t sources < <(grep -rlE 'TestDevices\(\)|GpuDevice|DeviceType::kGpu' \
  --include='*_test.cc' kernels runtime | sort)
targets=()
for src in "${sources[@]}"; do targets+=("//$(dirname "$src"):$(basename "$src" .cc)"); done
bazel build //server:tensord //clients/tensorctl:tensorctl "${targets[@]}"
if ! grep -q "libcuda.so" bazel-bin/server/tensord; then
  echo "pack.sh: tensord was built without CUDA (is the toolkit in /usr/local/cuda?)" >&2
  exit 1
fi

built=()  # as Bazel left them: ldd finds their libraries through their relative RPATHs
install_stripped() {  # FROM TO
  cp "$1" "$2"
  chmod u+w "$2"
  strip --strip-unneeded "$2"
  built+=("$1")
}
install_stripped bazel-bin/server/tensord "$stage/bin/tensord"
install_stripped bazel-bin/clients/tensorctl/tensorctl "$stage/bin/tensorctl"
for src in "${sources[@]}"; do
  pkg="$(dirname "$src")"
  name="$(basename "$src" .cc)"
  install_stripped "bazel-bin/$pkg/$name" "$stage/tests/${pkg//\//.}.$name"
done

# Libraries the GPU machine has itself: glibc's, the C++ runtime, the driver.
system_lib='^(linux-vdso|ld-linux|libc|libm|libdl|librt|libpthread|libresolv|libstdc\+\+|libgcc_s|libcuda)\.'
if ldd "${built[@]}" | grep "not found"; then
  echo "pack.sh: a library the binaries need is missing here" >&2
  exit 1
fi
declare -A seen
for binary in "${built[@]}"; do
  while read -r name path; do
    [[ -z "$path" || "$name" =~ $system_lib || -n "${seen[$name]:-}" ]] && continue
    seen[$name]=1
    cp -L "$path" "$stage/lib/$name"
    chmod u+w "$stage/lib/$name"
    strip --strip-unneeded "$stage/lib/$name"
  done < <(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}')
done

python3 tests/gpu/export_weights.py "$stage/weights"
python3 tests/gpu/torch_bench.py --validate "$stage/weights"

# The commit the pack was built from; "-dirty" when the working tree differed from it.
commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo -dirty)"
echo "$commit" >"$stage/COMMIT"
tar -C "$stage" -cf - . | xz -T2 -6 >"$out/pack.tar.xz"
rm -rf "$stage"
size=$(stat -c %s "$out/pack.tar.xz")
echo "pack.sh: $out/pack.tar.xz, $((size / 1024 / 1024)) MiB: ${#sources[@]} test binaries, commit $commit"
if ((size > 48 * 1024 * 1024)); then
  echo "pack.sh: over 48 MiB; with the working tree it would not fit the device tool's 64 MiB" >&2
  exit 1
fi
