//===- CudaCodeCheck.h - what a CUDA code object must be --------*- C++ -*-===//
//
// The CUDA backend's check of its code objects (CodeObjectCheck.h), asked
// by the validator for every cubin and PTX object: an SM architecture
// ("sm_" and 2 or 3 digits), no CPU features, one launch record per kernel
// within the limits of ArtifactFormat.h, and bytes the driver can take: a
// cubin is a little-endian ELF64 object for NVIDIA GPUs (EM_CUDA) whose
// tables and sections lie inside it, PTX is text without a NUL byte. An
// artifact with CUDA code gives every argument a staging slot.
//
// Needs no cuda.h: built with or without the CUDA backend, so that every
// runtime (and the compiler's writer) checks CUDA artifacts alike.
//
// Internal: not installed.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_CUDA_CUDACODECHECK_H
#define VMAPC_CUDA_CUDACODECHECK_H

#include "vmapc/CodeObjectCheck.h"

namespace vmapc {
namespace cuda {

/// Errors (kInvalidArgument, or kOutOfRange past a limit): "code object #1:
/// SM architecture 'L' is not sm_ and 2 or 3 digits (sm_90)", "code object
/// #1 (sm_90): a CUDA object has no CPU features, it has N", "...: N launch
/// records for K kernels", "...: kernel 'k': block dimension x is 0 (each
/// is at least 1)", "...: kernel 'k': a block of X x Y x Z threads, more
/// than 1024", "...: kernel 'k': N bytes of dynamic shared memory, more
/// than 232448", "... is not a CUDA cubin (an ELF object for NVIDIA GPUs,
/// EM_CUDA)" and the layout's (ElfObject.h), "... is PTX with a NUL byte at
/// offset N".
extern const CodeObjectCheck kCudaCubinCheck;
extern const CodeObjectCheck kCudaPtxCheck;

} // namespace cuda
} // namespace vmapc

#endif // VMAPC_CUDA_CUDACODECHECK_H
