//===- Runtime.cpp - Executable loading and chunked execution -------------===//

#include "vmapc/Runtime.h"

#include "vmapc/ArtifactReader.h"
#include "vmapc/Backend.h"
#include "vmapc/HostBuffer.h"
#include "vmapc/ReadFile.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace vmapc {

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

Status Device::open(std::string_view name, Device *out) {
  std::shared_ptr<backend::Device> device;
  VMAPC_RETURN_IF_ERROR(backend::openDevice(name, &device));
  out->deviceName = std::string(name);
  out->impl = std::move(device);
  return Status();
}

std::string Device::describe() const {
  return impl ? impl->describe() : "unopened device";
}

//===----------------------------------------------------------------------===//
// Executable state
//===----------------------------------------------------------------------===//

namespace {
/// How to move one argument between the user's array and the code. A batched
/// array of per-example dims d[0..R) mapped at axis a is viewed as
/// [outer, N, inner] with outer = prod(d[0..a)) and inner = prod(d[a..R))
/// elements, so gathering or scattering a chunk is `outer` contiguous copies.
/// An empty argument (a 0 dim) is never copied: it has no bytes.
struct ArgPlan {
  bool mapped = false;
  bool empty = false;
  uint64_t exampleBytes = 0;
  uint64_t outer = 0;
  uint64_t innerBytes = 0;
  uint64_t staging = kNoStaging;
  /// An unmapped input staged into a slot whose bytes an output slot or an
  /// arena binding shares: copied again before every chunk, not once.
  bool stageEachChunk = false;
  /// A donated input: the output whose bytes it is (the code computes that
  /// output in this input's binding), or -1.
  int32_t donatedTo = -1;
};

struct EntryState {
  std::vector<ArgPlan> inputs;
  std::vector<ArgPlan> outputs;
  /// Where each input and output of the current chunk is bound.
  std::vector<backend::Address> inputAddress, outputAddress;
  bool hasUnmappedOutput = false;
  /// Whether some mapped argument has bytes; if none has, one launch
  /// computes everything a run can observe, whatever N is.
  bool hasMappedBytes = false;
  /// The command whose dispatches for a call's full chunks may run as one
  /// (backend::Executable::dispatchChunks), or -1 (batchableCommand).
  int batchedCommand = -1;
};

/// Plans `arg` of a validated manifest, whose batched bytes (and, for an
/// empty array, the product of its non-zero dims) are below kMaxArrayBytes;
/// each product is checked anyway.
Status planArg(const ArgInfo &arg, ArgPlan *out) {
  ArgPlan p;
  p.mapped = arg.isMapped();
  p.staging = arg.stagingOffset;
  int64_t example = exampleBytes(arg);
  if (example < 0)
    return Status::error(StatusCode::kInternal,
                         "argument '" + arg.name +
                             "' passed validation with an invalid size");
  p.exampleBytes = uint64_t(example);
  p.empty = example == 0;
  if (!p.empty) {
    size_t axis = p.mapped ? size_t(arg.mappedAxis) : 0;
    std::optional<uint64_t> outer = 1, inner = dtypeBytes(arg.dtype);
    for (size_t i = 0; i < arg.shape.size(); ++i) {
      std::optional<uint64_t> &factor = i < axis ? outer : inner;
      if (factor)
        factor = checkedMulBytes(*factor, uint64_t(arg.shape[i]));
    }
    if (!outer || !inner)
      return Status::error(StatusCode::kInternal,
                           "argument '" + arg.name +
                               "' passed validation with an invalid size");
    p.outer = *outer;
    p.innerBytes = *inner;
  }
  *out = p;
  return Status();
}
/// Sets `stageEachChunk` on the unmapped inputs of `info` whose staging
/// slots share bytes with an output's slot or an arena binding of the
/// schedule: a chunk may overwrite them, so they are copied in before
/// every chunk. A slot [b, e) meets one of those ranges if the largest end
/// among the ranges that begin before e is past b: the ranges sorted by
/// their beginnings, with the running maximum of their ends, answer that
/// with one binary search per slot.
void markSlotsReusedInAChunk(const EntryInfo &info,
                             const std::vector<KernelInfo> &kernels,
                             EntryState *st) {
  bool any = false;
  for (const ArgPlan &p : st->inputs)
    any |= !p.mapped && !p.empty && p.staging != kNoStaging;
  if (!any)
    return;
  std::vector<std::pair<uint64_t, uint64_t>> ranges; // (begin, end)
  for (const ArgPlan &p : st->outputs)
    if (p.staging != kNoStaging && !p.empty)
      ranges.push_back(
          {p.staging,
           p.staging + p.exampleBytes * (p.mapped ? info.batchSize : 1)});
  for (const Command &c : info.schedule)
    if (c.kind == Command::Kind::Dispatch)
      for (size_t j = 0; j < c.bindings.size(); ++j)
        if (c.bindings[j].kind == Binding::Kind::Arena &&
            kernels[c.kernel].bindingBytes[j] > 0)
          ranges.push_back(
              {c.bindings[j].offset,
               c.bindings[j].offset + kernels[c.kernel].bindingBytes[j]});
  std::sort(ranges.begin(), ranges.end());
  std::vector<uint64_t> maxEnd(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i)
    maxEnd[i] = std::max(ranges[i].second, i ? maxEnd[i - 1] : 0);
  for (ArgPlan &p : st->inputs) {
    if (p.mapped || p.empty || p.staging == kNoStaging)
      continue;
    uint64_t end = p.staging + p.exampleBytes;
    size_t before =
        size_t(std::lower_bound(ranges.begin(), ranges.end(),
                                std::pair<uint64_t, uint64_t>{end, 0}) -
               ranges.begin());
    p.stageEachChunk = before > 0 && maxEnd[before - 1] > p.staging;
  }
}

/// The command of `info`'s schedule whose dispatches for consecutive full
/// chunks are independent, so that they may run as one (without a barrier
/// between chunks), or -1. It holds where the schedule is dispatches only
/// (no loop), every command but one runs once per call and comes first,
/// and the one left writes only mapped outputs and binds no donated input:
/// a chunk then writes only its own rows of the caller's outputs, which
/// overlap no input or other output (Runtime.h), and reads its own rows of
/// the inputs and arena bytes that only the once-per-call dispatches and
/// the staging before the first chunk write (no input is staged again each
/// chunk).
int batchableCommand(const EntryInfo &info,
                     const std::vector<KernelInfo> &kernels,
                     const EntryState &st) {
  int perChunk = -1;
  for (size_t i = 0; i < info.schedule.size(); ++i) {
    const Command &c = info.schedule[i];
    if (c.kind != Command::Kind::Dispatch)
      return -1;
    if (c.oncePerCall) {
      if (perChunk >= 0)
        return -1;
      continue;
    }
    if (perChunk >= 0)
      return -1;
    perChunk = int(i);
  }
  if (perChunk < 0)
    return -1;
  const Command &c = info.schedule[size_t(perChunk)];
  const KernelInfo &k = kernels[c.kernel];
  for (size_t j = 0; j < c.bindings.size(); ++j) {
    const Binding &b = c.bindings[j];
    // A binding the manifest says nothing of may be written.
    bool written = j >= k.bindingAccess.size() || writes(k.bindingAccess[j]);
    if (written &&
        !(b.kind == Binding::Kind::Output && st.outputs[b.index].mapped))
      return -1;
    if (b.kind == Binding::Kind::Input && st.inputs[b.index].donatedTo >= 0)
      return -1;
  }
  for (const ArgPlan &p : st.inputs)
    if (p.stageEachChunk || p.donatedTo >= 0)
      return -1;
  return perChunk;
}

} // namespace

struct Executable::Impl {
  Device device;
  Artifact artifact;
  std::unique_ptr<backend::Executable> backend;
  std::unique_ptr<Entry[]> entries;
  std::vector<EntryState> states;
  /// One dispatch's bindings and scalars, and the indices of the loops
  /// around it: room for the largest, made at load.
  std::vector<backend::Address> bindings;
  std::vector<int64_t> scalars;
  std::vector<int64_t> loopIndices;
  /// The bytes between consecutive chunks' bindings, for dispatchChunks.
  std::vector<uint64_t> chunkStrides;
  Stats stats;
  /// Set while a call runs: the state above is one call's, so a second
  /// call on another thread meanwhile is refused (kUnavailable) rather than
  /// let in to share it.
  std::atomic<bool> running{false};

  /// Fills `bindings` and `scalars` for dispatch command `c` of a chunk
  /// of `n` examples, at the chunk's addresses in `st`.
  void bindCommand(const Command &c, const EntryState &st, uint64_t n);
  /// Runs commands [begin, end) of `schedule` for a chunk of `n` examples
  /// (`depth` loops around them), skipping the dispatches run once per call
  /// unless `firstChunk`. Every binding and count was validated at load.
  Status runCommands(const std::vector<Command> &schedule, size_t begin,
                     size_t end, size_t depth, const EntryState &st, uint64_t n,
                     bool firstChunk);
  /// Executable::run once the executable is this call's.
  Status runOne(const Entry &entry, Span<HostArray> inputs,
                Span<MutableHostArray> outputs, const RunOptions &options);
  /// Runs `info` on `total` examples of the checked arrays, chunk by chunk,
  /// between the backend's beginRun and endRun.
  Status runChunks(const EntryInfo &info, EntryState &st,
                   Span<HostArray> inputs, Span<MutableHostArray> outputs,
                   uint64_t total, bool deviceArrays);
};

void Executable::Impl::bindCommand(const Command &c, const EntryState &st,
                                   uint64_t n) {
  backend::Address arena = backend->arena();
  for (size_t j = 0; j < c.bindings.size(); ++j) {
    const Binding &b = c.bindings[j];
    switch (b.kind) {
    case Binding::Kind::Input:
      bindings[j] = st.inputAddress[b.index];
      break;
    case Binding::Kind::Output:
      bindings[j] = st.outputAddress[b.index];
      break;
    case Binding::Kind::Arena:
      bindings[j] = arena + b.offset;
      break;
    }
  }
  for (size_t j = 0; j < c.scalars.size(); ++j)
    scalars[j] = c.scalars[j].kind == ScalarSource::Kind::NumExamples
                     ? int64_t(n)
                     : loopIndices[c.scalars[j].loop];
}

Status Executable::Impl::runCommands(const std::vector<Command> &schedule,
                                     size_t begin, size_t end, size_t depth,
                                     const EntryState &st, uint64_t n,
                                     bool firstChunk) {
  for (size_t i = begin; i < end; ++i) {
    const Command &c = schedule[i];
    if (c.kind == Command::Kind::Loop) {
      size_t bodyEnd = i + 1 + c.bodySize;
      for (uint64_t t = 0; t < c.tripCount; ++t) {
        loopIndices[depth] = int64_t(t);
        VMAPC_RETURN_IF_ERROR(runCommands(schedule, i + 1, bodyEnd, depth + 1,
                                          st, n, firstChunk));
      }
      i = bodyEnd - 1;
      continue;
    }
    // Its bytes are in the arena since the first chunk.
    if (c.oncePerCall && !firstChunk)
      continue;
    const KernelInfo &k = artifact.kernels[c.kernel];
    bindCommand(c, st, n);
    uint64_t grid[3];
    for (int d = 0; d < 3; ++d)
      grid[d] = workgroupsFor(k.workgroupCount[d], n);
    VMAPC_RETURN_IF_ERROR(
        backend->dispatch(c.kernel, grid, bindings.data(), scalars.data()));
    ++stats.launches;
  }
  return Status();
}

Executable::Executable(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Executable::~Executable() = default;

const Device &Executable::device() const { return impl->device; }
const Artifact &Executable::artifact() const { return impl->artifact; }
size_t Executable::numEntries() const { return impl->states.size(); }
const Entry &Executable::entry(size_t index) const {
  return impl->entries[index];
}
Stats Executable::stats() const { return impl->stats; }

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

Status Executable::loadBytes(const Device &device, const void *data,
                             size_t size, std::unique_ptr<Executable> *out) {
  if (!device.impl)
    return Status::error(StatusCode::kInvalidArgument,
                         "the device is not open (Device::open)");
  auto impl = std::make_unique<Impl>();
  impl->device = device;
  std::vector<std::string_view> code;
  VMAPC_RETURN_IF_ERROR(
      parseArtifactInPlace(data, size, &impl->artifact, &code));
  const Artifact &a = impl->artifact;

  size_t n = a.entries.size();
  impl->entries.reset(new Entry[n]);
  impl->states.resize(n);
  uint64_t arenaBytes = 1;
  for (size_t i = 0; i < n; ++i) {
    const EntryInfo &info = a.entries[i];
    Entry &e = impl->entries[i];
    e.entryInfo = &info;
    e.index = i;
    EntryState &st = impl->states[i];
    st.inputs.resize(info.inputs.size());
    st.outputs.resize(info.outputs.size());
    for (size_t k = 0; k < info.inputs.size(); ++k)
      VMAPC_RETURN_IF_ERROR(planArg(info.inputs[k], &st.inputs[k]));
    for (size_t k = 0; k < info.outputs.size(); ++k) {
      VMAPC_RETURN_IF_ERROR(planArg(info.outputs[k], &st.outputs[k]));
      st.hasUnmappedOutput |= !info.outputs[k].isMapped();
      if (info.outputs[k].isDonated())
        st.inputs[info.outputs[k].donatedFrom].donatedTo = int32_t(k);
    }
    for (const auto *plans : {&st.inputs, &st.outputs})
      for (const ArgPlan &p : *plans)
        st.hasMappedBytes |= p.mapped && !p.empty;
    markSlotsReusedInAChunk(info, a.kernels, &st);
    st.batchedCommand = batchableCommand(info, a.kernels, st);
    st.inputAddress.assign(info.inputs.size(), 0);
    st.outputAddress.assign(info.outputs.size(), 0);
    arenaBytes = std::max(arenaBytes, info.arenaBytes);
  }
  size_t maxBindings = 1, maxScalars = 1;
  for (const KernelInfo &k : a.kernels) {
    maxBindings = std::max<size_t>(maxBindings, k.numBindings);
    maxScalars = std::max<size_t>(maxScalars, k.numScalars);
  }
  impl->bindings.assign(maxBindings, 0);
  impl->chunkStrides.assign(maxBindings, 0);
  impl->scalars.assign(maxScalars, 0);
  impl->loopIndices.assign(kMaxLoopDepth, 0);

  // Below 2^62 (validated), so rounding up cannot wrap.
  uint64_t alignment = arenaAlignmentOf(a);
  arenaBytes = (arenaBytes + alignment - 1) / alignment * alignment;
  VMAPC_RETURN_IF_ERROR(device.impl->load(a, code, arenaBytes, &impl->backend));
  impl->stats.arenaBytes = arenaBytes;
  impl->stats.allocations = 1;
  impl->stats.deviceAllocations = impl->backend->deviceAllocations();
  out->reset(new Executable(std::move(impl)));
  return Status();
}

const std::string &Executable::codeLevel() const {
  return impl->backend->codeLevel();
}

Status Executable::loadFile(const Device &device, const std::string &path,
                            std::unique_ptr<Executable> *out) {
  HostBuffer bytes;
  VMAPC_RETURN_IF_ERROR(readArtifactFile(path, &bytes));
  return loadBytes(device, bytes.data(), bytes.size(), out)
      .withPrefix(path + ": ");
}

Status Executable::findEntry(std::string_view name, const Entry **out) const {
  for (size_t i = 0; i < impl->states.size(); ++i) {
    if (impl->entries[i].name() == name) {
      *out = &impl->entries[i];
      return Status();
    }
  }
  std::string msg = "unknown entry '" + std::string(name) + "'; entries are: ";
  for (size_t i = 0; i < impl->states.size(); ++i)
    msg += (i ? ", " : "") + impl->entries[i].name();
  return Status::error(StatusCode::kNotFound, msg);
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

static std::string dimsString(const int64_t *dims, size_t rank) {
  std::string s = "[";
  for (size_t i = 0; i < rank; ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

/// "[N, 64] (axis 0 mapped)" / "[64] (unmapped)"; with `n` >= 0 also
/// ", N = n" inside the parentheses.
static std::string expectedString(const ArgInfo &arg, int64_t n) {
  std::string s = "[";
  size_t rank = arg.shape.size() + (arg.isMapped() ? 1 : 0);
  for (size_t i = 0, j = 0; i < rank; ++i) {
    s += i ? ", " : "";
    if (arg.isMapped() && i == size_t(arg.mappedAxis))
      s += "N";
    else
      s += std::to_string(arg.shape[j++]);
  }
  s += "]";
  if (!arg.isMapped())
    return s + " (unmapped)";
  s += " (axis " + std::to_string(arg.mappedAxis) + " mapped";
  if (n >= 0)
    s += ", N = " + std::to_string(n);
  return s + ")";
}

static std::string argNames(const std::vector<ArgInfo> &args) {
  std::string s;
  for (size_t i = 0; i < args.size(); ++i)
    s += (i ? ", " : "") + args[i].name;
  return s;
}

namespace {
/// The parts of HostArray and MutableHostArray that checking needs.
struct ArgView {
  const void *data;
  DType dtype;
  const Shape *shape;
};
} // namespace

static Status invalid(std::string message) {
  return Status::error(StatusCode::kInvalidArgument, std::move(message));
}

/// Checks dtype and rank of one argument, and that no dim is negative.
static Status checkDTypeAndRank(const char *kind, const ArgInfo &arg,
                                const ArgView &v) {
  std::string where = std::string(kind) + " '" + arg.name + "': ";
  if (v.dtype != arg.dtype)
    return invalid(where + "expected dtype " + dtypeName(arg.dtype) + ", got " +
                   dtypeName(v.dtype));
  if (v.shape->tooLarge())
    return Status::error(StatusCode::kOutOfRange,
                         where + "shape has more than " +
                             std::to_string(kMaxRank) + " dims");
  const Shape &s = *v.shape;
  size_t rank = arg.shape.size() + (arg.isMapped() ? 1 : 0);
  if (s.rank() != rank)
    return invalid(where + "expected shape " + expectedString(arg, -1) +
                   ", got " + dimsString(s.data(), s.rank()));
  for (int64_t d : s)
    if (d < 0)
      return invalid(where + "negative dimension in shape " +
                     dimsString(s.data(), s.rank()));
  return Status();
}

/// Checks every dim of one argument against the manifest and N.
static Status checkDims(const char *kind, const ArgInfo &arg, const ArgView &v,
                        int64_t n) {
  const Shape &s = *v.shape;
  for (size_t i = 0, j = 0; i < s.rank(); ++i) {
    bool isBatch = arg.isMapped() && i == size_t(arg.mappedAxis);
    int64_t want = isBatch ? n : arg.shape[j++];
    if (s[i] == want)
      continue;
    std::string message = std::string(kind) + " '" + arg.name +
                          "': expected shape " + expectedString(arg, n) +
                          ", got " + dimsString(s.data(), s.rank());
    // The per-example shape with the examples on another axis: say so.
    for (size_t k = 0; arg.isMapped() && k < s.rank(); ++k) {
      if (k == size_t(arg.mappedAxis))
        continue;
      std::vector<int64_t> rest(s.begin(), s.end());
      rest.erase(rest.begin() + k);
      if (rest != arg.shape)
        continue;
      message += ": that is " + std::to_string(s[k]) + " examples on axis " +
                 std::to_string(k) + ", but this entry takes them on axis " +
                 std::to_string(arg.mappedAxis) + " (its " +
                 (std::string(kind) == "input" ? "in_axes" : "out_axes") +
                 "); pass the array with that axis, or export the entry with " +
                 (std::string(kind) == "input" ? "in_axes" : "out_axes") + "=" +
                 std::to_string(k);
      break;
    }
    return invalid(message);
  }
  // The user's dims, which now match the manifest's and N: also bounds N
  // for an empty argument (the product of its non-zero dims).
  std::optional<uint64_t> bytes = arrayBytes(arg.dtype, s.data(), s.rank());
  if (!bytes)
    return Status::error(StatusCode::kOutOfRange,
                         std::string(kind) + " '" + arg.name +
                             "': array is too large (2^62 bytes or more)");
  if (!v.data && *bytes != 0)
    return invalid(std::string(kind) + " '" + arg.name + "': data is null");
  return Status();
}

/// The bytes [begin, end) of a caller's array (dims already checked).
struct ByteRange {
  uintptr_t begin = 0, end = 0;
  bool overlaps(const ByteRange &o) const {
    return begin < o.end && o.begin < end;
  }
};
template <typename Array> static ByteRange rangeOf(const Array &a) {
  uint64_t bytes =
      arrayBytes(a.dtype, a.shape.data(), a.shape.rank()).value_or(0);
  auto begin = reinterpret_cast<uintptr_t>(a.data);
  return {begin, bytes ? begin + uintptr_t(bytes) : begin};
}

/// A donated input (docs/runtime.md, "Donation") is passed as its output
/// too, or with an output buffer that does not overlap it (the runtime then
/// copies each chunk over first); no other argument may share its bytes.
static Status checkDonations(const EntryInfo &info, Span<HostArray> inputs,
                             Span<MutableHostArray> outputs) {
  for (size_t j = 0; j < outputs.size(); ++j) {
    if (!info.outputs[j].isDonated())
      continue;
    size_t k = size_t(info.outputs[j].donatedFrom);
    ByteRange in = rangeOf(inputs[k]), out = rangeOf(outputs[j]);
    std::string what = "input '" + info.inputs[k].name +
                       "' is donated to output '" + info.outputs[j].name + "'";
    if (in.begin == in.end)
      continue;
    if (in.overlaps(out) && (in.begin != out.begin || in.end != out.end))
      return invalid(what + ": pass one buffer as both, or two that do not "
                            "overlap");
    auto clash = [&](const ByteRange &other, const char *kind,
                     const std::string &name) -> Status {
      if (in.overlaps(other))
        return invalid(what + ", but its bytes overlap " + kind + " '" + name +
                       "'; a donated input shares its buffer only with the "
                       "output it is donated to");
      return Status();
    };
    for (size_t i = 0; i < inputs.size(); ++i)
      if (i != k)
        VMAPC_RETURN_IF_ERROR(
            clash(rangeOf(inputs[i]), "input", info.inputs[i].name));
    for (size_t o = 0; o < outputs.size(); ++o)
      if (o != j)
        VMAPC_RETURN_IF_ERROR(
            clash(rangeOf(outputs[o]), "output", info.outputs[o].name));
  }
  return Status();
}

/// Whether a chunk of `count` examples of a mapped argument is passed as a
/// pointer into the user's array: only a full chunk of an argument whose
/// batch axis is outermost is contiguous there.
static bool passInPlace(const ArgPlan &p, uint64_t count, uint64_t b) {
  return count == b && p.outer == 1;
}

Status Executable::run(std::string_view entryName, Span<HostArray> inputs,
                       Span<MutableHostArray> outputs,
                       const RunOptions &options) {
  const Entry *e = nullptr;
  VMAPC_RETURN_IF_ERROR(findEntry(entryName, &e));
  return run(*e, inputs, outputs, options);
}

Status Executable::run(const Entry &entry, Span<HostArray> inputs,
                       Span<MutableHostArray> outputs,
                       const RunOptions &options) {
  Impl &im = *impl;
  if (entry.index >= im.states.size() || &im.entries[entry.index] != &entry)
    return invalid("entry does not belong to this executable");
  if (im.running.exchange(true, std::memory_order_acquire))
    return Status::error(
        StatusCode::kUnavailable,
        "entry '" + entry.info().name +
            "': this executable is running a call on another thread (an "
            "executable runs one call at a time: load one per thread, or "
            "hold a lock around its calls)");
  Status status = im.runOne(entry, inputs, outputs, options);
  im.running.store(false, std::memory_order_release);
  return status;
}

Status Executable::Impl::runOne(const Entry &entry, Span<HostArray> inputs,
                                Span<MutableHostArray> outputs,
                                const RunOptions &options) {
  const EntryInfo &info = entry.info();
  EntryState &st = states[entry.index];
  if (inputs.size() != info.inputs.size())
    return invalid("entry '" + info.name + "' takes " +
                   std::to_string(info.inputs.size()) + " inputs (" +
                   argNames(info.inputs) + "), got " +
                   std::to_string(inputs.size()));
  if (outputs.size() != info.outputs.size())
    return invalid("entry '" + info.name + "' has " +
                   std::to_string(info.outputs.size()) + " outputs (" +
                   argNames(info.outputs) + "), got " +
                   std::to_string(outputs.size()));

  auto inView = [&](size_t i) {
    return ArgView{inputs[i].data, inputs[i].dtype, &inputs[i].shape};
  };
  auto outView = [&](size_t i) {
    return ArgView{outputs[i].data, outputs[i].dtype, &outputs[i].shape};
  };

  for (size_t i = 0; i < inputs.size(); ++i)
    VMAPC_RETURN_IF_ERROR(
        checkDTypeAndRank("input", info.inputs[i], inView(i)));
  for (size_t i = 0; i < outputs.size(); ++i)
    VMAPC_RETURN_IF_ERROR(
        checkDTypeAndRank("output", info.outputs[i], outView(i)));

  // N: from the mapped inputs, else from the mapped outputs, else 0.
  int64_t n = -1;
  const ArgInfo *nSource = nullptr;
  const char *nKind = "input";
  auto takeN = [&](const char *kind, const ArgInfo &arg,
                   const Shape &shape) -> Status {
    int64_t size = shape[size_t(arg.mappedAxis)];
    if (n < 0) {
      n = size;
      nSource = &arg;
      nKind = kind;
      return Status();
    }
    if (size != n)
      return invalid(std::string(kind) + " '" + arg.name + "': mapped axis " +
                     std::to_string(arg.mappedAxis) + " has size " +
                     std::to_string(size) + ", but N = " + std::to_string(n) +
                     " from " + nKind + " '" + nSource->name + "'");
    return Status();
  };
  for (size_t i = 0; i < inputs.size(); ++i)
    if (info.inputs[i].isMapped())
      VMAPC_RETURN_IF_ERROR(takeN("input", info.inputs[i], inputs[i].shape));
  if (n < 0)
    for (size_t i = 0; i < outputs.size(); ++i)
      if (info.outputs[i].isMapped())
        VMAPC_RETURN_IF_ERROR(
            takeN("output", info.outputs[i], outputs[i].shape));
  if (n < 0)
    n = 0;

  for (size_t i = 0; i < inputs.size(); ++i)
    VMAPC_RETURN_IF_ERROR(checkDims("input", info.inputs[i], inView(i), n));
  for (size_t i = 0; i < outputs.size(); ++i)
    VMAPC_RETURN_IF_ERROR(checkDims("output", info.outputs[i], outView(i), n));
  VMAPC_RETURN_IF_ERROR(checkDonations(info, inputs, outputs));

  // Everything is checked; from here on nothing allocates, and only the
  // device can fail.
  backend::Executable &device = *backend;
  VMAPC_RETURN_IF_ERROR(device.beginRun(options));
  Status status =
      runChunks(info, st, inputs, outputs, uint64_t(n), options.deviceArrays);
  VMAPC_RETURN_IF_ERROR(device.endRun(std::move(status)));
  stats.calls += 1;
  stats.examples += uint64_t(n);
  return Status();
}

Status Executable::Impl::runChunks(const EntryInfo &info, EntryState &st,
                                   Span<HostArray> inputs,
                                   Span<MutableHostArray> outputs,
                                   uint64_t total, bool deviceArrays) {
  // Every offset below lies inside a caller's array or a staging slot, whose
  // byte sizes were checked below 2^62, so no product wraps.
  backend::Executable &device = *backend;
  const uint64_t b = info.batchSize;
  const ChunkPlan plan = planChunks(total, b, info.padsPartialChunks,
                                    st.hasUnmappedOutput, st.hasMappedBytes);
  const uint64_t chunks = plan.chunks;
  const size_t numIn = inputs.size();
  const size_t numOut = outputs.size();
  const backend::Address arena = device.arena();
  // Whether the code takes the caller's arrays as they are: host arrays on
  // a device that reads host memory, device arrays on the device. Else
  // every array goes through its staging slot.
  const bool bindsCaller = deviceArrays || device.bindsHostMemory();
  const bool hostToDevice = !deviceArrays && !device.bindsHostMemory();
  // Copies between a caller's array and the arena: on the device for device
  // arrays, else from or to host memory.
  auto copyIn = [&](backend::Address dst, uint64_t dstPitch,
                    backend::Address src, uint64_t srcPitch, uint64_t rowBytes,
                    uint64_t rows) -> Status {
    if (deviceArrays)
      return device.copyOnDevice(dst, dstPitch, src, srcPitch, rowBytes, rows);
    if (hostToDevice)
      stats.bytesToDevice += rowBytes * rows;
    return device.upload(dst, dstPitch, reinterpret_cast<const void *>(src),
                         srcPitch, rowBytes, rows);
  };
  auto copyOut = [&](backend::Address dst, uint64_t dstPitch,
                     backend::Address src, uint64_t srcPitch, uint64_t rowBytes,
                     uint64_t rows) -> Status {
    if (deviceArrays)
      return device.copyOnDevice(dst, dstPitch, src, srcPitch, rowBytes, rows);
    if (hostToDevice)
      stats.bytesFromDevice += rowBytes * rows;
    return device.download(reinterpret_cast<void *>(dst), dstPitch, src,
                           srcPitch, rowBytes, rows);
  };
  auto inputData = [&](size_t i) { return backend::Address(inputs[i].data); };
  auto outputData = [&](size_t i) { return backend::Address(outputs[i].data); };
  // Unmapped arguments: bound in place, or staged (an input once, before
  // the first chunk, unless its slot is reused within a chunk; an output
  // read back after the last).
  auto stagesUnmapped = [&](const ArgPlan &p) {
    return !p.mapped && !bindsCaller && p.staging != kNoStaging;
  };
  for (size_t i = 0; i < numIn; ++i) {
    const ArgPlan &p = st.inputs[i];
    if (p.mapped)
      continue;
    if (!stagesUnmapped(p)) {
      st.inputAddress[i] = inputData(i);
      continue;
    }
    st.inputAddress[i] = arena + p.staging;
    if (!p.empty && !p.stageEachChunk && chunks > 0)
      VMAPC_RETURN_IF_ERROR(copyIn(arena + p.staging, p.exampleBytes,
                                   inputData(i), p.exampleBytes, p.exampleBytes,
                                   1));
  }
  for (size_t i = 0; i < numOut; ++i) {
    const ArgPlan &p = st.outputs[i];
    if (!p.mapped)
      st.outputAddress[i] =
          stagesUnmapped(p) ? arena + p.staging : outputData(i);
  }

  // The full chunks in one dispatchChunks where the schedule allows it
  // (batchableCommand) and every mapped argument is bound in place.
  uint64_t batched = 0;
  if (st.batchedCommand >= 0 && bindsCaller && device.batchesChunks()) {
    bool inPlace = true;
    for (const auto *plans : {&st.inputs, &st.outputs})
      for (const ArgPlan &p : *plans)
        inPlace &= !p.mapped || p.empty || passInPlace(p, b, b);
    uint64_t full = std::min(chunks, total / b);
    if (inPlace && full >= 2)
      batched = full;
  }
  if (batched > 0) {
    // Chunk 0's addresses, as the loop below binds them, and the bytes
    // from one chunk's rows to the next's.
    for (size_t i = 0; i < numIn; ++i) {
      const ArgPlan &p = st.inputs[i];
      if (p.mapped)
        st.inputAddress[i] = p.empty ? arena + p.staging : inputData(i);
    }
    for (size_t i = 0; i < numOut; ++i) {
      const ArgPlan &p = st.outputs[i];
      if (p.mapped)
        st.outputAddress[i] = p.empty ? arena + p.staging : outputData(i);
    }
    size_t perChunk = size_t(st.batchedCommand);
    VMAPC_RETURN_IF_ERROR(runCommands(info.schedule, 0, perChunk, 0, st, b,
                                      /*firstChunk=*/true));
    const Command &c = info.schedule[perChunk];
    bindCommand(c, st, b);
    for (size_t j = 0; j < c.bindings.size(); ++j) {
      const Binding &bound = c.bindings[j];
      const ArgPlan *p =
          bound.kind == Binding::Kind::Input    ? &st.inputs[bound.index]
          : bound.kind == Binding::Kind::Output ? &st.outputs[bound.index]
                                                : nullptr;
      chunkStrides[j] = p && p->mapped && !p->empty ? b * p->innerBytes : 0;
    }
    const KernelInfo &k = artifact.kernels[c.kernel];
    uint64_t grid[3];
    for (int d = 0; d < 3; ++d)
      grid[d] = workgroupsFor(k.workgroupCount[d], b);
    VMAPC_RETURN_IF_ERROR(
        device.dispatchChunks(c.kernel, grid, batched, bindings.data(),
                              chunkStrides.data(), scalars.data()));
    stats.launches += batched;
    stats.batchedChunks += batched;
  }

  for (uint64_t c = batched; c < chunks; ++c) {
    const uint64_t start = c * b;
    const uint64_t count = plan.count(c);
    // A schedule computes examples [0, n); one that pads computes all B.
    const uint64_t chunkN = plan.scheduleN(c);
    for (size_t i = 0; i < numIn; ++i) {
      const ArgPlan &p = st.inputs[i];
      if (!p.mapped) {
        if (stagesUnmapped(p) && !p.empty && p.stageEachChunk)
          VMAPC_RETURN_IF_ERROR(copyIn(arena + p.staging, p.exampleBytes,
                                       inputData(i), p.exampleBytes,
                                       p.exampleBytes, 1));
        continue;
      }
      if (p.empty) { // Nothing to gather; any valid address will do.
        st.inputAddress[i] = arena + p.staging;
        continue;
      }
      const backend::Address src = inputData(i);
      if (bindsCaller && passInPlace(p, count, b)) {
        st.inputAddress[i] = src + start * p.innerBytes;
        // A donated input is computed over in place: in the caller's output
        // buffer, after copying the chunk there if it is another buffer.
        if (p.donatedTo >= 0) {
          const backend::Address dst =
              outputData(size_t(p.donatedTo)) + start * p.innerBytes;
          if (dst != st.inputAddress[i])
            VMAPC_RETURN_IF_ERROR(copyIn(dst, p.innerBytes, st.inputAddress[i],
                                         p.innerBytes, count * p.innerBytes,
                                         1));
          st.inputAddress[i] = dst;
        }
        continue;
      }
      backend::Address slot = arena + p.staging;
      st.inputAddress[i] = slot;
      if (count == 0)
        continue;
      // The chunk: `outer` rows of count x innerBytes, B x innerBytes apart
      // in the slot.
      VMAPC_RETURN_IF_ERROR(
          copyIn(slot, b * p.innerBytes, src + start * p.innerBytes,
                 total * p.innerBytes, count * p.innerBytes, p.outer));
      if (!info.padsPartialChunks)
        continue;
      // Padding lanes repeat the last real example, so that the code sees
      // only values the user gave (no 0 divisor, no log(0) of padding).
      for (uint64_t k = count; k < b; ++k)
        VMAPC_RETURN_IF_ERROR(copyIn(slot + k * p.innerBytes, b * p.innerBytes,
                                     src + (start + count - 1) * p.innerBytes,
                                     total * p.innerBytes, p.innerBytes,
                                     p.outer));
    }
    for (size_t i = 0; i < numOut; ++i) {
      const ArgPlan &p = st.outputs[i];
      if (!p.mapped)
        continue;
      st.outputAddress[i] = bindsCaller && !p.empty && passInPlace(p, count, b)
                                ? outputData(i) + start * p.innerBytes
                                : arena + p.staging;
    }

    VMAPC_RETURN_IF_ERROR(runCommands(info.schedule, 0, info.schedule.size(), 0,
                                      st, chunkN,
                                      /*firstChunk=*/c == 0));

    for (size_t i = 0; i < numOut; ++i) {
      const ArgPlan &p = st.outputs[i];
      if (!p.mapped || p.empty || count == 0 ||
          (bindsCaller && passInPlace(p, count, b)))
        continue;
      VMAPC_RETURN_IF_ERROR(copyOut(
          outputData(i) + start * p.innerBytes, total * p.innerBytes,
          arena + p.staging, b * p.innerBytes, count * p.innerBytes, p.outer));
    }
  }
  for (size_t i = 0; i < numOut; ++i) {
    const ArgPlan &p = st.outputs[i];
    if (stagesUnmapped(p) && !p.empty && chunks > 0)
      VMAPC_RETURN_IF_ERROR(copyOut(outputData(i), p.exampleBytes,
                                    arena + p.staging, p.exampleBytes,
                                    p.exampleBytes, 1));
  }
  return Status();
}

} // namespace vmapc
