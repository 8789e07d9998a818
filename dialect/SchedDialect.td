//===- SchedDialect.td - the sched dialect -----------------*- tablegen -*-===//
//
// The `sched` dialect: an entry point as a schedule of kernel dispatches.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_SCHED_DIALECT
#define VMAPC_SCHED_DIALECT

include "mlir/IR/OpBase.td"

def Sched_Dialect : Dialect {
  let name = "sched";
  let summary = "Entry points as schedules of kernel dispatches";
  let description = [{
    After `--arr-form-dispatches`, an entry point (a public function with
    `arr.batch`) is a schedule: `sched.dispatch` ops, each launching a
    kernel over a grid of workgroups, in order, inside `scf.for` loops
    (repeats) where the program loops. A kernel is a private `func.func`
    marked `sched.kernel` whose arguments are its bindings (memrefs: the
    dispatch's inputs, then its outputs) and its scalars (`index`: the
    number of examples of the chunk, loop indices). This is the structure
    IREE gives a program (a stream of dispatches of HAL executables) and
    XLA a thunk sequence; the CPU and CUDA backends compile the same kernels
    and the runtime walks the same schedule.

    The entry computes examples [0, n) of its statically shaped (batch B)
    buffers, where `n = sched.num_examples` (1 <= n <= B) is the size of the
    chunk the runtime is running; lanes n..B-1 of batched buffers are
    undefined, unless the entry is marked `sched.pads_partial_chunks` (then
    kernels compute all B lanes and the runtime pads a partial chunk).

    Discardable attributes (declared and verified here):
    - `sched.kernel` (unit, on `func.func`): the function is a kernel.
    - `sched.num_examples` (unit, on a kernel argument of type `index`): the
      argument is the chunk's number of examples n.
    - `sched.batch_loop` (i64, on the root op of a kernel): the loop of that
      op that runs over the batch dimension; the kernel runs it over [0, n).
    - `sched.workgroup_count` (array of i64, on a kernel after
      `--arr-tile-workgroups`): per grid dimension (x, y, z), the number of
      workgroups: a positive constant, or -T for ceil(n / T).
    - `sched.pads_partial_chunks` (unit, on an entry): see above.
    - `sched.once_per_call` (unit, on a `sched.dispatch` directly in an
      entry's body, after `--arr-hoist-per-call`): the dispatch reads only
      the entry's unmapped inputs and buffers written by other such
      dispatches, and has no scalars, so every chunk would compute the same
      bytes; the runtime runs it in the first chunk of a call only, and the
      planner keeps what it writes live over the whole schedule.
    - `sched.scratch_bytes` (i64, on a kernel after `--arr-cpu-workgroups`
      or `--arr-gpu-workgroups`): bytes of per-workgroup scratch, on the
      worker's stack (CPU) or in the block's dynamic shared memory (GPU).
    - `sched.binding_bytes` (array of i64, on a kernel after
      `--arr-cpu-workgroups`): the bytes of each binding, which the kernel's
      descriptor in the code object repeats.
    - `sched.binding_access` (array of i64, with `sched.binding_bytes`):
      what the kernel does through each binding, 1 read, 2 write, 3 both
      (passes/Codegen/BindingAccess.h), which the manifest and the kernel's
      descriptor record.
  }];
  let cppNamespace = "::vmapc::sched";
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral kKernelAttrName = "sched.kernel";
    static constexpr ::llvm::StringLiteral kNumExamplesAttrName =
        "sched.num_examples";
    static constexpr ::llvm::StringLiteral kBatchLoopAttrName =
        "sched.batch_loop";
    static constexpr ::llvm::StringLiteral kWorkgroupCountAttrName =
        "sched.workgroup_count";
    static constexpr ::llvm::StringLiteral kPadsPartialChunksAttrName =
        "sched.pads_partial_chunks";
    static constexpr ::llvm::StringLiteral kOncePerCallAttrName =
        "sched.once_per_call";
    static constexpr ::llvm::StringLiteral kScratchBytesAttrName =
        "sched.scratch_bytes";
    static constexpr ::llvm::StringLiteral kBindingBytesAttrName =
        "sched.binding_bytes";
    static constexpr ::llvm::StringLiteral kBindingAccessAttrName =
        "sched.binding_access";
  }];
}

class Sched_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sched_Dialect, mnemonic, traits>;

#endif // VMAPC_SCHED_DIALECT
