# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "VMAPC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".arr", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "lib", "oracle", "e2e", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.vmapc_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%vmapc_src", config.vmapc_src_root))
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP", "CI"])
llvm_config.use_default_substitutions()

# FileCheck, not and count live in the LLVM tools dir, not on PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.vmapc_tools_dir, append_path=True)

# The ASan + UBSan build (scripts/build-sanitized.sh): ASan reserves terabytes
# of address space for its shadow memory, so a test that runs a tool under
# `ulimit -v` says `UNSUPPORTED: asan`.
if config.vmapc_sanitize.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("asan")

# The driver linked against LLVM's and MLIR's static archives
# (VMAPC_STATIC_DRIVER, on by default and off in sanitized builds).
if config.vmapc_static_driver.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("static-driver")
config.substitutions.append(("%vmapc_bin", config.vmapc_tools_dir))

# The GPU hosts (test/gpu/host) are built only where the CUDA toolkit's
# headers are.
if os.path.exists(os.path.join(config.vmapc_tools_dir, "vmapc-gpu-check")):
    config.available_features.add("gpu-hosts")

# The Python of the bench scripts (CMake's Python3, which may differ from
# lit's own %python): %bench_python, and features for the packages it has
# (found, not imported).
if getattr(config, "python3", ""):
    import subprocess
    config.substitutions.append(("%bench_python", config.python3))
    found = subprocess.run(
        [config.python3, "-c",
         "import importlib.util as u; print(*[m for m in ('numpy', 'jax') "
         "if u.find_spec(m)])"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for module in found.stdout.split():
        config.available_features.add(module)

# The runtime's fake CUDA driver (runtime/test/FakeCuda.h), built with the
# runtime's tests where CUDA's cuda.h is.
fake_cuda = os.path.join(config.vmapc_obj_root, "runtime", "libvmapc_fake_cuda.so")
if os.path.exists(fake_cuda):
    config.available_features.add("fake-cuda")
    config.substitutions.append(("%fake_cuda", fake_cuda))

# ptxas: a test that needs it is unsupported without it, except under CI=true
# where a missing tool is a failure (it then runs and fails).
ptxas = os.path.join(config.cuda_root, "bin", "ptxas")
if os.path.exists(ptxas) or os.environ.get("CI") == "true":
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# The fake driver's kernel emulation (runtime/test/FakeCudaEmulation.h):
# test/gpu/emulate/build-emulated-kernels.py makes the compiler's CUDA
# kernels host code with LLVM 22's mlir-translate, opt and llc and the C
# compiler `cc`.
import shutil
import sys
if all(os.path.exists(os.path.join(config.llvm_tools_dir, tool))
       for tool in ("mlir-translate", "opt", "llc")) and shutil.which("cc"):
    config.available_features.add("kernel-emulation")
    config.substitutions.append((
        "%build_emulated_kernels",
        "%s %s --llvm-bin %s --vmapc-opt %s --toolkit %s" % (
            sys.executable,
            os.path.join(config.vmapc_src_root, "test", "gpu", "emulate",
                         "build-emulated-kernels.py"),
            config.llvm_tools_dir,
            os.path.join(config.vmapc_tools_dir, "vmapc-opt"),
            config.cuda_root)))

# rsvg-convert (Debian's librsvg2-bin; scripts/install-deps.sh installs it)
# renders `vmapc plan --svg`: a test that needs it is unsupported without
# it, except under CI=true, where a missing tool is a failure.
if shutil.which("rsvg-convert") or os.environ.get("CI") == "true":
    config.available_features.add("rsvg-convert")
