#!/usr/bin/env python3
"""Builds the emulated kernel library of a program: its CUDA kernels for the host.

usage: build-emulated-kernels.py PROGRAM.arr -o LIB.so [--work DIR]
           [--tile-target cpu|cuda] [--vmapc-opt PATH] [--llvm-bin DIR]
           [--cc CC] [--toolkit DIR]
       build-emulated-kernels.py --host-ll EDITED.ll -o LIB.so ...

The runtime's fake CUDA driver runs the library's kernels when a launch
reaches them (runtime/test/FakeCudaEmulation.h: VMAPC_FAKE_CUDA_KERNELS).
The kernels are the artifact's, made again by the same passes:

 1. vmapc-opt: arr-to-linalg-pipeline, arr-bufferize-pipeline{stage-all
    max-fused-bytes-per-example=98304} (WORK/planned.mlir), then
    arr-to-nvvm-pipeline{serialize=false tile-target=T
    max-workgroup-scratch=49152 index-bitwidth=W}, what
    `vmapc compile --target=cuda` runs (codegen/Compile.cpp; T = cpu for
    --target=cpu,cuda, whose grids are the CPU's; W = 32 when the planned
    program's largest memref, the arena or a binding, is below 2^31 bytes,
    else 64): the kernels in a gpu.module of the LLVM and NVVM dialects
    (WORK/kernels.mlir);
 2. gpu-module-to-binary{format=isa} on that: the PTX (WORK/kernels.ptx),
    whose FNV-1a hash the library records; the fake runs the library only
    for a PTX module with that hash, so code that is not the artifact's
    never runs;
 3. the gpu.module's body through mlir-translate to LLVM IR
    (WORK/kernels-nvptx.ll), rewritten for x86-64 (WORK/kernels-host.ll):
    the NVVM intrinsics (special registers, bar.sync, shfl.sync) become
    calls of runtime/test/FakeCudaKernelShim.c, address spaces go (all
    memory is host memory), the extern dynamic shared memory becomes the
    library's buffer; an entry wrapper per kernel reads its parameters from
    the launch's 8-byte slots, and a table lists the kernels;
 4. opt -O2 and llc (WORK/kernels-host.o), then CC links it with the shim
    and libm (libdevice's __nv_* functions are the C library's) into LIB.

Fails with a message naming the step; an NVVM intrinsic it does not know
is an error (listed), never a silent wrong translation.
"""
import argparse
import importlib.util
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
SHIM = os.path.join(ROOT, "runtime", "test", "FakeCudaKernelShim.c")

HOST_TRIPLE = "x86_64-unknown-linux-gnu"
HOST_LAYOUT = ("e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-"
               "f80:128-n8:16:32:64-S128")

SREGS = {"tid", "ntid", "ctaid", "nctaid"}
SHFL_MODES = {"up": 0, "down": 1, "bfly": 2, "idx": 3}


def die(message):
    sys.exit("build-emulated-kernels.py: " + message)


def run(step, command):
    result = subprocess.run(command, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        die("%s failed (%s):\n%s" % (step, " ".join(command),
                                      result.stderr.strip()))
    return result.stdout


def index_bitwidth(planned):
    """codegen/Compile.cpp's choice: 32 when the largest static memref of
    the planned program (the arena, an argument or a kernel's binding) has
    fewer than 2^31 bytes, else 64."""
    most = 0
    for shape, element in re.findall(r"memref<((?:\d+x)*)(f32|i32|i8|i1)>",
                                     planned):
        count = 1
        for size in shape.split("x")[:-1]:
            count *= int(size)
        most = max(most, count * (4 if element in ("f32", "i32") else 1))
    return 32 if most < 2 ** 31 else 64


def load_extract_ptx():
    spec = importlib.util.spec_from_file_location(
        "extract_ptx", os.path.join(HERE, "..", "extract-ptx.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def gpu_module_body(mlir):
    """The ops inside `gpu.module @vmapc_kernels`, as a builtin module."""
    lines = mlir.split("\n")
    for start, line in enumerate(lines):
        if re.match(r"\s*gpu\.module @vmapc_kernels\b", line):
            break
    else:
        die("no gpu.module @vmapc_kernels in the CUDA pipeline's output")
    indent = line[:len(line) - len(line.lstrip())]
    for end in range(start + 1, len(lines)):
        if lines[end] == indent + "}":
            return "module {\n" + "\n".join(lines[start + 1:end]) + "\n}\n"
    die("gpu.module @vmapc_kernels has no end")


def fnv1a(data):
    h = 14695981039346656037
    for byte in data:
        h = ((h ^ byte) * 1099511628211) % (1 << 64)
    return h


def as_i64(value):
    return value - (1 << 64) if value >= (1 << 63) else value


def ir_string(text):
    data = text.encode() + b"\0"
    return "[%d x i8] c\"%s\"" % (len(data), "".join(
        chr(b) if 32 <= b < 127 and chr(b) not in "\"\\" else "\\%02X" % b
        for b in data))


def shuffle_wrapper(name, mode, type_, with_pred):
    """An LLVM IR definition of llvm.nvvm.shfl.sync.MODE.TYPE[p] (TYPE f32 or
    i32; p: it also returns PTX's predicate) calling vmapc_emu_shfl."""
    t = "float" if type_ == "f32" else "i32"
    ret = "{ %s, i1 }" % t if with_pred else t
    lines = []
    if with_pred:
        lines.append("%v = alloca i32")
    lines.append("%x = bitcast float %a to i32" if t == "float" else
                 "%x = add i32 %a, 0")
    lines.append("%%r = call i32 @vmapc_emu_shfl(i32 %d, i32 %%mask, i32 %%x, "
                 "i32 %%b, i32 %%c, ptr %s)" % (mode, "%v" if with_pred else "null"))
    lines.append("%y = bitcast i32 %r to float" if t == "float" else
                 "%y = add i32 %r, 0")
    if with_pred:
        lines += ["%vv = load i32, ptr %v",
                  "%p = icmp ne i32 %vv, 0",
                  "%%s0 = insertvalue %s poison, %s %%y, 0" % (ret, t),
                  "%%s1 = insertvalue %s %%s0, i1 %%p, 1" % ret,
                  "ret %s %%s1" % ret]
    else:
        lines.append("ret %s %%y" % t)
    return ('define internal %s @"%s"(i32 %%mask, %s %%a, i32 %%b, i32 %%c) {\n'
            "%s\n}\n" % (ret, name, t, "\n".join("  " + l for l in lines)))


def drop_constant_casts(ll):
    """`addrspacecast (ptr X to ptr)` constant expressions (X may nest
    parentheses) become X: with one address space they cast nothing."""
    key = "addrspacecast ("
    while True:
        start = ll.find(key)
        if start < 0:
            return ll
        depth, i = 1, start + len(key)
        while depth:
            depth += {"(": 1, ")": -1}.get(ll[i], 0)
            i += 1
        inner = ll[start + len(key):i - 1]
        if not inner.startswith("ptr ") or not inner.endswith(" to ptr"):
            die("an addrspacecast it cannot rewrite: " + ll[start:i])
        ll = ll[:start] + inner[len("ptr "):-len(" to ptr")] + ll[i:]


PARAM_CODES = {"ptr": "p", "i64": "l", "i32": "i", "float": "f", "double": "d"}


def rewrite_for_host(ll, ptx):
    """The NVPTX LLVM IR `ll` of the kernels, made host code (module doc)."""
    used = set(re.findall(r"@llvm\.nvvm\.[\w.]+", ll))
    # Declarations of NVVM intrinsics go; their calls are renamed below.
    ll = re.sub(r"^declare [^\n]*@llvm\.nvvm\.[^\n]*\n", "", ll, flags=re.M)
    ll = re.sub(r"^target (datalayout|triple) = [^\n]*\n", "", ll, flags=re.M)
    extra = []
    unknown = []
    for name in sorted(used):
        m = re.fullmatch(r"@llvm\.nvvm\.read\.ptx\.sreg\.(\w+)\.([xyz])", name)
        if m and m.group(1) in SREGS:
            ll = ll.replace(name + "(", "@vmapc_emu_%s_%s(" % m.groups())
            continue
        if name in ("@llvm.nvvm.read.ptx.sreg.laneid",
                    "@llvm.nvvm.read.ptx.sreg.warpsize"):
            ll = ll.replace(name + "(", "@vmapc_emu_%s(" % name.split(".")[-1])
            continue
        m = re.fullmatch(r"@llvm\.nvvm\.shfl\.sync\.(up|down|bfly|idx)\."
                         r"(i32|f32)(p?)", name)
        if m:
            wrapper = "vmapc_emu.shfl.%s.%s%s" % m.groups()
            ll = ll.replace(name + "(", "@\"%s\"(" % wrapper)
            extra.append(shuffle_wrapper(wrapper, SHFL_MODES[m.group(1)],
                                         m.group(2), m.group(3) == "p"))
            continue
        if name in ("@llvm.nvvm.barrier.cta.sync.aligned.all",
                    "@llvm.nvvm.barrier0"):
            continue  # below, with a site number per call
        unknown.append(name)
    if unknown:
        die("NVVM intrinsics the emulation does not know: " + ", ".join(unknown))
    # bar.sync 0: each call site gets its number (FakeCudaEmulation.h).
    sites = iter(range(1, 1 << 31))
    ll = re.sub(r"call void @llvm\.nvvm\.barrier\.cta\.sync\.aligned\.all"
                r"\(i32 ([^)]*)\)",
                lambda m: "call void @vmapc_emu_barrier(i32 %s, i32 %d)" %
                (m.group(1), next(sites)), ll)
    ll = re.sub(r"call void @llvm\.nvvm\.barrier0\(\)",
                lambda m: "call void @vmapc_emu_barrier(i32 0, i32 %d)" %
                next(sites), ll)
    # One address space: casts between them are no-ops.
    ll = re.sub(r" addrspace\(\d+\)", "", ll)
    ll = drop_constant_casts(ll)
    ll = re.sub(r"= addrspacecast ptr ", "= bitcast ptr ", ll)
    if "addrspacecast" in ll:
        die("an addrspacecast it cannot rewrite is left in the kernels")
    ll = re.sub(r"\bdefine (ptx_kernel|ptx_device) ", "define ", ll)
    # Every extern __shared__ array is the library's one buffer.
    ll = re.sub(r"@__dynamic_shmem__\d+\b", "@vmapc_emu_shared", ll)
    seen = False
    out = []
    for line in ll.split("\n"):
        if line.startswith("@vmapc_emu_shared = "):
            if seen:
                continue
            seen = True
        out.append(line)
    ll = "\n".join(out)

    # Entry wrappers and the kernel table.
    kernels = []
    for m in re.finditer(r"^define void @(vmapc_kernel_\w+)\(([^)]*)\)", ll,
                         flags=re.M):
        params = [p.strip().split()[0] for p in m.group(2).split(",")
                  if p.strip()]
        codes = ""
        for p in params:
            if p not in PARAM_CODES:
                die("kernel %s has a parameter of type %s" % (m.group(1), p))
            codes += PARAM_CODES[p]
        kernels.append((m.group(1), params, codes))
    if not kernels:
        die("no kernel (define void @vmapc_kernel_...) in the gpu.module")
    for i, (name, params, codes) in enumerate(kernels):
        body = []
        args = []
        for k, p in enumerate(params):
            body.append("  %%s%d = getelementptr i64, ptr %%slots, i64 %d" % (k, k))
            body.append("  %%a%d = load %s, ptr %%s%d" % (k, p, k))
            args.append("%s %%a%d" % (p, k))
        extra.append("define internal void @\"vmapc_emu.entry.%d\"(ptr %%slots) {\n"
                     "%s\n  call void @%s(%s)\n  ret void\n}\n" %
                     (i, "\n".join(body), name, ", ".join(args)))
        extra.append("@\"vmapc_emu.name.%d\" = private constant %s" % (i, ir_string(name)))
        extra.append("@\"vmapc_emu.params.%d\" = private constant %s" % (i, ir_string(codes)))
    entry = "{ ptr, ptr, ptr }"
    rows = ["%s { ptr @\"vmapc_emu.name.%d\", ptr @\"vmapc_emu.params.%d\", "
            "ptr @\"vmapc_emu.entry.%d\" }" % (entry, i, i, i)
            for i in range(len(kernels))]
    rows.append("%s zeroinitializer" % entry)
    extra.append("@vmapc_emu_kernels = constant [%d x %s] [%s]" %
                 (len(rows), entry, ", ".join(rows)))
    data = ptx.encode()
    extra.append("@vmapc_emu_ptx_hash = constant i64 %d" % as_i64(fnv1a(data)))
    extra.append("@vmapc_emu_ptx_bytes = constant i64 %d" % len(data))
    extra.append("declare void @vmapc_emu_barrier(i32, i32)")
    extra.append("declare i32 @vmapc_emu_shfl(i32, i32, i32, i32, i32, ptr)")
    for sreg in sorted(SREGS):
        for d in "xyz":
            extra.append("declare i32 @vmapc_emu_%s_%s()" % (sreg, d))
    extra.append("declare i32 @vmapc_emu_laneid()")
    extra.append("declare i32 @vmapc_emu_warpsize()")
    header = 'target datalayout = "%s"\ntarget triple = "%s"\n' % (HOST_LAYOUT,
                                                                HOST_TRIPLE)
    return header + ll + "\n" + "\n".join(extra) + "\n", len(kernels)


def link(args, tool, path, host_ll):
    """4. The host LLVM IR `host_ll` to an object, linked with the shim."""
    run("opt", [tool("opt"), "-O2", host_ll, "-o", path("kernels-host.bc")])
    run("llc", [tool("llc"), "-O2", "-filetype=obj", "-relocation-model=pic",
                "-mtriple=" + HOST_TRIPLE, path("kernels-host.bc"), "-o",
                path("kernels-host.o")])
    run(args.cc, [args.cc, "-shared", "-fPIC", "-O2",
                  "-I", os.path.dirname(SHIM), SHIM, path("kernels-host.o"),
                  "-o", args.output, "-lm", "-Wl,--no-undefined"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("program", nargs="?")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--work", help="folder for the intermediate files "
                        "(default: OUTPUT without .so, plus .d)")
    parser.add_argument("--tile-target", default="cpu", choices=("cpu", "cuda"),
                        help="cpu for a --target=cpu,cuda artifact (default), "
                        "cuda for --target=cuda")
    # The build tree's vmapc-opt when it exists, else the one on PATH.
    built = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "..", "..", "build", "bin", "vmapc-opt")
    parser.add_argument("--vmapc-opt",
                        default=os.path.normpath(built)
                        if os.path.exists(built) else "vmapc-opt")
    parser.add_argument("--llvm-bin", default="/usr/lib/llvm-22/bin")
    parser.add_argument("--cc", default=os.environ.get("CC", "cc"))
    parser.add_argument("--toolkit", default="/usr/local/cuda")
    parser.add_argument("--host-ll", help="build LIB from this host LLVM IR "
                        "(a kernels-host.ll of an earlier run, edited: step 4 "
                        "only; PROGRAM is not read)")
    args = parser.parse_args()
    work = args.work or re.sub(r"\.so$", "", args.output) + ".d"
    os.makedirs(work, exist_ok=True)
    path = lambda name: os.path.join(work, name)
    tool = lambda name: os.path.join(args.llvm_bin, name)
    if not args.program and not args.host_ll:
        parser.error("a PROGRAM.arr (or --host-ll) is needed")
    if args.host_ll:
        link(args, tool, path, args.host_ll)
        print("%s: from %s" % (args.output, args.host_ll))
        return

    # 1. The kernels, as vmapc compile makes them.
    run("vmapc-opt (the planned program)",
        [args.vmapc_opt, args.program, "--arr-to-linalg-pipeline",
         "--arr-bufferize-pipeline=stage-all=true "
         "max-fused-bytes-per-example=98304",
         "-o", path("planned.mlir")])
    with open(path("planned.mlir")) as f:
        bits = index_bitwidth(f.read())
    run("vmapc-opt (the CUDA pipeline)",
        [args.vmapc_opt, path("planned.mlir"),
         "--arr-to-nvvm-pipeline=serialize=false tile-target=%s "
         "max-workgroup-scratch=49152 index-bitwidth=%d"
         % (args.tile_target, bits),
         "-o", path("kernels.mlir")])
    # 2. Their PTX, the identity of the code.
    run("vmapc-opt (gpu-module-to-binary)",
        [args.vmapc_opt, path("kernels.mlir"),
         "--gpu-module-to-binary=format=isa toolkit=" + args.toolkit,
         "-o", path("kernels-ptx.mlir")])
    extract = load_extract_ptx()
    with open(path("kernels-ptx.mlir")) as f:
        m = re.search(r'gpu\.binary @vmapc_kernels\s+\[[^\n]*?assembly = "([^"]*)"',
                      f.read())
    if not m:
        die("no PTX in " + path("kernels-ptx.mlir"))
    ptx = extract.unescape(m.group(1)).rstrip("\0")
    with open(path("kernels.ptx"), "w") as f:
        f.write(ptx)
    # 3. LLVM IR, then host LLVM IR.
    with open(path("kernels.mlir")) as f:
        body = gpu_module_body(f.read())
    with open(path("kernels-nvvm.mlir"), "w") as f:
        f.write(body)
    run("mlir-translate", [tool("mlir-translate"), "--mlir-to-llvmir",
                           path("kernels-nvvm.mlir"), "-o",
                           path("kernels-nvptx.ll")])
    with open(path("kernels-nvptx.ll")) as f:
        host, count = rewrite_for_host(f.read(), ptx)
    with open(path("kernels-host.ll"), "w") as f:
        f.write(host)
    link(args, tool, path, path("kernels-host.ll"))
    print("%s: %d kernels, PTX FNV-1a %016x (%d bytes)" %
          (args.output, count, fnv1a(ptx.encode()), len(ptx.encode())))


if __name__ == "__main__":
    main()
