//===- Driver.cpp - artifact_run_fuzzer: one call of an entry -------------===//

#include "Driver.h"

#include "Checker.h"
#include "Model.h"

#include <algorithm>

namespace vmapc_run_fuzzer {

void runEntry(const Artifact &artifact, Executable &exe, const Entry &entry,
              FuzzedDataProvider &fdp) {
  const EntryInfo &info = entry.info();
  Call call;
  call.artifact = &artifact;
  call.info = &info;
  for (const ArgInfo &a : info.inputs)
    call.in.push_back(layoutOf(a));
  for (const ArgInfo &a : info.outputs)
    call.out.push_back(layoutOf(a));
  size_t numMapped = 0;
  uint64_t maxN = 3 * uint64_t(info.batchSize) + 1;
  for (const auto *list : {&call.in, &call.out})
    for (const Layout &l : *list) {
      if (!l.mapped && l.exampleBytes > kMaxUserBytes)
        return;
      numMapped += l.mapped;
      if (l.mapped && l.exampleBytes)
        maxN = std::min(maxN, kMaxUserBytes / l.exampleBytes);
    }
  // With no mapped argument, N is 0 (Runtime.h).
  if (numMapped)
    call.n = fdp.ConsumeIntegralInRange<uint64_t>(0, maxN);

  std::vector<UserArg> ins(info.inputs.size()), outs(info.outputs.size());
  for (size_t i = 0; i < ins.size(); ++i) {
    ins[i].shape = batchedShape(info.inputs[i], int64_t(call.n));
    ins[i].dtype = info.inputs[i].dtype;
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    outs[i].shape = batchedShape(info.outputs[i], int64_t(call.n));
    outs[i].dtype = info.outputs[i].dtype;
  }

  // Maybe break the call in one way that the runtime must reject.
  Breakage broken = Breakage::None;
  if (!fdp.ConsumeIntegralInRange(0, 3))
    broken = Breakage(fdp.ConsumeIntegralInRange(1, 9));
  std::vector<UserArg> *list = fdp.ConsumeBool() ? &ins : &outs;
  if (list->empty())
    list = list == &ins ? &outs : &ins;
  const std::vector<ArgInfo> &infos = list == &ins ? info.inputs : info.outputs;
  size_t victim = list->empty()
                      ? 0
                      : fdp.ConsumeIntegralInRange<size_t>(0, list->size() - 1);
  switch (broken) {
  case Breakage::None:
    break;
  case Breakage::InputCount:
    if (!ins.empty() && fdp.ConsumeBool())
      ins.pop_back();
    else
      ins.push_back(UserArg{{}, DType::F32, {}, false});
    break;
  case Breakage::OutputCount:
    if (!outs.empty() && fdp.ConsumeBool())
      outs.pop_back();
    else
      outs.push_back(UserArg{{}, DType::F32, {}, false});
    break;
  case Breakage::DType:
    if (list->empty())
      return;
    (*list)[victim].dtype = DType((int((*list)[victim].dtype) % 3) + 1);
    break;
  case Breakage::RankUp:
    if (list->empty())
      return;
    (*list)[victim].shape.push_back(1);
    break;
  case Breakage::RankDown:
    if (list->empty() || (*list)[victim].shape.empty())
      return;
    (*list)[victim].shape.pop_back();
    break;
  case Breakage::Dim: {
    if (list->empty())
      return;
    const ArgInfo &a = infos[victim];
    if (a.shape.empty())
      return;
    size_t d = fdp.ConsumeIntegralInRange<size_t>(0, a.shape.size() - 1);
    size_t pos = d + (a.isMapped() && d >= size_t(a.mappedAxis) ? 1 : 0);
    (*list)[victim].shape[pos] += 1;
    break;
  }
  case Breakage::BatchDim: {
    // Another N is an error only where another mapped argument fixes N.
    if (list->empty() || !infos[victim].isMapped() || numMapped < 2)
      return;
    (*list)[victim].shape[size_t(infos[victim].mappedAxis)] += 1;
    break;
  }
  case Breakage::NullData:
    if (list->empty())
      return;
    (*list)[victim].null = true;
    break;
  case Breakage::TooManyDims:
    if (list->empty())
      return;
    (*list)[victim].shape.assign(kMaxRank + 1, 1);
    break;
  }
  for (auto *l : {&ins, &outs})
    for (UserArg &a : *l)
      if (byteSize(a) > 2 * kMaxUserBytes)
        return;
  if (broken == Breakage::NullData) {
    UserArg &a = (*list)[victim];
    if (byteSize(a) == 0)
      return;
  }
  // A well-formed call: what it must run.
  if (broken == Breakage::None && !planRun(call))
    return;

  for (UserArg &a : ins) {
    a.bytes.resize(byteSize(a));
    std::string fill = fdp.ConsumeBytesAsString(a.bytes.size());
    for (size_t i = 0; i < a.bytes.size(); ++i)
      a.bytes[i] = i < fill.size() ? (unsigned char)fill[i]
                                   : (unsigned char)(i * 13 + 5);
  }
  for (UserArg &a : outs)
    a.bytes.assign(byteSize(a), 0xEE);

  std::vector<HostArray> inArrays;
  std::vector<MutableHostArray> outArrays;
  for (UserArg &a : ins)
    inArrays.push_back(
        {a.null ? nullptr : a.bytes.data(), a.dtype, Shape(a.shape)});
  for (UserArg &a : outs)
    outArrays.push_back(
        {a.null ? nullptr : a.bytes.data(), a.dtype, Shape(a.shape)});
  if (broken == Breakage::None) {
    for (UserArg &a : ins)
      call.inData.push_back(a.bytes.data());
    for (UserArg &a : outs)
      call.outData.push_back(a.bytes.data());
  }

  if (verbose()) {
    printEntry(artifact, info);
    std::fprintf(stderr, "run: N = %llu, broken %d, %zu dispatches\n",
                 (unsigned long long)call.n, int(broken),
                 call.executions.size());
  }
  Stats before = exe.stats();
  current = &call;
  Status s = exe.run(entry, inArrays, outArrays);
  current = nullptr;
  checkAfterRun(call, exe, before, s, broken, ins, outs);
}

} // namespace vmapc_run_fuzzer
