//===- Checker.cpp - artifact_run_fuzzer: what a run must have done -------===//

#include "Checker.h"

#include "Model.h"

#include <algorithm>
#include <cstring>

using namespace vmapc_run_fuzzer;

namespace {

/// Checks the input that binding `b` (to input `i`) shows in chunk `c`.
void checkInput(const Call &call, size_t i, const unsigned char *got,
                uint64_t c) {
  const Layout &l = call.in[i];
  const EntryInfo &info = *call.info;
  const unsigned char *user = call.inData[i];
  const uint64_t b = info.batchSize, n = call.n, count = call.count[c];
  if (l.exampleBytes == 0 || count == 0)
    return;
  if (!l.mapped) {
    if (std::memcmp(got, user, l.exampleBytes) != 0)
      fail("unmapped input '" + info.inputs[i].name +
           "' differs from the caller's");
    return;
  }
  const uint64_t lanes = info.padsPartialChunks ? b : count;
  for (uint64_t o = 0; o < l.outer; ++o)
    for (uint64_t k = 0; k < lanes; ++k) {
      // Padding lanes repeat the chunk's last example.
      uint64_t e = c * b + std::min(k, count - 1);
      if (std::memcmp(got + (o * b + k) * l.innerBytes,
                      user + (o * n + e) * l.innerBytes, l.innerBytes) != 0)
        fail("input '" + info.inputs[i].name + "' lane " + std::to_string(k) +
             " of chunk " + std::to_string(c) + " is not example " +
             std::to_string(e));
    }
}

/// The chunk of a workgroup (`linear` in its grid) of the batched full
/// chunks, whose bindings are `bindings`, marked as run: the chunk whose
/// rows a mapped argument's binding points at; where no binding is to one
/// (every chunk's bindings are then the same), the first chunk in which
/// that workgroup has not run.
uint64_t batchedChunkOf(Call &call, void *const *bindings, uint64_t linear) {
  const Command &cmd = *call.executions[call.batchedFrom].command;
  const uint64_t chunks = call.batchedChunks, b = call.info->batchSize;
  auto ran = [&](uint64_t c) {
    return call.seen[call.executions[call.batchedFrom + c].first + linear]
        .exchange(true);
  };
  for (size_t j = 0; j < cmd.bindings.size(); ++j) {
    const Binding &bd = cmd.bindings[j];
    if (bd.kind == Binding::Kind::Arena)
      continue;
    const bool input = bd.kind == Binding::Kind::Input;
    const Layout &l = input ? call.in[bd.index] : call.out[bd.index];
    if (!l.mapped || !l.exampleBytes)
      continue;
    const uintptr_t base = input ? uintptr_t(call.inData[bd.index])
                                 : uintptr_t(call.outData[bd.index]);
    const uintptr_t got = uintptr_t(bindings[j]), rows = b * l.innerBytes;
    if (got < base || (got - base) % rows || (got - base) / rows >= chunks)
      fail("a batched dispatch of kernel '" +
           call.artifact->kernels[cmd.kernel].name + "': binding " +
           std::to_string(j) + " points at no full chunk's rows");
    const uint64_t c = (got - base) / rows;
    if (ran(c))
      fail("dispatch of kernel '" + call.artifact->kernels[cmd.kernel].name +
           "' in chunk " + std::to_string(c) + ": a workgroup ran twice");
    return c;
  }
  for (uint64_t c = 0; c < chunks; ++c)
    if (!ran(c))
      return c;
  fail("dispatch of kernel '" + call.artifact->kernels[cmd.kernel].name +
       "': a workgroup ran more often than there are chunks");
}

volatile unsigned char sink;

} // namespace

extern "C" __attribute__((visibility("default"))) void
vmapc_fuzz_on_workgroup(int kernel, void *const *bindings,
                        const int64_t *scalars, int64_t x, int64_t y,
                        int64_t z) {
  Call *call = current;
  if (!call)
    fail("the code was called outside Executable::run");
  const uint64_t a = call->arrivals.fetch_add(1);
  if (a >= call->workgroups)
    fail("more workgroups ran than the schedule has (" +
         std::to_string(call->workgroups) + ")");
  // The dispatch this arrival belongs to: dispatches run one after another,
  // but the workgroups of the batched full chunks (Model.h) arrive in any
  // order among themselves.
  size_t e =
      size_t(std::upper_bound(
                 call->executions.begin(), call->executions.end(), a,
                 [](uint64_t v, const Execution &ex) { return v < ex.first; }) -
             call->executions.begin()) -
      1;
  const bool batched = call->batchedChunks && e >= call->batchedFrom &&
                       e < call->batchedFrom + call->batchedChunks;
  // The batched chunks share a kernel and a grid: chunk 0's tells which.
  const Execution &first = call->executions[batched ? call->batchedFrom : e];
  const KernelInfo &k = call->artifact->kernels[first.command->kernel];
  if (k.name != "k" + std::to_string(kernel))
    fail("dispatch of kernel '" + k.name + "' in chunk " +
         std::to_string(first.chunk) + ": a workgroup of stand-in kernel k" +
         std::to_string(kernel) + " ran");
  if (x < 0 || y < 0 || z < 0 || uint64_t(x) >= first.grid[0] ||
      uint64_t(y) >= first.grid[1] || uint64_t(z) >= first.grid[2])
    fail("dispatch of kernel '" + k.name + "' in chunk " +
         std::to_string(first.chunk) + ": workgroup (" + std::to_string(x) +
         ", " + std::to_string(y) + ", " + std::to_string(z) +
         ") is outside the grid");
  const uint64_t linear =
      (uint64_t(z) * first.grid[1] + uint64_t(y)) * first.grid[0] + uint64_t(x);
  if (batched)
    e = call->batchedFrom + batchedChunkOf(*call, bindings, linear);
  else if (call->seen[first.first + linear].exchange(true))
    fail("dispatch of kernel '" + k.name + "' in chunk " +
         std::to_string(first.chunk) + ": a workgroup ran twice");
  const Execution &ex = call->executions[e];
  const Command &cmd = *ex.command;
  const std::string where = "dispatch of kernel '" + k.name + "' in chunk " +
                            std::to_string(ex.chunk) + ": ";

  for (size_t j = 0; j < cmd.scalars.size(); ++j) {
    const ScalarSource &src = cmd.scalars[j];
    int64_t want = src.kind == ScalarSource::Kind::NumExamples
                       ? int64_t(call->chunkN[ex.chunk])
                       : int64_t(ex.loops[src.loop]);
    if (scalars[j] != want)
      fail(where + "scalar " + std::to_string(j) + " is " +
           std::to_string(scalars[j]) + ", expected " + std::to_string(want));
  }

  // Where each binding points; the arena's base is learned once.
  for (size_t j = 0; j < cmd.bindings.size(); ++j) {
    Expected want = expectedAddress(*call, cmd.bindings[j], ex.chunk);
    uintptr_t got = uintptr_t(bindings[j]);
    if (want.inArena) {
      uintptr_t base = got - want.offset, none = 0;
      if (!call->arena.compare_exchange_strong(none, base) && none != base)
        fail(where + "binding " + std::to_string(j) +
             " is not at its arena offset " + std::to_string(want.offset));
      if (base % kArenaAlignment)
        fail("the arena is not 256-byte aligned");
      continue;
    }
    if (got != want.address)
      fail(where + "binding " + std::to_string(j) +
           " does not point at its argument's chunk");
  }

  if (ex.writes) {
    // One workgroup reads all the bindings' bytes and writes the outputs'.
    if (linear != 0)
      return;
    unsigned char sum = 0;
    for (size_t j = 0; j < cmd.bindings.size(); ++j) {
      const auto *p = static_cast<const unsigned char *>(bindings[j]);
      uint64_t bytes = k.bindingBytes[j];
      // Every byte of a small binding; the ends of a large one.
      uint64_t full = std::min(bytes, kMaxUserBytes);
      for (uint64_t i = 0; i < full; ++i)
        sum += p[i];
      if (bytes > full)
        sum += p[bytes - 1];
    }
    sink = sum;
    call->chunkWritten[ex.chunk] = true;
    for (size_t j = 0; j < cmd.bindings.size(); ++j) {
      const Binding &b = cmd.bindings[j];
      if (!writesOutput(k, cmd, j))
        continue;
      auto *p = static_cast<unsigned char *>(bindings[j]);
      for (uint64_t i = 0; i < k.bindingBytes[j]; ++i)
        p[i] = pattern(ex.chunk, b.index, i);
      uint64_t &w = call->written[ex.chunk][b.index];
      w = std::max(w, k.bindingBytes[j]);
    }
    return;
  }
  // Reads only: the ends of every binding, and the inputs' contents until
  // an output was written in this chunk.
  for (size_t j = 0; j < cmd.bindings.size(); ++j) {
    const auto *p = static_cast<const unsigned char *>(bindings[j]);
    if (k.bindingBytes[j])
      sink = p[0] + p[k.bindingBytes[j] - 1];
  }
  if (call->chunkWritten[ex.chunk])
    return;
  for (size_t j = 0; j < cmd.bindings.size(); ++j)
    if (cmd.bindings[j].kind == Binding::Kind::Input)
      checkInput(*call, cmd.bindings[j].index,
                 static_cast<const unsigned char *>(bindings[j]), ex.chunk);
}

namespace vmapc_run_fuzzer {

void checkAfterRun(const Call &call, const Executable &exe, const Stats &before,
                   const Status &s, Breakage broken,
                   const std::vector<UserArg> &ins,
                   const std::vector<UserArg> &outs) {
  const EntryInfo &info = *call.info;
  const Artifact &artifact = *call.artifact;
  // An empty array's other dims times N can pass the 2^62-byte limit,
  // which the manifest's check (times B) does not bound: kOutOfRange.
  bool overLimit = false;
  for (auto *l : {&ins, &outs})
    for (const UserArg &a : *l)
      overLimit |= !arrayBytes(a.dtype, a.shape.data(), a.shape.size());
  if (broken != Breakage::None || overLimit) {
    if (s.ok())
      fail("entry '" + info.name + "': a call broken in way " +
           std::to_string(int(broken)) + " succeeded");
    if (call.arrivals.load() != 0 || exe.stats().launches != before.launches)
      fail("a rejected call ran the code");
    for (const UserArg &a : outs)
      for (unsigned char c : a.bytes)
        if (c != 0xEE)
          fail("a rejected call wrote an output");
    ++counts.rejected;
    return;
  }
  if (!s.ok())
    fail("entry '" + info.name +
         "': a well-formed call failed: " + s.message());

  ++counts.runs;
  counts.workgroups += call.workgroups;
  counts.batchedRuns += call.batchedChunks > 0;
  if (call.arrivals.load() != call.workgroups)
    fail("expected " + std::to_string(call.workgroups) +
         " workgroups, the kernels saw " +
         std::to_string(call.arrivals.load()));
  if (exe.stats().batchedChunks - before.batchedChunks != call.batchedChunks)
    fail("expected " + std::to_string(call.batchedChunks) +
         " full chunks to run as one dispatch, stats say " +
         std::to_string(exe.stats().batchedChunks - before.batchedChunks));
  if (exe.stats().launches - before.launches != call.executions.size())
    fail("expected " + std::to_string(call.executions.size()) +
         " dispatches, stats say " +
         std::to_string(exe.stats().launches - before.launches));
  // Unmapped outputs: the caller's arrays, which the kernels wrote in
  // place, dispatch after dispatch.
  std::vector<std::vector<unsigned char>> unmapped(outs.size());
  for (size_t i = 0; i < outs.size(); ++i)
    if (!call.out[i].mapped)
      unmapped[i].assign(outs[i].bytes.size(), 0xEE);
  for (const Execution &ex : call.executions) {
    const KernelInfo &k = artifact.kernels[ex.command->kernel];
    if (!ex.writes || ex.grid[0] * ex.grid[1] * ex.grid[2] == 0)
      continue;
    for (size_t j = 0; j < ex.command->bindings.size(); ++j) {
      const Binding &bd = ex.command->bindings[j];
      if (writesOutput(k, *ex.command, j) && !call.out[bd.index].mapped)
        for (uint64_t p = 0; p < k.bindingBytes[j]; ++p)
          unmapped[bd.index][p] = pattern(ex.chunk, bd.index, p);
    }
  }
  for (size_t i = 0; i < outs.size(); ++i)
    if (!call.out[i].mapped && unmapped[i] != outs[i].bytes)
      fail("unmapped output '" + info.outputs[i].name +
           "' is not what the kernels wrote last");
  const uint64_t b = info.batchSize;
  for (size_t i = 0; i < outs.size(); ++i) {
    const Layout &l = call.out[i];
    if (!l.mapped || l.exampleBytes == 0)
      continue;
    const unsigned char *got = outs[i].bytes.data();
    for (uint64_t o = 0; o < l.outer; ++o)
      for (uint64_t e = 0; e < call.n; ++e)
        for (uint64_t j = 0; j < l.innerBytes; ++j) {
          uint64_t c = e / b;
          uint64_t p = (o * b + e % b) * l.innerBytes + j;
          if (p < call.written[c][i] &&
              got[(o * call.n + e) * l.innerBytes + j] != pattern(c, i, p))
            fail("output '" + info.outputs[i].name + "' example " +
                 std::to_string(e) + " byte " + std::to_string(j) +
                 " is not what the kernels wrote");
        }
  }
}

} // namespace vmapc_run_fuzzer
