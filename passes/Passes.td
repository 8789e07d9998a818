//===- Passes.td - vmapc passes ----------------------------*- tablegen -*-===//

#ifndef VMAPC_PASSES
#define VMAPC_PASSES

include "mlir/Pass/PassBase.td"

def ArrVmap : Pass<"arr-vmap", "::mlir::ModuleOp"> {
  let summary = "Replaces every arr.vmap_call by batched code";
  let description = [{
    Input: arr from the front end (passes/Stages.h: `arr`); output: arr
    without `arr.vmap_call` (`batched`). Fails on a dispatched or later
    module.

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
    Input: arr without `arr.vmap_call` (after `--arr-vmap`); output: linalg,
    tensor, arith, math and scf on tensors, no arr op. On an `arr.vmap_call`
    it fails, naming `--arr-vmap`.

    Elementwise ops and broadcasts become `linalg.generic` ops with
    broadcast indexing maps; reductions and argmin/argmax become reduction
    `linalg.generic`s; `dot_general` becomes `linalg.matmul` or
    `linalg.batch_matmul` in their plain layouts ([m,k]x[k,n],
    [b,m,k]x[b,k,n]: what `--arr-vmap` makes of a matmul with both sides
    mapped) and otherwise a contraction generic that reads each operand
    through its own map (an operand without a batch dimension is read
    through a broadcast map, never copied); shape ops become tensor and
    linalg ops; `arr.for` becomes `scf.for` with iter_args.

    ```mlir
    %s = arr.add %x, %y : tensor<8x4xf32>
    // becomes
    %e = tensor.empty() : tensor<8x4xf32>
    %s = linalg.generic {indexing_maps = [#id, #id, #id],
                         iterator_types = ["parallel", "parallel"]}
        ins(%x, %y : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    } -> tensor<8x4xf32>
    ```
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
    Input and output: linalg on tensors (after `--convert-arr-to-linalg`),
    entries not yet bufferized; fails on arr or bufferized input.

    Upstream's elementwise fusion (`linalg::populateElementwiseOpsFusionPatterns`
    with its default control: a producer fuses when it has a single use,
    and here only while the fused payload has at most 256 ops, so that a
    long chain fuses in linear time),
    with the linalg.generic canonicalizations, and nothing else: unlike
    `--linalg-fuse-elementwise-ops` it does not propagate reshapes or fold
    constants through linalg ops. arr lowers reshapes to collapse/expand
    views that need no propagation, and the reshape propagation patterns
    crashed on a program with nested loops (a segfault in LLVM 22).

    ```mlir
    %a = linalg.generic ins(%x) outs(%e0) { math.exp %in }
    %b = linalg.generic ins(%a) outs(%e1) { arith.negf %in }   // %a's only use
    // becomes
    %b = linalg.generic ins(%x) outs(%e1) { math.exp %in; arith.negf }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::affine::AffineDialect"];
}

def ArrFuseSiblings : Pass<"arr-fuse-siblings", "::mlir::ModuleOp"> {
  let summary = "Fuses elementwise linalg.generic ops that read a common input";
  let description = [{
    Input and output: linalg on tensors (after `--convert-arr-to-linalg`),
    entries not yet bufferized; fails on arr or bufferized input.

    Sibling (multi-output) fusion, as XLA's: all-parallel linalg.generic ops
    on tensors of one block that read a common tensor (directly or through
    other siblings), have the same static loop bounds, read none of their
    `outs`, do not depend on one another and whose results are not
    inserted into a larger tensor become one generic, at the first of them
    or the last as their uses allow, with the inputs of all (each once),
    the outputs of each and their payloads one after another, while the
    fused payload holds at
    most `max-payload-ops` ops and the fused op has at most `max-operands`
    inputs and outputs. The common input is read once, and N small
    kernels become one (each kernel is tiled, vectorized and compiled for
    every ISA level: 1600 outputs x + k took 72 s to compile as 1600
    kernels, 15 s as 26).

    ```mlir
    %a = linalg.generic ins(%x) outs(%e0) { addf %in, %c1 }
    %b = linalg.generic ins(%x) outs(%e1) { mulf %in, %c2 }
    // becomes
    %a, %b = linalg.generic ins(%x) outs(%e0, %e1) { addf ..., mulf ... }
    ```
  }];
  let options = [
    Option<"maxPayloadOps", "max-payload-ops", "unsigned", /*default=*/"256",
           "The most ops a fused payload holds (its yield included)">,
    Option<"maxOperands", "max-operands", "unsigned", /*default=*/"64",
           "The most inputs and outputs a fused op has">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ArrPlanBuffers : Pass<"arr-plan-buffers", "::mlir::ModuleOp"> {
  let summary = "Plans every intermediate buffer into one static arena";
  let description = [{
    Input: bufferized entries (`--arr-bufferize-pipeline=plan=false`: memref
    arguments, no `arr.arena`); output: planned entries. Fails on tensors
    (naming the pipeline to run first) and on an already planned entry.

    On the bufferized program (destination-passing style, outputs written
    into `arr.output` arguments): traces views to their root allocation,
    computes live intervals over the linearised schedule of the body's
    top-level ops (loop-aware: a use inside a loop counts at the loop, so a
    buffer read on every iteration is live over the whole loop), lets an
    all-parallel linalg op whose input and output use identity maps write
    its output over an input allocation that dies there, and gives every
    other buffer, and every `arr.staging` argument, an aligned offset in one
    arena (best fit in four greedy orders, by size as Pisarchyk & Lee 2020,
    by first use, by conflict count, by alignment padding; the smallest
    arena wins). Every `memref.alloc` becomes a `memref.view` into the
    arena, a new last argument of the function; deallocs are erased. The figures (arena bytes,
    exact and aligned lower bounds, naive sum, in-place count, buffers,
    alignment) are attached to the function as `arr.plan`. With
    `reuse=false` nothing shares bytes (each buffer its own offset, no
    in-place write). An alignment that is not a power of two from 1 to
    4096 is an error. The library behind it is `passes/BufferPlan.h`.

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
        attributes {arr.plan = #arr.plan<arena_bytes = 512, lower_bound = 512,
                    aligned_lower_bound = 512, naive_sum = 768, in_place = 1,
                    buffers = 3, alignment = 64>} {
      %c256 = arith.constant 256 : index
      %a = memref.view %arena[%c256][] : memref<512xi8> to memref<64xf32>
      ...
      %b = memref.view %arena[%c256][] : memref<512xi8> to memref<64xf32>
      ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::vmapc::arr::ArrDialect"];
  let options = [
    Option<"alignment", "alignment", "int64_t", "64",
           "Alignment of every offset in the arena, in bytes: a power of two "
           "from 1 to 4096 (64 suits the CPU, 256 CUDA; raised to the "
           "largest element size; the runtime allocates the arena itself at "
           "least this aligned)">,
    Option<"reuse", "reuse", "bool", "true",
           "Let buffers share bytes (in place, and over time); false turns "
           "planning off: every buffer gets its own offset">
  ];
}

def ArrVerifyBufferPlan : Pass<"arr-verify-buffer-plan", "::mlir::ModuleOp"> {
  let summary = "Checks a buffer plan independently of the planner";
  let description = [{
    Input: planned entries (after `--arr-plan-buffers`); changes nothing.
    Fails on an unplanned module, naming what to run first.

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
    Input: linalg on tensors, with or without dispatches (after
    `--arr-to-linalg-pipeline`); output: the same, entries in
    destination-passing style. Fails on arr or bufferized input.

    On linalg on tensors, for every entry (a public function with
    `arr.batch`): each result becomes a trailing `arr.output` argument and is
    written there by `bufferization.materialize_in_destination` (its tensor
    form, into an argument marked `bufferization.writable`), so that
    `eliminate-empty-tensors` and one-shot bufferization compute it in the
    caller's buffer (destination-passing style; no copy, no allocation
    returned). Arguments the runtime may replace by a staging
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
    With `stage-all`, every argument gets `arr.staging`, unmapped ones too:
    a device with memory of its own (CUDA) copies every host array into a
    slot of the arena.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"stageAll", "stage-all", "bool", "false",
           "Give every argument a staging slot, not only mapped ones">
  ];
}

def ArrEmitEntryDescriptors
    : Pass<"arr-emit-entry-descriptors", "::mlir::ModuleOp"> {
  let summary = "Adds each entry's descriptor (what its code was compiled for)";
  let description = [{
    Input: planned entries (after `--arr-bufferize-pipeline`); output: the
    same plus one `llvm.mlir.global` per entry. Fails on an unplanned module,
    naming what to run first.

    On the planned program (memref entries with an `arr.arena` argument,
    before the lowering to LLVM): for each entry `@e` (a public function
    marked `arr.batch`), adds the read-only global
    `@vmapc_entry_e_descriptor` that runtime/include/vmapc/ArtifactFormat.h
    defines:
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
    Input: any function on memrefs (a `func.func` pass, no stage check: it
    only rewrites `memref.copy`); output: the same with `linalg.copy`s.

    Bufferization leaves `memref.copy` where a value must move between
    buffers. On the GPU path every copy becomes `linalg.copy`, so that it
    becomes a loop nest and then a kernel like every other linalg op,
    instead of host code touching device memory. On the CPU path
    (`strided-only`) only copies whose source or target has a non-identity
    layout (a concat piece's subview, say) are rewritten: the LLVM lowering
    turns those into a call of mlir_c_runner_utils' `memrefCopy`, which
    artifacts do not link, and contiguous copies into `llvm.memcpy`.

    ```mlir
    memref.copy %a, %s : memref<4xf32> to memref<4xf32, strided<[1], offset: 4>>
    // becomes
    linalg.copy ins(%a : memref<4xf32>) outs(%s : memref<4xf32, strided<[1], offset: 4>>)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
  let options = [
    Option<"stridedOnly", "strided-only", "bool", "false",
           "Only rewrite copies between memrefs with non-identity layouts">
  ];
}

def ArrFormDispatches : Pass<"arr-form-dispatches", "::mlir::ModuleOp"> {
  let summary = "Groups each entry's ops into kernels dispatched by a schedule";
  let description = [{
    Input: linalg on tensors without dispatches (after
    `--arr-to-linalg-pipeline`, `--arr-pack-operands`); output: entries that
    dispatch `sched.kernel` functions, still on tensors. Fails on arr input
    and on a module with dispatches already.

    On linalg on tensors (after `--arr-to-linalg-pipeline`): every op that
    computes (a linalg op, a `tensor.insert_slice`) joins one dispatch. From
    the last op of each block backwards, an op not yet taken roots a new
    dispatch, which takes every linalg producer whose results only it reads,
    as long as the root's batch loop stays distributable over workgroups
    without computing any producer value twice (passes/Dispatch/Fusion.h):
    the kNN's distances join their argmin, softmax's and layer norm's row
    reductions join the elementwise step that reads them, an MLP's layers
    join the last one. Each dispatch becomes a private kernel function
    (`sched.kernel`: memref bindings, index scalars, the dispatch's ops on
    tensors read through `bufferization.to_tensor` and written with
    `bufferization.materialize_in_destination`) and a `sched.dispatch` in the
    entry. Constants, empty tensors, views and scalar arithmetic are cloned
    into every kernel that reads them.

    The batch dimension of every value is followed from `arr.in_axes`
    (passes/Dispatch/BatchDims.h); a root whose loop over the batch is known
    gets `sched.batch_loop`, and its kernel the chunk's number of examples as
    a scalar (`sched.num_examples`), so that a chunk of n < B examples
    computes n. If the analysis fails, the entry is marked
    `sched.pads_partial_chunks` instead.

    A fused producer's result lives per workgroup, so a GPU block keeps a
    tile of it in shared memory: `max-fused-bytes-per-example` (set when
    CUDA is a target) bounds the sum, over a dispatch's fused producers, of
    their result bytes per example; a producer that would pass it is left
    out and roots a dispatch of its own, its result an arena buffer like any
    other (attention's 64 KiB scores and their 64 KiB exp per example).

    Before:
    ```mlir
    func.func @classify(%q: tensor<256x64xf32>, %refs: tensor<1000x64xf32>) -> tensor<256xi32> {
      %d = linalg.generic {...reduction over 64...} ins(%q, %refs) outs(%fill)
      %r:2 = linalg.generic {...argmin over 1000...} ins(%d) outs(%fill1, %fill2)
      return %r#1 : tensor<256xi32>
    }
    ```
    After:
    ```mlir
    func.func @classify(%q: tensor<256x64xf32>, %refs: tensor<1000x64xf32>) -> tensor<256xi32> {
      %n = sched.num_examples : index
      %e = tensor.empty() : tensor<256xi32>
      %r = sched.dispatch @classify_dispatch_0(%q, %refs : ...) outs(%e : tensor<256xi32>)
             scalars(%n) -> tensor<256xi32>
      return %r : tensor<256xi32>
    }
    func.func private @classify_dispatch_0(%b0: memref<256x64xf32>, %b1: memref<1000x64xf32>,
        %b2: memref<256xi32>, %n: index {sched.num_examples}) attributes {sched.kernel} {
      %q = bufferization.to_tensor %b0 restrict : ...
      ... the distances and the argmin (sched.batch_loop = 0) ...
      bufferization.materialize_in_destination %r in restrict writable %b2 : ...
      return
    }
    ```
  }];
  let dependentDialects = ["::vmapc::sched::SchedDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"maxFusedBytesPerExample", "max-fused-bytes-per-example",
           "int64_t", "0",
           "Most bytes of fused producers' results per example in one "
           "dispatch (a result with a batch dimension counts its bytes / "
           "the batch extent, one without counts whole); a producer past "
           "it roots its own dispatch. 0: no limit">
  ];
}

def ArrBufferizeEntries : Pass<"arr-bufferize-entries", "::mlir::ModuleOp"> {
  let summary = "One-shot bufferizes the entries' schedules, not the kernels";
  let description = [{
    Input: entries on tensors, dispatched (after `--arr-form-dispatches`,
    `--arr-outputs-to-destinations`, `--eliminate-empty-tensors`); output:
    entries on memrefs, kernels unchanged. Fails on arr or bufferized input.

    Upstream one-shot bufferization across function boundaries (identity
    layouts) of every function except kernels (`sched.kernel`) and what is
    inside them: a `sched.dispatch` on tensors becomes one on memrefs
    (destination-passing style: each result takes its init's buffer), so the
    buffers of an entry are the values that cross dispatches, which
    `--arr-plan-buffers` then places in the arena. Kernels keep their bodies
    on tensors: each target tiles and vectorizes them before bufferizing
    them itself (`--arr-bufferize-kernels`).

    ```mlir
    %r = sched.dispatch @k(%x : tensor<8xf32>) outs(%out : tensor<8xf32>) -> tensor<8xf32>
    // becomes, %x and %out now memref arguments of the entry
    sched.dispatch @k(%x : memref<8xf32>) outs(%out : memref<8xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ArrTileWorkgroups : Pass<"arr-tile-workgroups", "::mlir::ModuleOp"> {
  let summary = "Tiles each kernel's root into a grid of workgroups";
  let description = [{
    Input: kernels on tensors (after `--arr-form-dispatches`; the CPU and CUDA
    pipelines run it after `--arr-erase-schedules`); output: each kernel's
    root as an `scf.forall` over workgroups. Fails on a module without
    kernels, naming what to run first.

    In every kernel (`sched.kernel`, on tensors), the root op (the one whose
    results the kernel writes to its outputs) is tiled along the loops that
    may be spread over workgroups (passes/Dispatch/Fusion.h) into an
    `scf.forall`, one iteration per workgroup, and every producer in the
    kernel is fused into the workgroup's tile with upstream
    `scf::tileAndFuseProducerOfSlice`, each distinct slice once. The root's
    batch loop (`sched.batch_loop`) runs over [0, n), n being the kernel's
    `sched.num_examples` argument: the last workgroup of a chunk takes
    min(T, n - i) rows. Tile sizes per target and op kind come from
    passes/Codegen/TileSizes.h; a workgroup's share of the fused producers'
    results stays within `max-workgroup-scratch` bytes where a tile of one
    example allows it. The kernel records its grid in
    `sched.workgroup_count` (-T for ceil(n / T) workgroups).

    ```mlir
    %r = scf.forall (%i) = (0) to (%n) step (8) shared_outs(%o = %init) -> (tensor<256xi32>) {
      %rows = affine.min affine_map<(d0)[s0] -> (8, s0 - d0)>(%i)[%n]
      ... the distances of %rows queries, their argmin ...
      scf.forall.in_parallel { tensor.parallel_insert_slice %t into %o[%i] [%rows] [1] }
    }
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"target", "target", "std::string", "\"cpu\"",
           "The target whose tile sizes to use: cpu or cuda">,
    Option<"maxWorkgroupScratch", "max-workgroup-scratch", "int64_t", "0",
           "Most bytes of fused intermediates one workgroup keeps (its "
           "tile's share of the producers' results); 0: the target's own "
           "(cpu 256 KiB, cuda 48 KiB)">
  ];
}

def ArrBufferizeKernels : Pass<"arr-bufferize-kernels", "::mlir::ModuleOp"> {
  let summary = "One-shot bufferizes every kernel";
  let description = [{
    Input: tiled kernels on tensors (after `--arr-tile-workgroups`, and on the
    CPU `--arr-cpu-vectorize`); output: kernels on memrefs. Fails on a module
    without kernels.

    Upstream empty-tensor elimination and one-shot bufferization of each
    kernel's body (its bindings are memrefs already): each result is
    computed in its output binding; what stays allocated is per-workgroup
    scratch.

    ```mlir
    %t = bufferization.to_tensor %b0 restrict : memref<64x32xf32> to tensor<64x32xf32>
    %r = scf.forall ... shared_outs(%o = %init) -> (tensor<64x32xf32>) { ... }
    bufferization.materialize_in_destination %r in restrict writable %b1 : ...
    // becomes
    scf.forall ... { ... memref.subview %b0 ..., linalg ops on memref.subview %b1 ... }
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ArrCpuWorkgroups : Pass<"arr-cpu-workgroups", "::mlir::ModuleOp"> {
  let summary = "Makes each CPU kernel the body of one workgroup";
  let description = [{
    Input: bufferized kernels (after `--arr-bufferize-kernels`); output: one
    workgroup per call, its ids as arguments. Fails on a module without
    kernels.

    On bufferized kernels: the `scf.forall` over the grid is replaced by its
    body, for the workgroup whose ids (x, y, z) are three new trailing
    `index` arguments of the kernel (each induction variable = lower bound +
    id x step); the runtime calls the kernel once per workgroup on its
    thread pool. Allocations (per-workgroup scratch) become views of one
    64-byte aligned `memref.alloca` at the kernel's entry, on the worker's
    stack; buffers whose live intervals (over the kernel's ops in pre-order,
    aliases from BufferViewFlowAnalysis) do not overlap share bytes, placed
    by the arena planner's assignOffsets. Its size is recorded as
    `sched.scratch_bytes`.

    ```mlir
    func.func private @rows(%x: memref<64x32xf32>, %out: memref<64x32xf32>,
                            %n: index {sched.num_examples}) attributes {sched.kernel} {
      scf.forall (%i) = (0) to (%n) step (8) { ... memref.alloc() : memref<8x32xf32> ... }
    // becomes
    func.func private @rows(%x: memref<64x32xf32>, %out: memref<64x32xf32>,
                            %n: index {sched.num_examples}, %wx: index, %wy: index, %wz: index)
        attributes {sched.kernel, sched.scratch_bytes = 1024 : i64, ...} {
      %scratch = memref.alloca() {alignment = 64 : i64} : memref<1024xi8>
      %i = affine.apply affine_map<()[s0] -> (s0 * 8)>()[%wx]
      ... %tile = memref.view %scratch[%c0][] : memref<1024xi8> to memref<8x32xf32> ...
      ... the body for rows [%i, min(%i + 8, %n)) ...
    ```
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::memref::MemRefDialect"];
  let options = [
    Option<"maxScratchBytes", "max-scratch-bytes", "int64_t", "1048576",
           "Most bytes of scratch one workgroup may put on its stack">
  ];
}

// The CUDA kernel passes, in the order of --arr-gpu-workgroups (a pipeline:
// passes/GpuPipeline.cpp) and IREE's Codegen/Common/GPU: outline, workgroup
// ids, shared-memory promotion, block size, reductions, contraction tiles,
// thread distribution, FMA contraction, descriptors.

def ArrGpuOutlineKernels
    : Pass<"arr-gpu-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Moves each kernel into gpu.module @vmapc_kernels as a gpu.func";
  let description = [{
    Input: bufferized kernels (`sched.kernel`, after `--arr-bufferize-kernels`
    and `--arr-copies-to-linalg`); output: `gpu.module @vmapc_kernels` of
    `gpu.func`s, the host module a container module. Fails on a module
    without kernels, naming what to run first.

    Each kernel NAME becomes `gpu.func @vmapc_kernel_NAME` (a `gpu.kernel`),
    taking its bindings (bare pointers) then its scalars (i64, cast to index
    inside), the CUDA ABI of runtime/include/vmapc/ArtifactFormat.h, with its
    `sched.workgroup_count`, `sched.binding_bytes` and
    `sched.binding_access`. The constant `memref.global`s it reads and the
    entries' descriptors (`vmapc_entry_NAME_descriptor`, which the runtime
    reads with `cuModuleGetGlobal`) are copied into the GPU module.

    ```mlir
    func.func private @k(%x: memref<64xf32>, %n: index {sched.num_examples}) attributes {sched.kernel} {...}
    // becomes
    gpu.module @vmapc_kernels {
      gpu.func @vmapc_kernel_k(%x: memref<64xf32>, %arg1: i64) kernel {
        %n = arith.index_cast %arg1 : i64 to index
        ...
      }
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect"];
}

def ArrGpuWorkgroupIds : Pass<"arr-gpu-workgroup-ids", "::mlir::ModuleOp"> {
  let summary = "Makes each CUDA kernel's grid loop the body of one block";
  let description = [{
    Input: outlined kernels (after `--arr-gpu-outline-kernels`); output: the
    same without their `scf.forall` over the grid. Fails on kernels not yet
    outlined.

    The grid loop becomes the body of one thread block, each induction
    variable lower bound + `gpu.block_id` x step: the lowering the CPU's
    `--arr-cpu-workgroups` shares (passes/Codegen/WorkgroupLoop.h), there
    with the ids as arguments.

    ```mlir
    scf.forall (%i) = (0) to (%n) step (8) { ... }
    // becomes
    %bx = gpu.block_id x
    %i = affine.apply affine_map<()[s0] -> (s0 * 8)>()[%bx]
    ...
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::affine::AffineDialect"];
}

def ArrGpuPromoteScratch
    : Pass<"arr-gpu-promote-scratch", "::mlir::ModuleOp"> {
  let summary = "Puts each CUDA kernel's scratch in the block's shared memory";
  let description = [{
    Input: kernels after `--arr-gpu-workgroup-ids`; output: no
    `memref.alloc` left, and `sched.scratch_bytes` the scratch's bytes.

    Per-workgroup scratch (what `memref.alloc` is left) becomes views of the
    block's dynamic shared memory (`gpu.dynamic_shared_memory`), at 16-byte
    aligned offsets packed by live interval (the body's top-level ops, greedy
    by size with best fit, as BufferPlan.h), each sized for the bound of its
    dynamic sizes (the rows of a partial tile); deallocs are erased.

    ```mlir
    %t = memref.alloc() : memref<8x64xf32>
    // becomes
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %v = memref.view %smem[%c0][] : ... to memref<8x64xf32, #gpu.address_space<workgroup>>
    %t = memref.memory_space_cast %v : ... to memref<8x64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def ArrGpuBlockSize : Pass<"arr-gpu-block-size", "::mlir::ModuleOp"> {
  let summary = "Chooses each CUDA kernel's block size";
  let description = [{
    Input: kernels after `--arr-gpu-promote-scratch`; output: each with
    `known_block_size`, which the distribution passes read.

    The block size is `threads-per-block`, or, when no structured op of the
    kernel has that many iterations, their largest count rounded up to a
    warp (32).

    ```mlir
    gpu.func @vmapc_kernel_k(...) kernel attributes {known_block_size = array<i32: 64, 1, 1>, ...}
    ```
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t", "256",
           "Threads of a block (a multiple of 32, at most 1024)">
  ];
}

def ArrGpuReductions : Pass<"arr-gpu-reductions", "::mlir::ModuleOp"> {
  let summary = "Shares reductions with few outputs over a warp or the block";
  let description = [{
    Input: kernels with `known_block_size` (after `--arr-gpu-block-size`);
    output: the same, each such reduction replaced by the code of the
    block's threads and a barrier.

    A reduction with fewer output elements than threads (a row sum, max,
    min, product, argmin, argmax over 32-bit values) is shared: a warp per
    output element when there are at least as many as warps, else the whole
    block per element. Each thread folds a strided part of the reduction
    from the combiner's identity (ReductionIdentity.h), the warp combines
    with `gpu.shuffle xor` (5 steps), the block's warps through a row of
    shared memory after the scratch, and the result is combined with the
    output's initial value. Argmin/argmax compare indices on ties, so the
    lowest index wins whatever the block size; sums are reassociated.

    ```mlir
    linalg.generic {iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x1000xf32>) outs(%s : memref<4xf32>) {addf}
    // becomes, for 4 outputs and 8 warps: a warp per row
    scf.for %row = %warp to %c4 step %c8 {
      %p = scf.for %r = %lane to %c1000 step %c32 iter_args(%acc = %neg_zero) ...
      %q = gpu.shuffle xor %p, %c16, %c32 ... // 5 steps
      scf.if %lane0 { memref.store ... }
    }
    gpu.barrier
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ArrGpuContractionTiles
    : Pass<"arr-gpu-contraction-tiles", "::mlir::ModuleOp"> {
  let summary = "Computes contractions by output tiles staged in shared memory";
  let description = [{
    Input: kernels with `known_block_size`, after `--arr-gpu-reductions`;
    output: the same, each such contraction replaced by the code of the
    block's threads and a barrier.

    A contraction (one reduction loop, an input reused across output
    elements, or read along the reduction innermost) with more outputs than
    threads is computed by output tiles: the block stages 16 reduction steps
    of each reused input in shared memory (innermost padded by one element),
    then each thread accumulates a register tile of up to 4 x 4 outputs
    (rows a thread-grid height apart, columns a width apart), a barrier
    before and after each stage; rows and columns past the output are
    clamped, computed and not stored. The staged tiles live in the transient
    region after the scratch, shared with the block reductions' exchange
    rows (one op at a time).

    ```mlir
    linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
    // becomes
    scf.for %tile ... {               // output tiles
      scf.for %k0 = %c0 to %c64 step %c16 iter_args(%acc...) {
        ... stage A's and B's 16 steps in shared memory, gpu.barrier
        ... each thread: its 4 x 4 register tile
      }
      ... store the tile
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ArrGpuDistributeThreads
    : Pass<"arr-gpu-distribute-threads", "::mlir::ModuleOp"> {
  let summary = "Spreads every other structured op over the block's threads";
  let description = [{
    Input: kernels with `known_block_size`, after `--arr-gpu-reductions` and
    `--arr-gpu-contraction-tiles`; output: kernels without structured ops.
    Fails on a `memref.copy` left in a kernel (`--arr-copies-to-linalg` runs
    first) and on a kernel without a block size.

    Every structured op left is spread over the block's threads: its
    parallel loops, linearized with the innermost fastest (adjacent threads
    touch adjacent elements of the output), run strided by the block size
    (an elementwise op with enough elements 4 at a time, every load before
    any store), and each thread runs the reduction loops of its output
    elements in order; a `gpu.barrier` follows each op, so that the next one
    sees its writes.

    ```mlir
    linalg.generic ... ins(%x : memref<256xf32>) outs(%y : memref<256xf32>) {exp}
    // becomes
    %tid = gpu.thread_id x
    scf.for %i = %tid to %c256 step %c256 {
      %v = memref.load %x[%i] ...
      memref.store %e, %y[%i] ...
    }
    gpu.barrier
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ArrGpuFmaContraction
    : Pass<"arr-gpu-fma-contraction", "::mlir::ModuleOp"> {
  let summary = "Lets every CUDA kernel's multiply-adds contract into FMAs";
  let description = [{
    Input and output: outlined kernels (after the distribution passes, so
    that the ops they make are marked too).

    The one fast-math liberty (docs/design.md, passes/Codegen/FastMath.h):
    every op with fast-math flags gets `contract`, which NVPTX turns into
    `fma.rn.f32` for a multiply and the add that takes it (f32, never TF32).

    ```mlir
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %c : f32
    // becomes
    %p = arith.mulf %a, %b fastmath<contract> : f32
    %s = arith.addf %p, %c fastmath<contract> : f32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def ArrGpuKernelDescriptors
    : Pass<"arr-gpu-kernel-descriptors", "::mlir::ModuleOp"> {
  let summary = "Records each CUDA kernel's shared memory and descriptor";
  let description = [{
    Input: distributed kernels (after `--arr-gpu-distribute-threads`);
    output: each kernel's `sched.scratch_bytes` its launch's dynamic shared
    memory (scratch and transient region), and its descriptor
    (`vmapc_kernel_NAME_descriptor`, runtime/include/vmapc/ArtifactFormat.h)
    after it, which the runtime reads with `cuModuleGetGlobal` and checks
    against the manifest. Fails on a kernel that needs more shared memory than
    `max-shared-bytes`, or without a block size.

    ```mlir
    gpu.func @vmapc_kernel_k(...) kernel attributes {known_block_size = array<i32: 256, 1, 1>, sched.scratch_bytes = 1024 : i64, ...}
    llvm.mlir.global external constant @vmapc_kernel_k_descriptor(dense<[...]> : tensor<12xi64>) ...
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  let options = [
    Option<"maxSharedBytes", "max-shared-bytes", "int64_t", "232448",
           "Most bytes of shared memory a block may use (sm_90: 227 KiB)">
  ];
}

def ArrNvvmExternDynamicShared
    : Pass<"arr-nvvm-extern-dynamic-shared", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declares the dynamic shared memory symbol extern, as CUDA does";
  let description = [{
    Input: a `gpu.module` after `convert-gpu-to-nvvm` (a `gpu.module` pass);
    output: the same, the dynamic shared memory declared extern.

    After `convert-gpu-to-nvvm`, `gpu.dynamic_shared_memory` is an internal
    zero-length array in the shared address space (3), which the NVPTX back
    end prints as a one-byte static `.shared` variable: the kernel's views
    then start in static shared memory and run past it. This makes every
    such global (`__dynamic_shmem__N`) an external declaration, which NVPTX
    prints as CUDA's `extern __shared__ char s[]`:

    ```
    .extern .shared .align 16 .b8 __dynamic_shmem__0[];
    ```

    so that the views address the dynamic shared memory of the launch
    (its size is the kernel's launch record, `sched.scratch_bytes`).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ArrConvertKernelsToLLVM
    : Pass<"arr-convert-kernels-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Converts CPU kernels to the LLVM dialect in one conversion";
  let description = [{
    Input: kernels of 1-D vector, arith, math, memref, func, cf and ub ops
    (after `convert-scf-to-cf` in `--arr-to-llvm-pipeline`); output: the
    LLVM dialect, no unrealized casts left. Fails on an earlier or later
    stage (as `arr-cpu-lower-vectors`), naming what to run first, and,
    naming the op, on any op that has no conversion.

    What `convert-vector-to-llvm{reassociate-fp-reductions}`,
    `finalize-memref-to-llvm`, `convert-math-to-llvm`,
    `convert-arith-to-llvm`, `convert-func-to-llvm{use-bare-ptr-memref-call-conv}`,
    `convert-cf-to-llvm`, `convert-ub-to-llvm` and
    `reconcile-unrealized-casts` do one after another, with one type
    converter, one pattern set and one walk: upstream's vector-to-vector
    lowerings first (as `convert-vector-to-llvm` applies them), then a single
    partial conversion of every dialect's patterns. Eight walks and seven
    rounds of casts between them took about a quarter of the CPU pipeline's
    MLIR time. Functions take bare pointers for their memrefs: the kernel
    ABI of `--arr-emit-cpu-kernels`.

    ```mlir
    func.func @k(%a: memref<16xf32>) {
      %v = vector.load %a[%c0] : memref<16xf32>, vector<8xf32>
    // becomes
    llvm.func @k(%a: !llvm.ptr) {
      %v = llvm.load %p {alignment = 4 : i64} : !llvm.ptr -> vector<8xf32>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ArrEmitCpuKernels : Pass<"arr-emit-cpu-kernels", "::mlir::ModuleOp"> {
  let summary = "Adds the C entry point `vmapc_kernel_NAME` of every kernel";
  let description = [{
    Input: the kernels in the LLVM dialect (after `--arr-to-llvm-pipeline`'s
    conversions to LLVM); output: the same plus a C entry point per kernel.
    Fails on any earlier stage, naming what to run first.

    On the LLVM dialect, after `arr-convert-kernels-to-llvm` (bare-pointer
    calling convention): for each kernel `@k` (pointers for its bindings,
    i64s for its scalars and its three workgroup ids), adds
    `llvm.func @vmapc_kernel_k(%bindings: !llvm.ptr, %scalars: !llvm.ptr,
    %x: i64, %y: i64, %z: i64)`, which loads each binding and scalar from
    the two arrays and calls `@k`, now internal. This is the kernel ABI of
    runtime/include/vmapc/ArtifactFormat.h.

    ```mlir
    llvm.func @k(%a: !llvm.ptr, %b: !llvm.ptr, %n: i64, %x: i64, %y: i64, %z: i64)
        attributes {sched.kernel, ...}
    // becomes internal, with
    llvm.func @vmapc_kernel_k(%bindings: !llvm.ptr, %scalars: !llvm.ptr,
                              %x: i64, %y: i64, %z: i64) {
      // load the two bindings and the scalar, then
      llvm.call @k(%a, %b, %n, %x, %y, %z) : ...
      llvm.return
    }
    llvm.mlir.global external constant @vmapc_kernel_k_descriptor(dense<[...]> : tensor<12xi64>)
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ArrEraseSchedules : Pass<"arr-erase-schedules", "::mlir::ModuleOp"> {
  let summary = "Erases the entries, leaving the kernels";
  let description = [{
    Input: planned entries and their kernels (after
    `--arr-emit-entry-descriptors`); output: the kernels alone. Fails on an
    unplanned module.

    Once the driver has read every planned entry's schedule into the
    artifact, the entries are data, not code: this erases every function
    that is not a kernel, so that only kernels go on to LLVM.

    ```mlir
    func.func private @k(%o: memref<4xf32>) attributes {sched.kernel} { ... }
    func.func @e(%o: memref<4xf32> {arr.output}, %arena: memref<256xi8> {arr.arena})
        attributes {arr.batch = 4 : i64, ...} { sched.dispatch @k() outs(%o : ...) ... }
    llvm.mlir.global external constant @vmapc_entry_e_descriptor(...)
    // becomes: @k and the descriptor alone
    ```
  }];
}

def ArrCpuVectorize : Pass<"arr-cpu-vectorize", "::mlir::ModuleOp"> {
  let summary = "Tiles CPU kernels for registers and vectorizes them";
  let description = [{
    Input: tiled kernels on tensors (after `--arr-tile-workgroups`); output:
    the same as vector ops on tensors. Fails on a module without kernels.

    In every kernel, on tensors after `--arr-tile-workgroups`: the root is
    tiled by rows with its producers fused in (one slice each), the last
    rows of a partial workgroup peeled so that every shape is static (a
    kernel that contracts: slabs of 64 rows, a partial one computed in the
    static code of a full one on padded inputs, each op's tiles of rows
    stopped at the rows its users read; passes/Codegen/PadSlab.h); each
    op is then cut into register tiles by its kind (passes/Codegen/
    TileSizes.h: elementwise, contraction along the output's innermost
    dimension, reduction along a contiguous dimension, argmin/argmax),
    remainders peeled, unit dimensions folded, and upstream
    `linalg::vectorize` (or ArgReduce.h for argmin/argmax) turns each tile
    into vector ops; loop-invariant transfers become loop-carried vectors.
    `isa` picks the vector width and register tiles.

    ```mlir
    // one row of softmax over 1000 classes, x86-64-v4: the max as 4 x 16
    // lanes, then one reduction
    %m = scf.for %j = %c0 to %c960 step %c64 iter_args(%acc = %init) -> (vector<64xf32>) {
      %x = vector.transfer_read %row[%j] ... : tensor<1000xf32>, vector<64xf32>
      %next = arith.maximumf %x, %acc : vector<64xf32>
      scf.yield %next : vector<64xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"isaLevel", "isa", "std::string", "\"x86-64\"",
           "ISA level: x86-64 (SSE2), x86-64-v3 (AVX2+FMA), x86-64-v4 (AVX-512)">
  ];
}

def ArrCpuLowerVectors : Pass<"arr-cpu-lower-vectors", "::mlir::ModuleOp"> {
  let summary = "Lowers kernels' vector ops to 1-D vector arithmetic";
  let description = [{
    Input: bufferized, vectorized kernels (after `--arr-cpu-workgroups`);
    output: 1-D vector ops on memrefs. Fails on a module without kernels.

    On bufferized kernels: contractions to outer products to multiply-adds
    (`arith.mulf` + `arith.addf` with `contract`, which LLVM fuses into an
    FMA where the ISA has one), multi-dimensional reductions to 1-D
    reductions, transposes to shuffles, broadcasts, shape casts and
    transfers to 1-D loads and stores, ready for `arr-convert-kernels-to-llvm`.
    With `avx-shuffles` (set for x86-64-v3 and -v4), an 8 x 8 f32 transpose
    becomes the 24 AVX shuffles of 8-lane rows (unpack, shufps, vperm2f128)
    and a 4 x 8 one x86vector's 12, rather than one shuffle of 64 (32) lanes.

    ```mlir
    %c = vector.contract {...} %a, %b, %acc : vector<8x4xf32>, vector<4x16xf32> into vector<8x16xf32>
    // becomes, per row and per k
    %p = arith.mulf %ai, %bk fastmath<contract> : vector<16xf32>
    %s = arith.addf %p, %acci fastmath<contract> : vector<16xf32>
    ```
  }];
  let options = [
    Option<"avxShuffles", "avx-shuffles", "bool", /*default=*/"false",
           "Lower 8 x 8 and 4 x 8 f32 transposes to AVX's 8-lane shuffles "
           "(the levels with AVX: x86-64-v3, x86-64-v4)">,
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::ub::UBDialect"];
}

def ArrPackOperands : Pass<"arr-pack-operands", "::mlir::ModuleOp"> {
  let summary = "Layouts that let reductions vectorize along their output";
  let description = [{
    Input and output: linalg on tensors without dispatches (after
    `--arr-to-linalg-pipeline`); fails on arr input or once dispatches are
    formed.

    On each entry's linalg on tensors, before dispatches are formed, two
    layout changes that keep every value computed by the same operations in
    the same order: a `linalg.transpose` of a linalg op's only result is
    folded into the op (which then writes the transposed layout); and a
    reduction whose output's innermost loop an unbatched input reads along a
    dimension that is not its innermost one reads that input through a
    transposed copy (a `linalg.transpose` of its own, made once per chunk
    for the whole batch), so that every input is contiguous along the output
    or does not read it. With `panels` (the default), an unbatched [K, N]
    operand contiguous along the output of a contraction over the batch
    (`x @ W`; N a multiple of 32, over 32) is read from a copy in column
    panels, [N/32, K, 32], through the map (p floordiv 32, k, p mod 32):
    a register tile's walk over K is then one contiguous stream (IREE's data
    tiling); the copy reads only unbatched values and is made once per call.

    ```mlir
    // before: distances [b, r] reading refs[r, d]
    %d = linalg.generic {maps = [(b,r,d)->(b,d), (b,r,d)->(r,d), (b,r,d)->(b,r)]}
           ins(%q, %refs) ...
    // after: through refs transposed to [d, r]
    %t = linalg.transpose ins(%refs : tensor<1000x64xf32>) outs(%e : tensor<64x1000xf32>) permutation = [1, 0]
    %d = linalg.generic {maps = [(b,r,d)->(b,d), (b,r,d)->(d,r), (b,r,d)->(b,r)]}
           ins(%q, %t) ...
    ```
  }];
  let options = [
    Option<"panels", "panels", "bool", /*default=*/"true",
           "Read an unbatched [K, N] operand of a contraction over the batch "
           "(N a multiple of 32, over 32) from a copy in column panels "
           "[N/32, K, 32] (the CPU's schedule; off for CUDA, whose kernels "
           "stage their own tiles)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ArrPrintSchedules : Pass<"arr-print-schedules", "::mlir::ModuleOp"> {
  let summary = "Prints each planned entry's schedule of dispatches";
  let description = [{
    Input: planned entries (after `--arr-bufferize-pipeline`); output: the
    module unchanged and the text below. Fails on any other stage (the front
    end's output, or a module whose schedules `--arr-erase-schedules`
    removed), naming what to run.

    After planning, prints for every entry the schedule the artifact
    carries: one line per dispatch (kernel, grid as a function of n, its
    bindings: input k, output k or an arena offset, its scalars) and one per
    loop, its body indented. Changes nothing.

    ```
    entry classify (batch 256):
      dispatch classify_dispatch_0 grid(1, 1, 1) (input 1, arena+0)
      dispatch classify_dispatch_1 grid(ceil(n/8), 1, 1) (input 0, arena+0, output 0) scalars(n)
    ```
  }];
  let options = [
    Option<"output", "output", "std::string", "\"-\"",
           "Where to print (- for stdout)">
  ];
}

def ArrCopiesToDispatches : Pass<"arr-copies-to-dispatches", "::mlir::ModuleOp"> {
  let summary = "Turns the copies bufferization left in entries into dispatches";
  let description = [{
    Input: bufferized entries (after `--arr-bufferize-entries`); output: the
    same with each entry-level `memref.copy` a dispatch. Fails on input on
    tensors.

    After `--arr-bufferize-entries`, an entry may hold `memref.copy`s that
    bufferization inserted (a loop carry it could not update in place, a
    value returned twice). A schedule is made of dispatches only: each copy
    becomes a dispatch of a kernel of its own that does the copy, its source
    and target bound as whole buffers (views between them and their roots
    are rebuilt in the kernel).

    ```mlir
    memref.copy %a, %b : memref<4xf32> to memref<4xf32>
    // becomes
    sched.dispatch @e_copy_0(%a : memref<4xf32>) outs(%b : memref<4xf32>)
    func.func private @e_copy_0(%src: memref<4xf32>, %dst: memref<4xf32>)
        attributes {sched.kernel} {
      memref.copy %src, %dst : memref<4xf32> to memref<4xf32>
      return
    }
    ```
  }];
  let dependentDialects = ["::vmapc::sched::SchedDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ArrDoubleBufferCarries
    : Pass<"arr-double-buffer-carries", "::mlir::ModuleOp"> {
  let summary = "Unrolls a loop by two to swap a carry and its temporary instead of copying";
  let description = [{
    Input: bufferized entries (after `--arr-bufferize-entries`), before
    `--arr-copies-to-dispatches`; output: the same, with each loop whose
    steps end in copying temporaries back into their carries unrolled by
    two, the second half with each carry and its temporary swapped and no
    copy (an odd step count keeps its last step, copies included, after the
    loop). Fails on input on tensors or already planned.

    A loop is rewritten when it runs from 0 to a constant N >= 2 by 1, has
    no results and does not use its index, and its body ends with copies, each from an
    allocation of the body (unused after its copy) into a distinct buffer of
    the same type defined outside the loop:

    ```mlir
    scf.for %i = %c0 to %c20 step %c1 {
      %t = memref.alloc() : memref<256x64xf32>
      sched.dispatch @step(%h : memref<256x64xf32>) outs(%t : memref<256x64xf32>)
      memref.copy %t, %h : memref<256x64xf32> to memref<256x64xf32>
    }
    // becomes
    %t = memref.alloc() : memref<256x64xf32>
    scf.for %i = %c0 to %c10 step %c1 {
      sched.dispatch @step(%h : memref<256x64xf32>) outs(%t : memref<256x64xf32>)
      sched.dispatch @step(%t : memref<256x64xf32>) outs(%h : memref<256x64xf32>)
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def ArrHoistPerCall : Pass<"arr-hoist-per-call", "::mlir::ModuleOp"> {
  let summary = "Marks dispatches that compute the same in every chunk to run once per call";
  let description = [{
    Input: bufferized entries (after `--arr-copies-to-dispatches`), before
    `--arr-plan-buffers`; output: the same, with `sched.once_per_call` on
    each dispatch of an entry's body that has no scalars, reads only the
    entry's unmapped inputs and buffers written by dispatches marked before
    it, and writes only allocations that it alone writes. Fails on input on
    tensors or already planned.

    The runtime runs a marked dispatch in the first chunk of a call only;
    the planner keeps what it writes live over the whole schedule. The
    kNN's transposed references are made once per call, not once per chunk:

    ```mlir
    %t = memref.alloc() : memref<64x1000xf32>
    sched.dispatch @classify_dispatch_0(%refs : memref<1000x64xf32>)
        outs(%t : memref<64x1000xf32>) {sched.once_per_call}
    sched.dispatch @classify_dispatch_1(%q, %t : ...) outs(%out : ...) scalars(%n)
    ```
  }];
  let dependentDialects = ["::vmapc::sched::SchedDialect"];
}

def ArrExpandMath : Pass<"arr-expand-math"> {
  let summary = "Expands f32 math functions into vectorizable arith ops";
  let description = [{
    Input: any op (no stage check; it rewrites the math ops it finds on f32
    scalars, vectors and tensors); output: arith ops in their place.

    Rewrites `math.exp`, `math.log`, `math.tanh`, `math.powf`, `math.sin`,
    `math.cos`, `math.log1p`, `math.expm1`, `math.erf`, `math.floor`,
    `math.ceil` and `math.roundeven` on f32 scalars, vectors of f32 and
    ranked tensors of f32 (any shape, static or dynamic) into arith ops,
    `math.absf` and `math.copysign`, which LLVM
    lowers to vector instructions at every x86-64 level: no libm call, no
    `math.floor` and no `math.fma` (SSE2 has neither; multiply-adds carry the
    `contract` flag and become FMAs where the target has them). `math.sqrt`
    stays: LLVM lowers it to the square-root instruction. Other element
    types and other math ops are left alone. The constants of a dynamically
    shaped tensor are `tensor.splat`s of its `tensor.dim`s.

    exp is Cephes' `expf` polynomial with our own reduction and scaling
    (denormal results, exact overflow); with `fused-multiply-add` (a target
    with FMA), e^r is 1 + r (1 + r S(r)) by two multiply-adds instead of
    Cephes' compensated sum (this form would reach 1.18 ulp without FMA).
    log is Cephes' `logf` (the operations of upstream's `LogApproximation`)
    with denormal inputs scaled into the normal range; tanh is
    (1 - t) / (1 + t) with t = exp(-2|x|) from a polynomial of e^r - 1 (one
    formula for every x); powf computes y * log2|x| and its exp2 in f64 and
    keeps every special case of C's `powf`. sin and cos (Cody-Waite
    reduction with three parts of pi/2, Taylor series), log1p (log of the
    exact 1 + x), expm1 (2^n expm1(r) + 2^n - 1) and erf (two Chebyshev
    interpolants) compute in f64 and round once; floor, ceil and roundeven
    are |x| + 2^23 - 2^23 with x's sign and a correction (SSE2 has no
    `roundps`), exact. Bounds (1 ulp for exp and powf, 2 for log and tanh,
    0.501 for sin, cos, log1p, expm1 and erf, sin and cos for |x| <= 2^30),
    special cases and sources: docs/math.md.

    Before:
    ```mlir
    %y = math.exp %x : vector<16xf32>
    ```
    After (abridged):
    ```mlir
    %below = arith.cmpf olt, %x, %cst_m104 : vector<16xf32>
    %c = arith.select %below, %cst_m104, %x : vector<16xi1>, vector<16xf32>
    ...
    %k = arith.subf %s, %shift : vector<16xf32>        // round(x * log2(e))
    %r0 = arith.mulf %k, %c1 fastmath<contract> : vector<16xf32>
    %r = arith.addf %r0, %c fastmath<contract> : vector<16xf32>
    ...                                                // e^r, Horner
    %kb = arith.bitcast %s : vector<16xf32> to vector<16xi32>
    %ki = arith.subi %kb, %shift_bits : vector<16xi32>  // k, no fptosi
    ...                                                // 2^k1 * 2^k2 from bits
    %y = arith.mulf %e1, %scale2 : vector<16xf32>      // NaN stays NaN
    ```
  }];
  let options = [
    Option<"fusedMultiplyAdd", "fused-multiply-add", "bool", "false",
           "The target fuses a `contract` multiply and add into one FMA "
           "(x86-64-v3, -v4): exp takes its shorter form, exact to 1 ulp "
           "only with FMA">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // VMAPC_PASSES
