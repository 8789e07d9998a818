//===- Passes.td - vmapc passes ----------------------------*- tablegen -*-===//

#ifndef VMAPC_PASSES
#define VMAPC_PASSES

include "mlir/Pass/PassBase.td"

def ArrVmap : Pass<"arr-vmap", "::mlir::ModuleOp"> {
  let summary = "Replaces every arr.vmap_call by batched code";
  let description = [{
    Batches functions by calling each op's `BatchingOpInterface` rule (JAX's
    `BatchTrace`, one rule per primitive). Functions are processed callees
    first; a user function called with batched operands is specialised once
    per batching signature (which arguments are batched and where) and
    cached. An op with no rule is an error naming the op and the vmap that
    reached it.

    Before:
    ```mlir
    func.func @sqdist(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<f32>
    func.func @f(%q: tensor<64xf32>, %r: tensor<10x64xf32>) -> tensor<10xf32> {
      %d = arr.vmap_call @sqdist(%q, %r) {in_axes = [unit, 0], out_axes = [0],
             axis_size = 10 : i64} : (...) -> tensor<10xf32>
    ```
    After: `%d = call @sqdist_vmap_n_0(%q, %r)`, where the specialisation
    reads `%q` through a broadcast and subtracts, squares and reduces over
    dimension 1 of a `tensor<10x64xf32>`.
  }];
  let dependentDialects = ["::vmapc::arr::ArrDialect",
                           "::mlir::func::FuncDialect"];
}

def ConvertArrToLinalg : Pass<"convert-arr-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lowers arr ops to linalg on tensors";
  let description = [{
    Elementwise ops and broadcasts become `linalg.generic` ops with
    broadcast indexing maps; reductions and argmin/argmax become reduction
    `linalg.generic`s; `dot_general` becomes `linalg.matmul` or
    `linalg.batch_matmul` in their plain layouts ([m,k]x[k,n],
    [b,m,k]x[b,k,n]: what `--arr-vmap` makes of a matmul with both sides
    mapped) and otherwise a contraction generic that reads each operand
    through its own map (an operand without a batch dimension is read
    through a broadcast map, never copied); shape ops become tensor and
    linalg ops; `arr.for` becomes `scf.for` with iter_args.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def ArrFuseElementwise : Pass<"arr-fuse-elementwise", "::mlir::ModuleOp"> {
  let summary = "Fuses elementwise linalg.generic producers into consumers";
  let description = [{
    Upstream's elementwise fusion (`linalg::populateElementwiseOpsFusionPatterns`
    with its default control: a producer fuses when it has a single use,
    and here only while the fused payload has at most 256 ops, so that a
    long chain fuses in linear time),
    with the linalg.generic canonicalizations, and nothing else: unlike
    `--linalg-fuse-elementwise-ops` it does not propagate reshapes or fold
    constants through linalg ops. arr lowers reshapes to collapse/expand
    views that need no propagation, and the reshape propagation patterns
    crashed on a program with nested loops (a segfault in LLVM 22).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::affine::AffineDialect"];
}

def ArrPlanBuffers : Pass<"arr-plan-buffers", "::mlir::ModuleOp"> {
  let summary = "Plans every intermediate buffer into one static arena";
  let description = [{
    On the bufferized program (destination-passing style, outputs written
    into `arr.output` arguments): traces views to their root allocation,
    computes live intervals over the linearised schedule of the body's
    top-level ops (loop-aware: a use inside a loop counts at the loop, so a
    buffer read on every iteration is live over the whole loop), lets an
    all-parallel linalg op whose input and output use identity maps write
    its output over an input allocation that dies there, and gives every
    other buffer, and every `arr.staging` argument, an aligned offset in one
    arena (greedy by size, best fit: Pisarchyk & Lee 2020). Every
    `memref.alloc` becomes a `memref.view` into the arena, a new last
    argument of the function; deallocs are erased. The figures (arena bytes,
    lower bound, naive sum, in-place count, buffers) are attached to the
    function as `arr.plan`. The library behind it is `passes/BufferPlan.h`.

    Before:
    ```mlir
    func.func @f(%x: memref<64xf32> {arr.staging}, %out: memref<64xf32> {arr.output}) {
      %a = memref.alloc() : memref<64xf32>
      linalg.generic ... ins(%x) outs(%a)      // exp
      %b = memref.alloc() : memref<64xf32>
      linalg.generic ... ins(%a) outs(%b)      // neg: %a dies here
      linalg.copy ins(%b) outs(%out)
      return
    }
    ```
    After (`%b` takes `%a`'s bytes in place; the staging slot of `%x` is
    live with `%a` at the exp):
    ```mlir
    func.func @f(%x: memref<64xf32> {arr.staging, arr.staging_offset = 0 : i64},
                 %out: memref<64xf32> {arr.output},
                 %arena: memref<512xi8> {arr.arena})
        attributes {arr.plan = {arena_bytes = 512 : i64, buffers = 3 : i64,
                    in_place = 1 : i64, lower_bound = 512 : i64,
                    naive_sum = 768 : i64}} {
      %c256 = arith.constant 256 : index
      %a = memref.view %arena[%c256][] : memref<512xi8> to memref<64xf32>
      ...
      %b = memref.view %arena[%c256][] : memref<512xi8> to memref<64xf32>
      ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"alignment", "alignment", "int64_t", "256",
           "Alignment of every offset in the arena, in bytes (the runtime "
           "allocates the arena itself at least this aligned)">
  ];
}

def ArrVerifyBufferPlan : Pass<"arr-verify-buffer-plan", "::mlir::ModuleOp"> {
  let summary = "Checks a buffer plan independently of the planner";
  let description = [{
    Shares no code with the planner beyond MLIR. Finds every `memref.view`
    of the `arr.arena` argument and every `arr.staging_offset` argument,
    follows their aliases with its own conservative walk, recomputes live
    intervals over the top-level ops of the body, and fails with an error
    naming both buffers' locations if two buffers live at one time share a
    byte, unless they form a legal in-place pair: the later buffer is first
    written, at the very point where the earlier one is last read, by an
    all-parallel linalg op with a side-effect-free payload that reads the
    earlier buffer and writes the later one through identity maps, at the
    same offset and size. It also fails if a view reaches past the arena,
    the arena is used other than by `memref.view`, or any allocation
    (`memref.alloc`, `memref.alloca`, a clone, a call of malloc) remains.

    ```mlir
    %a = memref.view %arena[%c0][] : memref<512xi8> to memref<64xf32>
    %b = memref.view %arena[%c128][] : memref<512xi8> to memref<64xf32>
    linalg.copy ins(%x) outs(%a)
    linalg.copy ins(%x) outs(%b)   // error: buffers overlap while both are live
    linalg.copy ins(%a) outs(%out)
    ```
  }];
}

def ArrOutputsToDestinations
    : Pass<"arr-outputs-to-destinations", "::mlir::ModuleOp"> {
  let summary = "Turns the results of entry points into output arguments";
  let description = [{
    On linalg on tensors, for every entry (a public function with
    `arr.batch`): each result becomes a trailing `arr.output` argument and is
    written there by `bufferization.materialize_in_destination ... restrict
    writable`, so that `eliminate-empty-tensors` and one-shot bufferization
    compute it in the caller's buffer (destination-passing style; no copy,
    no allocation returned). Arguments the runtime may replace by a staging
    slot (mapped inputs, outputs with an out axis) get `arr.staging`.

    Before:
    ```mlir
    func.func @e(%x: tensor<8x4xf32>) -> tensor<8xf32> attributes {arr.batch = 8 : i64, ...}
    ```
    After:
    ```mlir
    func.func @e(%x: tensor<8x4xf32> {arr.staging, bufferization.writable = false},
                 %out: tensor<8xf32> {arr.output, arr.staging, bufferization.writable = true})
    ```
    Inputs are not writable (the runtime may pass the caller's memory). A
    value returned twice is copied for its second output; a result built by
    insert_slices into a tensor.empty (a concat) is built in the output.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ArrEmitCEntries : Pass<"arr-emit-c-entries", "::mlir::ModuleOp"> {
  let summary = "Adds a `void NAME(void **args)` C entry per entry point";
  let description = [{
    On the LLVM dialect, after `convert-func-to-llvm` with the bare-pointer
    calling convention: for each entry `@e` (marked `arr.batch`), adds
    `llvm.func @vmapc_entry_e(%args: !llvm.ptr)` that loads one pointer per
    argument of `@e` (inputs, outputs, then the arena) from `args` and calls
    `@e`. This is the ABI of runtime/vmapc/ArtifactFormat.h; `@e` itself
    becomes internal.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ArrEmitEntryDescriptors
    : Pass<"arr-emit-entry-descriptors", "::mlir::ModuleOp"> {
  let summary = "Adds each entry's descriptor (what its code was compiled for)";
  let description = [{
    On the planned program (memref entries with an `arr.arena` argument,
    before the lowering to LLVM): for each entry `@e` (a public function
    marked `arr.batch`), adds the read-only global
    `@vmapc_entry_e_descriptor` that runtime/vmapc/ArtifactFormat.h defines:
    its magic and version, the batch size B, the arena's bytes, the input
    and output counts, and per argument its bytes per example and mapped
    axis (`arr.in_axes` / `arr.out_axes`). They are read off the argument
    types, apart from the manifest; the runtime checks the manifest against
    them when it loads the code, so that a manifest edited apart from its
    code is refused.

    ```mlir
    func.func @e(%x: memref<4x3xf32> {arr.staging, arr.staging_offset = 0 : i64},
                 %out: memref<4xf32> {arr.output, arr.staging, arr.staging_offset = 0 : i64},
                 %arena: memref<256xi8> {arr.arena})
        attributes {arr.batch = 4 : i64, arr.in_axes = [0], arr.out_axes = [0]}
    ```
    gets
    ```mlir
    llvm.mlir.global external constant @vmapc_entry_e_descriptor(dense<[
        4851296279508110678, 1, 4, 256, 1, 1, 12, 0, 4, 0]> : tensor<10xi64>)
        {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.array<10 x i64>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ArrCopiesToLinalg : Pass<"arr-copies-to-linalg", "::mlir::func::FuncOp"> {
  let summary = "Rewrites memref.copy as linalg.copy";
  let description = [{
    Bufferization leaves `memref.copy` where a value must move between
    buffers. On the GPU path every copy becomes `linalg.copy`, so that it
    becomes a loop nest and then a kernel like every other linalg op,
    instead of host code touching device memory. On the CPU path
    (`strided-only`) only copies whose source or target has a non-identity
    layout (a concat piece's subview, say) are rewritten: the LLVM lowering
    turns those into a call of mlir_c_runner_utils' `memrefCopy`, which
    artifacts do not link, and contiguous copies into `llvm.memcpy`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
  let options = [
    Option<"stridedOnly", "strided-only", "bool", "false",
           "Only rewrite copies between memrefs with non-identity layouts">
  ];
}

def ArrGpuTileParallelLoops
    : Pass<"arr-gpu-tile-parallel-loops", "::mlir::func::FuncOp"> {
  let summary = "Tiles each scf.parallel nest to one block of threads";
  let description = [{
    Tiles every outermost `scf.parallel` so that its inner loop has at most
    `threads-per-block` iterations, taken from the innermost (contiguous)
    dimensions first: a [256, 1000] nest gets 1x256 tiles, a [64, 8] nest
    32x8. Upstream `scf-parallel-loop-tiling` uses one size list for every
    nest, so a 1-D nest tiled with `1,256` gets blocks of one thread (TOOLCHAIN
    pitfall 8). Tiles have fixed bounds and an in-bounds `scf.if`, so that
    `convert-parallel-loops-to-gpu` sees constant block sizes.
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "unsigned", "256",
           "Most threads in one block (one tile)">
  ];
}

def ArrGpuSinkIntoLaunch
    : Pass<"arr-gpu-sink-into-launch", "::mlir::func::FuncOp"> {
  let summary = "Sinks constants and arena views into gpu.launch bodies";
  let description = [{
    Clones constants and view-like ops (the arena views first of all) into
    each `gpu.launch`, so that the outlined kernel takes the entry's own
    arguments: the arena itself, not a pointer into it (upstream's sinking
    keeps a view of a function argument outside). Fails on what would still
    run on the host: an allocation, or a loop, load, store, copy or linalg op
    that was not mapped to a kernel.
  }];
}

def ArrExpandMath : Pass<"arr-expand-math"> {
  let summary = "Expands f32 exp, log, tanh and powf into polynomial approximations";
  let description = [{
    Rewrites `math.exp`, `math.log`, `math.tanh` and `math.powf` on f32
    scalars, vectors of f32 and ranked tensors of f32 (any shape, static or
    dynamic) into arith ops, `math.absf` and `math.copysign`, which LLVM
    lowers to vector instructions at every x86-64 level: no libm call, no
    `math.floor` and no `math.fma` (SSE2 has neither; multiply-adds carry the
    `contract` flag and become FMAs where the target has them). `math.sqrt`
    stays: LLVM lowers it to the square-root instruction. Other element
    types and other math ops are left alone. The constants of a dynamically
    shaped tensor are `tensor.splat`s of its `tensor.dim`s.

    exp is Cephes' `expf` polynomial with our own reduction and scaling
    (denormal results, exact overflow); log is Cephes' `logf` (the
    operations of upstream's `LogApproximation`) with denormal inputs scaled
    into the normal range; tanh is an odd polynomial below 0.55 and
    1 - 2 / (exp(2|x|) + 1) above; powf computes y * log2|x| and its exp2 in
    f64 and keeps every special case of C's `powf`. Bounds (1 ulp for exp and
    powf, 2 for log and tanh), special cases and sources: docs/math.md.

    Before:
    ```mlir
    %y = math.exp %x : vector<16xf32>
    ```
    After (abridged):
    ```mlir
    %lo = arith.cmpf oge, %x, %cst_m104 : vector<16xf32>
    %c = arith.select %lo, %x, %cst_m104 : vector<16xi1>, vector<16xf32>
    ...
    %k = arith.subf %s, %shift : vector<16xf32>        // round(x * log2(e))
    %r0 = arith.mulf %k, %c1 fastmath<contract> : vector<16xf32>
    %r = arith.addf %r0, %c fastmath<contract> : vector<16xf32>
    ...                                                // e^r, Horner
    %ki = arith.fptosi %k : vector<16xf32> to vector<16xi32>
    ...                                                // 2^k1 * 2^k2 from bits
    %nan = arith.cmpf uno, %x, %x : vector<16xf32>
    %y = arith.select %nan, %x, %e : vector<16xi1>, vector<16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // VMAPC_PASSES
