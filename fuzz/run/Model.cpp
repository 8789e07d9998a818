//===- Model.cpp - artifact_run_fuzzer: the run a call must make ----------===//

#include "Model.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace vmapc_run_fuzzer {

/// Appends the dispatches of commands [begin, end) of the schedule for
/// chunk `c` (`depth` loops around them, their indices in `loops`). False
/// once past the harness's bounds.
static bool expand(Call &call, size_t begin, size_t end, uint32_t depth,
                   uint64_t *loops, uint64_t c) {
  const std::vector<Command> &s = call.info->schedule;
  for (size_t i = begin; i < end; ++i) {
    const Command &cmd = s[i];
    if (cmd.kind == Command::Kind::Loop) {
      size_t bodyEnd = i + 1 + cmd.bodySize;
      for (uint64_t t = 0; t < cmd.tripCount; ++t) {
        loops[depth] = t;
        if (!expand(call, i + 1, bodyEnd, depth + 1, loops, c))
          return false;
      }
      i = bodyEnd - 1;
      continue;
    }
    if (cmd.oncePerCall && c > 0)
      continue;
    const KernelInfo &k = call.artifact->kernels[cmd.kernel];
    Execution ex;
    ex.command = &cmd;
    ex.chunk = c;
    std::copy(loops, loops + kMaxLoopDepth, ex.loops);
    uint64_t total = 1;
    for (int d = 0; d < 3; ++d) {
      ex.grid[d] = workgroupsFor(k.workgroupCount[d], call.chunkN[c]);
      if (ex.grid[d] > kMaxWorkgroupsPerRun)
        return false;
      total *= ex.grid[d];
    }
    ex.first = call.workgroups;
    ex.writes = false;
    for (size_t j = 0; j < cmd.bindings.size(); ++j)
      ex.writes |= writesOutput(k, cmd, j);
    call.workgroups += total;
    call.executions.push_back(ex);
    if (call.workgroups > kMaxWorkgroupsPerRun ||
        call.executions.size() > kMaxDispatchesPerRun)
      return false;
  }
  return true;
}

/// Whether the runtime copies some unmapped input into its staging slot
/// before every chunk: a slot (with bytes) that shares a byte with an
/// output's slot or an arena binding of the schedule, which a chunk may
/// write.
static bool restagesAnInput(const Call &call) {
  const EntryInfo &info = *call.info;
  std::vector<std::pair<uint64_t, uint64_t>> written; // [begin, end)
  for (const Layout &l : call.out)
    if (l.staging != kNoStaging && l.exampleBytes)
      written.push_back(
          {l.staging,
           l.staging + l.exampleBytes * (l.mapped ? info.batchSize : 1)});
  for (const Command &c : info.schedule)
    if (c.kind == Command::Kind::Dispatch)
      for (size_t j = 0; j < c.bindings.size(); ++j) {
        uint64_t bytes = call.artifact->kernels[c.kernel].bindingBytes[j];
        if (c.bindings[j].kind == Binding::Kind::Arena && bytes)
          written.push_back(
              {c.bindings[j].offset, c.bindings[j].offset + bytes});
      }
  for (const Layout &l : call.in) {
    if (l.mapped || !l.exampleBytes || l.staging == kNoStaging)
      continue;
    for (auto [begin, end] : written)
      if (begin < l.staging + l.exampleBytes && l.staging < end)
        return true;
  }
  return false;
}

/// How many of the `full` chunks (of B examples each, the first ones) the
/// runtime runs as one dispatch, without a barrier between chunks: all of
/// them, where there are at least two and they are independent; else 0.
/// They are where the schedule is dispatches only, those that run once per
/// call first and then one that runs per chunk, which writes only mapped
/// outputs; no input is donated or copied in again each chunk; and every
/// mapped argument with bytes is bound in place (its batch axis
/// outermost). The same rule as Runtime.cpp's batchableCommand, written
/// again from docs/runtime.md.
static uint64_t batchedChunks(const Call &call, uint64_t full) {
  const EntryInfo &info = *call.info;
  if (full < 2)
    return 0;
  const Command *perChunk = nullptr;
  for (const Command &c : info.schedule) {
    if (c.kind != Command::Kind::Dispatch || perChunk)
      return 0;
    if (!c.oncePerCall)
      perChunk = &c;
  }
  if (!perChunk)
    return 0;
  const KernelInfo &k = call.artifact->kernels[perChunk->kernel];
  for (size_t j = 0; j < perChunk->bindings.size(); ++j) {
    const Binding &b = perChunk->bindings[j];
    if (writesBinding(k, j) &&
        !(b.kind == Binding::Kind::Output && call.out[b.index].mapped))
      return 0;
  }
  for (const ArgInfo &out : info.outputs)
    if (out.isDonated())
      return 0;
  if (restagesAnInput(call))
    return 0;
  for (const auto *list : {&call.in, &call.out})
    for (const Layout &l : *list)
      if (l.mapped && l.exampleBytes && l.outer != 1)
        return 0;
  return full;
}

bool planRun(Call &call) {
  const EntryInfo &info = *call.info;
  const uint64_t b = info.batchSize, n = call.n;
  bool unmappedOutput = false, mappedBytes = false;
  for (const Layout &l : call.out)
    unmappedOutput |= !l.mapped;
  for (const auto *list : {&call.in, &call.out})
    for (const Layout &l : *list)
      mappedBytes |= l.mapped && l.exampleBytes;
  const ChunkPlan plan =
      planChunks(n, b, info.padsPartialChunks, unmappedOutput, mappedBytes);
  const uint64_t chunks = plan.chunks;
  if (chunks > kMaxChunks)
    return false;
  uint64_t loops[kMaxLoopDepth] = {};
  for (uint64_t c = 0; c < chunks; ++c) {
    call.count.push_back(plan.count(c));
    call.chunkN.push_back(plan.scheduleN(c));
    if (!expand(call, 0, info.schedule.size(), 0, loops, c))
      return false;
    // The per-chunk dispatch comes last in a schedule whose chunks batch.
    if (c == 0 && !call.executions.empty())
      call.batchedFrom = call.executions.size() - 1;
  }
  call.batchedChunks = batchedChunks(call, std::min(chunks, n / b));
  call.seen.reset(new std::atomic<bool>[call.workgroups]());
  call.chunkWritten.reset(new std::atomic<bool>[chunks]());
  call.written.assign(chunks, std::vector<uint64_t>(call.out.size(), 0));
  return true;
}

Expected expectedAddress(const Call &call, const Binding &b, uint64_t c) {
  const uint64_t bsize = call.info->batchSize;
  const uint64_t count = call.count[c];
  auto argAddress = [&](const Layout &l, const unsigned char *user) {
    if (!l.mapped)
      return Expected{false, uintptr_t(user), 0};
    // In place: a full chunk of an outermost-mapped argument with bytes.
    if (l.exampleBytes && count == bsize && l.outer == 1)
      return Expected{false, uintptr_t(user + c * bsize * l.innerBytes), 0};
    return Expected{true, 0, l.staging};
  };
  switch (b.kind) {
  case Binding::Kind::Input:
    return argAddress(call.in[b.index], call.inData[b.index]);
  case Binding::Kind::Output:
    return argAddress(call.out[b.index], call.outData[b.index]);
  case Binding::Kind::Arena:
    break;
  }
  return Expected{true, 0, b.offset};
}

} // namespace vmapc_run_fuzzer
