//===- artifact_run_fuzzer.cpp - libFuzzer: load and run artifacts --------===//
//
// Decodes the input (FuzzedDataProvider) into an artifact's manifest: 1-3
// entries with batch sizes, arenas, inputs and outputs (names, dtypes,
// shapes, mapped axes, staging offsets laid out without overlap or raw), and
// per entry a schedule of dispatches and loops over kernels with bindings
// (inputs, outputs, arena offsets), scalars (n, loop indices), grids
// (constants and tiles of n) and scratch; 1-3 code objects of ISA levels
// the host may or may not run. The code is always the known-good stand-in
// object of StandInKernels.cpp with each kernel's and each entry's
// descriptor written to match the manifest (one word in 16 deliberately
// wrong). The artifact is serialized (which validates it) and loaded with
// Executable::loadBytes on a CPU device of 2 threads; then each entry runs
// on N examples, with arrays whose shapes follow the manifest (N and the
// data from the input; at most kMaxUserBytes per array). From inside each
// workgroup, and after the run, the harness checks what ArtifactFormat.h,
// Schedule.h and Runtime.h promise:
//
//   * the runtime runs, chunk after chunk, the schedule's dispatches in
//     order, loops unrolled, each over the grid its kernel gives for n (n =
//     the chunk's examples, or B for an entry that pads), each workgroup
//     exactly once and of the right kernel; the scalars are n and the
//     enclosing loops' indices; where the full chunks are independent
//     (Model.h), it runs them as one dispatch, their workgroups in any
//     order, and the stats count them;
//   * a binding points where it should: an unmapped argument at the
//     caller's array, a mapped one in place (a full chunk of an argument
//     whose batch axis is outermost) or at its staging slot, an arena
//     binding at its offset of one 256-byte aligned arena;
//   * each input holds the chunk's examples gathered from the caller's
//     array (padding lanes of an entry that pads repeat the chunk's last
//     example);
//   * each mapped output the caller gets is what the kernels wrote in its
//     chunk's lanes, scattered back; the count of dispatches in the stats;
//   * a call with a wrong argument count, dtype, rank, dimension or a null
//     data pointer fails, runs no workgroup and leaves the outputs untouched.
//
// The workgroup (0, 0, 0) of a dispatch that writes an output (a binding
// its kernel's access says it writes) reads every byte of every binding and
// writes a pattern into every byte of those bindings; every workgroup of
// any other dispatch reads its bindings' first and last bytes and checks
// its inputs. ASan reports any byte touched outside the caller's arrays and
// the arena.
//
// The parts, in fuzz/run/: Generator (the manifest from the input, built
// with runtime/test/ArtifactBuilder.h), Model (the run a call must make),
// Driver (one call of an entry, maybe broken), Checker (the checks inside
// each workgroup and after the run), Call.h (what they share). This file
// is libFuzzer's entry points alone.
//
//===----------------------------------------------------------------------===//

#include "run/Call.h"
#include "run/Driver.h"
#include "run/Generator.h"

#include "vmapc/ArtifactWriter.h"
#include "vmapc/Runtime.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

using namespace vmapc;
using namespace vmapc_run_fuzzer;

namespace {

/// The stand-in code object's bytes (read once), and the device (opened
/// once: its threads live as long as the process).
std::string standInCode;
Device cpu;

} // namespace

//===----------------------------------------------------------------------===//
// libFuzzer entry points
//===----------------------------------------------------------------------===//

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  const char *path = std::getenv("VMAPC_FUZZ_KERNELS");
  if (!path)
    path = VMAPC_FUZZ_KERNELS;
  FILE *f = std::fopen(path, "rb");
  if (!f) {
    std::fprintf(stderr,
                 "artifact_run_fuzzer: cannot open the stand-in code "
                 "object '%s' (set VMAPC_FUZZ_KERNELS)\n",
                 path);
    std::exit(1);
  }
  char buf[4096];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof(buf), f)) > 0)
    standInCode.append(buf, got);
  std::fclose(f);
  // Two threads: workgroups of one dispatch run concurrently.
  Status s = Device::open("cpu:threads=2", &cpu);
  if (!s.ok()) {
    std::fprintf(stderr, "artifact_run_fuzzer: %s\n", s.message().c_str());
    std::exit(1);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ++counts.inputs;
  FuzzedDataProvider fdp(data, size);
  Artifact artifact = generateArtifact(fdp, standInCode);
  for (const EntryInfo &e : artifact.entries)
    if (e.arenaBytes > kMaxArenaBytes)
      return 0;
  std::string bytes;
  if (!serializeArtifact(artifact, &bytes).ok())
    return 0;
  ++counts.serialized;
  std::unique_ptr<Executable> exe;
  Status loaded = Executable::loadBytes(cpu, bytes.data(), bytes.size(), &exe);
  if (!loaded.ok()) {
    if (std::getenv("DEBUG_LOAD"))
      std::fprintf(stderr, "LOAD: %s\n", loaded.message().c_str());
    return 0;
  }
  ++counts.loaded;
  if (exe->numEntries() != artifact.entries.size() ||
      exe->stats().allocations != 1)
    fail("a loaded executable does not match its manifest");
  for (size_t i = 0; i < exe->numEntries(); ++i)
    runEntry(exe->artifact(), *exe, exe->entry(i), fdp);
  return 0;
}
