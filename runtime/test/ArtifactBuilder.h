//===- ArtifactBuilder.h - artifacts built by hand, for testing -*- C++ -*-===//
//
// The one generator of artifacts (ArtifactFormat.h) that the runtime's unit
// tests (TestUtil.h), the seed maker (fuzz/make_artifact_seeds.cpp) and the
// run fuzzer (fuzz/run/) build theirs with: arguments, kernels, schedule
// commands, code objects (the smallest valid x86-64 shared object, a cubin
// header, launch records), staging slots for CUDA code, and the entry
// descriptors' schedule digests written into a CPU object as the compiler
// writes them. The static library vmapc_artifact_builder (not installed).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TEST_ARTIFACTBUILDER_H
#define VMAPC_TEST_ARTIFACTBUILDER_H

#include "vmapc/ArtifactFormat.h"
#include "vmapc/Schedule.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vmapc_test {

/// An argument: per-example `shape`, batch axis `axis` (kNoAxis: none),
/// staging slot at `staging` (kNoStaging: none).
vmapc::ArgInfo arg(const std::string &name, vmapc::DType dtype,
                   std::vector<int64_t> shape, int32_t axis,
                   uint64_t staging = vmapc::kNoStaging);

/// Schedule pieces (vmapc/Schedule.h).
vmapc::Binding inputBinding(uint32_t index);
vmapc::Binding outputBinding(uint32_t index);
vmapc::Binding arenaBinding(uint64_t offset);
vmapc::ScalarSource numExamples();
vmapc::ScalarSource loopIndex(uint32_t loop);
vmapc::Command dispatch(uint32_t kernel, std::vector<vmapc::Binding> bindings,
                        std::vector<vmapc::ScalarSource> scalars = {});
vmapc::Command loop(uint64_t tripCount, uint32_t bodySize);

/// A kernel with bindings of `bindingBytes` and accesses `access` (one
/// letter per binding: 'r' read, 'w' write, 'b' both).
vmapc::KernelInfo kernel(const std::string &name,
                         std::vector<uint64_t> bindingBytes,
                         const std::string &access, uint32_t numScalars,
                         int64_t gridX, int64_t gridY = 1, int64_t gridZ = 1);

/// A 64-byte little-endian ELF64 header (version 1) of e_type `type` and
/// e_machine `machine`, with no program or section headers.
std::string elfHeader(uint16_t type, uint16_t machine);
/// The first 64 bytes of a cubin, all the validator reads of one: an ELF64
/// little-endian header for NVIDIA GPUs (EM_CUDA = 190, ET_EXEC).
std::string cubinElfHeader();
/// The smallest shared object the validator takes: an x86-64 ET_DYN
/// header and one PT_LOAD segment of the whole file (its program header at
/// 64).
std::string smallestSharedObject();

/// A CPU code object for ISA `level` needing `cpuFeatures`.
vmapc::CodeObject cpuCodeObject(const std::string &level,
                                std::vector<std::string> cpuFeatures,
                                std::string bytes);
/// A CUDA code object of `kind` for `level` holding `bytes`, with
/// `launches` (one per kernel).
vmapc::CodeObject cudaCodeObject(vmapc::CodeKind kind, const std::string &level,
                                 std::string bytes,
                                 std::vector<vmapc::GpuLaunch> launches);
/// The same with a launch record per kernel of `numKernels`: kernel k runs
/// blocks of (32 (k % 16 + 1), 2, 1) threads with 1024 k bytes of dynamic
/// shared memory.
vmapc::CodeObject cudaCodeObject(vmapc::CodeKind kind, const std::string &level,
                                 std::string bytes, size_t numKernels);

/// Gives every argument of `e` without a staging slot one, after the
/// entry's arena (which grows), each at a multiple of `alignment`: room for
/// B examples of a mapped argument, one of an unmapped one. An artifact
/// with CUDA code needs every slot.
void giveEveryArgumentASlot(vmapc::EntryInfo &e, uint64_t alignment = 256);
/// The same for every entry of `a`.
void giveEveryArgumentASlot(vmapc::Artifact &a, uint64_t alignment = 256);

/// The file offset of the bytes of dynamic symbol `name` in the ELF64
/// shared object `elf`, or 0 if it has none: its .dynsym value, mapped
/// through the section that holds it.
uint64_t elfSymbolOffset(const std::string &elf, const std::string &name);

/// Writes each entry's schedule digest (vmapc::scheduleDigest) into the
/// entry descriptors of `a`'s CPU code objects, as the compiler does when
/// it compiles the code for the manifest (a stand-in object built without
/// the compiler holds 0 there). A test that edits a manifest and expects
/// the runtime to take it calls this again; one that expects a refusal
/// does not.
void sealEntryDescriptors(vmapc::Artifact &a);

/// The index of entry `name` in `a` (a.entries.size() if none).
size_t entryIndex(const vmapc::Artifact &a, const std::string &name);

} // namespace vmapc_test

#endif // VMAPC_TEST_ARTIFACTBUILDER_H
