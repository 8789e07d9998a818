#!/usr/bin/env bash
# The runtime as an installed package: builds runtime/ alone (no tests, only
# a C++ compiler), installs it into a temporary prefix, moves the prefix (the
# package config is relocatable), checks what was installed (the public
# headers and only they, each compiling alone; libraries that hold no
# llvm:: or mlir:: symbol), builds a C++ host of vmapc::npy, then builds
# examples/c_host --
# a C-only CMake project that calls find_package(vmapc) -- against it and runs
# it on the main job's artifact and data from the main build (./build, or
# $BUILD_DIR). Then installs the whole toolchain from the main build
# (cmake --install: vmapc, vmapc-opt, the runtime's package, and
# vmapc-mpi-run where the build found MPI), compiles the main job with the
# installed vmapc and runs it with the C host built against that prefix, and
# runs the installed vmapc-mpi-run on two ranks (skipped, with a message,
# where it is not built or mpirun is missing). Prints what it checks; exits
# non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-2}
artifact=$build/examples/knn_digits.vmapc
data=$build/examples/digits.csv
for f in "$artifact" "$data"; do
  [[ -f $f ]] || { echo "install-test: $f is missing: run scripts/build.sh first"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake -G Ninja -S "$root/runtime" -B "$tmp/runtime" -DCMAKE_BUILD_TYPE=Release \
  -DVMAPC_RUNTIME_BUILD_TESTS=OFF >"$tmp/runtime.log" 2>&1 ||
  { cat "$tmp/runtime.log"; exit 1; }
ninja -C "$tmp/runtime" -j"$jobs" >>"$tmp/runtime.log" 2>&1 ||
  { cat "$tmp/runtime.log"; exit 1; }
if [[ -e $tmp/runtime/vmapc-runtime-tests ]]; then
  echo "install-test: tests were built with VMAPC_RUNTIME_BUILD_TESTS=OFF"; exit 1
fi
cmake --install "$tmp/runtime" --prefix "$tmp/prefix" >/dev/null
mv "$tmp/prefix" "$tmp/moved"
prefix=$tmp/moved
echo "install-test: installed and moved to $prefix:"
(cd "$prefix" && find . -type f | sort | sed 's/^/  /')
for f in include/vmapc/vmapc_runtime.h include/vmapc/Runtime.h \
         include/vmapc/Npy.h lib/libvmapc_runtime.a lib/libvmapc_npy.a \
         lib/cmake/vmapc/vmapcConfig.cmake \
         lib/cmake/vmapc/vmapcConfigVersion.cmake; do
  [[ -f $prefix/$f ]] || { echo "install-test: $f was not installed"; exit 1; }
done
# The public headers, exactly: runtime/include/vmapc/ (no internal one, nor
# the compiler's writer), each of which compiles on its own.
installed=$(cd "$prefix/include/vmapc" && ls | sort | tr '\n' ' ')
public=$(cd "$root/runtime/include/vmapc" && ls | sort | tr '\n' ' ')
if [[ $installed != "$public" ]]; then
  echo "install-test: installed headers '$installed', public ones '$public'"; exit 1
fi
for h in "$prefix"/include/vmapc/*.h; do
  echo "#include \"vmapc/$(basename "$h")\"" |
    ${CXX:-c++} -std=c++17 -fsyntax-only -x c++ -I"$prefix/include" - ||
    { echo "install-test: $(basename "$h") does not compile on its own"; exit 1; }
done
if [[ -e $prefix/lib/libvmapc_artifact_writer.a ]]; then
  echo "install-test: the compiler's artifact writer was installed"; exit 1
fi
echo "install-test: the public headers, and only they, were installed; each compiles alone"
# The runtime is independent of the compiler: no LLVM or MLIR code in it.
for lib in "$prefix"/lib/*.a; do
  if nm -C "$lib" | grep -E "llvm::|mlir::"; then
    echo "install-test: $(basename "$lib") holds llvm:: or mlir:: symbols"; exit 1
  fi
done
echo "install-test: the installed libraries hold no llvm:: or mlir:: symbol"
if grep -rn "$tmp/prefix\|$root" "$prefix/lib/cmake/vmapc"; then
  echo "install-test: the package config names an absolute path"; exit 1
fi

# A C-only host project (its CMakeLists enables C alone).
cmake -G Ninja -S "$root/examples/c_host" -B "$tmp/host" \
  -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/host.log" 2>&1 ||
  { cat "$tmp/host.log"; exit 1; }
ninja -C "$tmp/host" >>"$tmp/host.log" 2>&1 || { cat "$tmp/host.log"; exit 1; }
if grep -q "CMAKE_CXX_COMPILER" "$tmp/host/CMakeCache.txt"; then
  echo "install-test: the C host project enabled C++"; exit 1
fi
if ldd "$tmp/host/knn_digits_c" | grep -Ei "llvm|mlir"; then
  echo "install-test: the C host links LLVM or MLIR"; exit 1
fi
"$tmp/host/knn_digits_c" "$artifact" "$data"

# A C++ host of the .npy helpers (vmapc::npy): writes and reads back a file.
mkdir -p "$tmp/npy"
cat >"$tmp/npy/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(npy_host LANGUAGES CXX)
find_package(vmapc REQUIRED)
add_executable(npy_host npy_host.cpp)
target_link_libraries(npy_host PRIVATE vmapc::npy)
CMAKE
cat >"$tmp/npy/npy_host.cpp" <<'CPP'
#include "vmapc/Npy.h"
#include <cstdio>
int main(int, char **argv) {
  float v[3] = {1, 2, 3};
  vmapc::Status s = vmapc::writeNpy(argv[1], vmapc::DType::F32, {3}, v);
  vmapc::NpyArray a;
  if (s.ok())
    s = vmapc::readNpy(argv[1], &a);
  if (!s.ok() || a.shape != std::vector<int64_t>{3}) {
    std::printf("npy_host: %s\n", s.message().c_str());
    return 1;
  }
  std::printf("npy_host: wrote and read back f32[3]\n");
  return 0;
}
CPP
cmake -G Ninja -S "$tmp/npy" -B "$tmp/npy/build" -DCMAKE_PREFIX_PATH="$prefix" \
  >"$tmp/npy.log" 2>&1 || { cat "$tmp/npy.log"; exit 1; }
ninja -C "$tmp/npy/build" >>"$tmp/npy.log" 2>&1 || { cat "$tmp/npy.log"; exit 1; }
"$tmp/npy/build/npy_host" "$tmp/npy/x.npy"

# A version the package does not satisfy is refused.
mkdir -p "$tmp/old"
printf 'cmake_minimum_required(VERSION 3.20)\nproject(x LANGUAGES C)\nfind_package(vmapc 99.0 REQUIRED)\n' \
  >"$tmp/old/CMakeLists.txt"
if cmake -S "$tmp/old" -B "$tmp/old/build" -DCMAKE_PREFIX_PATH="$prefix" \
     >"$tmp/old.log" 2>&1; then
  echo "install-test: find_package(vmapc 99.0) succeeded"; exit 1
fi
echo "install-test: find_package(vmapc 99.0) is refused (package version $(cat "$root/VERSION"))"

# The whole toolchain from the main build tree (README.md, "Installing"):
# vmapc, vmapc-opt and the runtime's package in one prefix. Everything the
# install writes is under the prefix (its manifest lists it), and it writes
# no install_manifest.txt into the source tree outside the build tree.
toolchain=$tmp/toolchain
touch "$tmp/before-install"
(cd "$tmp" && cmake --install "$build" --prefix "$toolchain") \
  >"$tmp/toolchain.log" 2>&1 || { cat "$tmp/toolchain.log"; exit 1; }
outside=$(grep -v "^$toolchain/" "$build/install_manifest.txt" || true)
if [[ -n $outside ]]; then
  echo "install-test: cmake --install wrote outside the prefix: $outside"; exit 1
fi
stray=$(find "$root" -name 'install_manifest*.txt' -newer "$tmp/before-install" \
          -not -path "$build/*" 2>/dev/null || true)
if [[ -n $stray ]]; then
  echo "install-test: an install manifest in the source tree: $stray"; exit 1
fi
for f in bin/vmapc bin/vmapc-opt include/vmapc/vmapc_runtime.h \
         lib/libvmapc_runtime.a lib/cmake/vmapc/vmapcConfig.cmake; do
  [[ -f $toolchain/$f ]] || { echo "install-test: toolchain $f was not installed"; exit 1; }
done
version=$("$toolchain/bin/vmapc" --version | head -1)
[[ $version == "vmapc version $(cat "$root/VERSION")" ]] ||
  { echo "install-test: installed vmapc --version says '$version'"; exit 1; }
"$toolchain/bin/vmapc-opt" "$root/examples/knn_digits.arr" --arr-vmap |
  grep -q "func.func @classify" ||
  { echo "install-test: installed vmapc-opt did not batch the kNN example"; exit 1; }
echo "install-test: toolchain installed into $toolchain: $version, vmapc-opt runs"
# The installed compiler compiles the main job (at the baseline ISA level:
# quick), and the C host built against the toolchain's package runs it.
(cd "$tmp" && "$toolchain/bin/vmapc" compile "$root/examples/knn_digits.arr" \
   --cpu-isa=x86-64 -o "$tmp/knn_installed.vmapc")
cmake -G Ninja -S "$root/examples/c_host" -B "$tmp/host2" \
  -DCMAKE_PREFIX_PATH="$toolchain" >"$tmp/host2.log" 2>&1 ||
  { cat "$tmp/host2.log"; exit 1; }
ninja -C "$tmp/host2" >>"$tmp/host2.log" 2>&1 || { cat "$tmp/host2.log"; exit 1; }
"$tmp/host2/knn_digits_c" "$tmp/knn_installed.vmapc" "$data"

# vmapc-mpi-run (tools/mpi/) is built where CMake found MPI, and then
# installed with the rest; the build has tools/mpi/ exactly then.
if [[ -f $build/tools/mpi/cmake_install.cmake ]]; then
  mpi_run=$toolchain/bin/vmapc-mpi-run
  [[ -x $mpi_run ]] || { echo "install-test: toolchain bin/vmapc-mpi-run was not installed"; exit 1; }
  if readelf -d "$mpi_run" | grep -F -e "$build" -e "$root"; then
    echo "install-test: the installed vmapc-mpi-run names the build or source tree"; exit 1
  fi
  if command -v mpirun >/dev/null; then
    # (It starts MPI before anything else, which needs Open MPI's daemon,
    # openmpi-bin, even for --help.)
    usage=$("$mpi_run" --help) && [[ $usage == "usage: mpirun -np K vmapc-mpi-run"* ]] ||
      { echo "install-test: the installed vmapc-mpi-run --help failed"; exit 1; }
    # An entry that maps no input (N from --num-examples), compiled by the
    # installed vmapc: two ranks write what `vmapc run` writes, byte for byte.
    printf 'fn ramp() -> f32[3] {\n  return zeros((3,)) + 2.5;\n}\nexport ramp_e = vmap(ramp, in_axes=(), batch=4);\n' \
      >"$tmp/ramp.arr"
    (cd "$tmp" && "$toolchain/bin/vmapc" compile ramp.arr --cpu-isa=x86-64 -o ramp.vmapc &&
       "$toolchain/bin/vmapc" run ramp.vmapc --num-examples 11 --output ramp-run.npy)
    (cd "$tmp" && OMPI_MCA_btl_vader_single_copy_mechanism=none timeout 300 \
       mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np 2 \
       "$mpi_run" ramp.vmapc --num-examples 11 --output ramp-mpi.npy --verbose) \
      >"$tmp/mpi.log" 2>&1 || { cat "$tmp/mpi.log"; echo "install-test: the installed vmapc-mpi-run failed"; exit 1; }
    grep -q "rank 1 of 2" "$tmp/mpi.log" ||
      { cat "$tmp/mpi.log"; echo "install-test: vmapc-mpi-run did not run on two ranks"; exit 1; }
    cmp "$tmp/ramp-run.npy" "$tmp/ramp-mpi.npy" ||
      { echo "install-test: vmapc-mpi-run's output differs from vmapc run's"; exit 1; }
    echo "install-test: the installed vmapc-mpi-run ran on 2 ranks, output equal to vmapc run's"
  else
    echo "install-test: vmapc-mpi-run installed; not run (mpirun not found: openmpi-bin)"
  fi
else
  if [[ -e $toolchain/bin/vmapc-mpi-run ]]; then
    echo "install-test: vmapc-mpi-run was installed though the build has no tools/mpi/"; exit 1
  fi
  echo "install-test: vmapc-mpi-run skipped: not built (CMake found no MPI)"
fi
echo "install-test: ok"
