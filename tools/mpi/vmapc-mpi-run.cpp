//===- vmapc-mpi-run.cpp - run a compiled entry over MPI ranks ------------===//
//
//   mpirun -np K vmapc-mpi-run FILE.vmapc [--entry NAME] --input a.npy ...
//                              --output y.npy ... [--device NAME]
//                              [--num-examples N] [--verbose]
//
// `vmapc run` of a compiled artifact, with the N examples spread over the K
// ranks of MPI_COMM_WORLD. Same arguments and the same results, bit for bit
// (on ranks that run the same ISA level; docs/scale-out.md):
//
// - Every rank opens its own device and loads the artifact from FILE itself.
// - Rank 0 alone reads the inputs, finds N and checks every input's dtype
//   and shape (the runtime's checks, made before anything is sent).
// - Unmapped inputs are broadcast once. Mapped inputs are scattered in whole
//   examples and in order, as JAX's split_for_jax_process splits them: rank r
//   gets N / K examples, one more when r < N % K (11 over 3: 4, 4, 3).
// - Each rank runs its share through Executable::run; the mapped outputs are
//   gathered in order on rank 0, which writes every output (an unmapped
//   output is rank 0's own).
//
// Large arrays (Slices.h). Open MPI's counts are `int`, so nothing here
// passes MPI a count of examples or bytes: each transfer is one element of a
// derived datatype of the rank's whole slice, in which a count above INT_MAX
// is split into nested types. An input mapped on axis k > 0 is not contiguous
// per example in rank 0's array: its slice is the blocks of the dims before
// k, strided, which MPI's datatype engine packs as it sends; the rank
// receives them contiguous, in its own array's order. --mpi-max-count lowers
// the limit, so that tests run that path on small arrays.
//
// Failures (Ranks.h). After each phase that can fail (arguments, device and
// artifact, rank 0's inputs, buffers, the run, writing the outputs) every
// rank takes part in an MPI_Allreduce of an error flag; when a rank failed,
// rank 0 prints each failing rank's message once, naming the rank, and every
// rank exits with status 1. An error of MPI itself (MPI_ERRORS_RETURN: every
// call's status is checked) may leave the communicator unusable, so the rank
// that saw it prints it and ends the job with MPI_Abort.
//
//===----------------------------------------------------------------------===//

#include "Ranks.h"
#include "Slices.h"

#include "vmapc/HostBuffer.h"
#include "vmapc/Npy.h"
#include "vmapc/Runtime.h"

#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace vmapc::mpi;
using vmapc::ArgInfo;
using vmapc::Status;
using vmapc::StatusCode;

static Status invalid(std::string message) {
  return Status::error(StatusCode::kInvalidArgument, std::move(message));
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

namespace {
struct Options {
  std::string artifact;
  std::string entry;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::string device = "cpu";
  int64_t numExamples = -1; ///< -1: not given.
  bool verbose = false;
  bool help = false;
  /// The largest count passed to one MPI datatype constructor.
  int maxCount = INT_MAX;
};
} // namespace

static void printUsage() {
  std::printf(R"(usage: mpirun -np K %s FILE.vmapc [--entry NAME]
           --input X.npy ... --output Y.npy ... [--device NAME]
           [--num-examples N] [--verbose]

Runs an entry of a compiled .vmapc artifact on .npy files as `vmapc run` does,
with the examples split over the MPI ranks (docs/scale-out.md). Every rank
loads FILE; rank 0 reads the inputs and writes the outputs.

  --entry NAME        the entry to run (default: the only one)
  --input X.npy       an input, in declaration order (repeatable)
  --output Y.npy      an output, in declaration order (repeatable)
  --device NAME       cpu (default: each rank gets its share of its node's
                      hardware threads), cpu:threads=K,isa=LEVEL (as given),
                      cuda (each rank on cuda:<its rank within its node>), or
                      cuda:N (every rank on GPU N)
  --num-examples N    N, for an entry that maps no input
  --verbose           print each rank's device and examples, and each transfer
  --mpi-max-count C   for testing: the largest count (of bytes or blocks) given
                      to an MPI datatype constructor, 2 to 2147483647 (the
                      default); a small C moves small arrays the way arrays
                      of 2^31 bytes and more move
)",
              kToolName);
}

static bool parseInteger(const std::string &text, long long min, long long max,
                         long long *out) {
  if (text.empty() || text[0] == ' ')
    return false;
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (*end != '\0' || errno != 0 || value < min || value > max)
    return false;
  *out = value;
  return true;
}

/// Parses the command line as `vmapc run` takes it (`--opt value` or
/// `--opt=value`; one dash or two).
static Status parseArgs(int argc, char **argv, Options *o) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "-help" || arg == "--help") {
      o->help = true;
      continue;
    }
    if (arg == "--verbose" || arg == "-verbose") {
      o->verbose = true;
      continue;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      if (!o->artifact.empty())
        return invalid("more than one artifact given ('" + o->artifact +
                       "' and '" + arg + "')");
      o->artifact = arg;
      continue;
    }
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
    std::string value;
    size_t eq = name.find('=');
    bool inlineValue = eq != std::string::npos;
    if (inlineValue) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    static const char *const kValueOptions[] = {
        "entry", "input", "output", "device", "num-examples", "mpi-max-count"};
    if (std::find(std::begin(kValueOptions), std::end(kValueOptions), name) ==
        std::end(kValueOptions))
      return invalid("unknown option '" + arg + "' (--help lists them)");
    if (!inlineValue) {
      if (i + 1 >= argc)
        return invalid("option '--" + name + "' needs a value");
      value = argv[++i];
    }
    long long number = 0;
    if (name == "entry") {
      o->entry = value;
    } else if (name == "input") {
      o->inputs.push_back(value);
    } else if (name == "output") {
      o->outputs.push_back(value);
    } else if (name == "device") {
      o->device = value;
    } else if (name == "num-examples") {
      if (!parseInteger(value, LLONG_MIN, LLONG_MAX, &number))
        return invalid("--num-examples takes an integer, got '" + value + "'");
      if (number < 0)
        return invalid("--num-examples must be at least 0, got " + value);
      o->numExamples = number;
    } else if (name == "mpi-max-count") {
      if (!parseInteger(value, 2, INT_MAX, &number))
        return invalid("--mpi-max-count takes an integer in [2, " +
                       std::to_string(INT_MAX) + "], got '" + value + "'");
      o->maxCount = int(number);
    }
  }
  if (o->help)
    return Status();
  if (o->artifact.empty())
    return invalid("give a compiled artifact: " + std::string(kToolName) +
                   " FILE.vmapc --input ... --output ... (see --help)");
  const std::string &a = o->artifact;
  if (a.size() >= 4 && a.compare(a.size() - 4, 4, ".arr") == 0)
    return invalid("'" + a +
                   "' is .arr source; this tool runs compiled artifacts: "
                   "`vmapc compile " +
                   a + " -o FILE.vmapc` first");
  return Status();
}

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

/// The device this rank opens for `requested`: `cuda` becomes cuda:<node-local
/// rank>; `cpu` with no thread count (in the string or in
/// VMAPC_CPU_THREADS) gets threads=<this rank's share of the node's CPUs>;
/// anything else is the runtime's to take or refuse as it is.
static std::string deviceFor(const std::string &requested, const World &w) {
  if (requested == "cuda")
    return "cuda:" + std::to_string(w.localRank);
  std::string name = requested.substr(0, requested.find(':'));
  if (name != "cpu")
    return requested;
  std::string options =
      requested.size() > 3 ? requested.substr(4) : std::string();
  for (size_t start = 0; start <= options.size();) {
    size_t comma = options.find(',', start);
    if (comma == std::string::npos)
      comma = options.size();
    if (options.compare(start, 8, "threads=") == 0 && comma - start >= 8)
      return requested;
    start = comma + 1;
  }
  const char *env = std::getenv("VMAPC_CPU_THREADS");
  if (env && *env)
    return requested;
  std::string threads = "threads=" + std::to_string(w.cpuShare);
  return options.empty() ? "cpu:" + threads : "cpu:" + options + "," + threads;
}

//===----------------------------------------------------------------------===//
// Rank 0's inputs
//===----------------------------------------------------------------------===//

static std::string dimsString(const std::vector<int64_t> &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

/// "[N, 64] (axis 0 mapped, N = 5)" / "[64] (unmapped)", as the runtime says
/// it (without ", N = ..." for `n` < 0).
static std::string expectedString(const ArgInfo &arg, int64_t n) {
  std::vector<int64_t> dims = vmapc::batchedShape(arg, std::max<int64_t>(n, 0));
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + (arg.isMapped() && int64_t(i) == arg.mappedAxis
                                ? std::string("N")
                                : std::to_string(dims[i]));
  s += "]";
  if (!arg.isMapped())
    return s + " (unmapped)";
  return s + " (axis " + std::to_string(arg.mappedAxis) + " mapped" +
         (n >= 0 ? ", N = " + std::to_string(n) : std::string()) + ")";
}

/// N: the size of the mapped inputs' batch axis, or --num-examples for an
/// entry that maps no input (`vmapc run`'s rule and messages).
static Status numExamples(const vmapc::EntryInfo &entry, const Options &o,
                          const std::vector<vmapc::NpyArray> &inputs,
                          int64_t *n) {
  bool anyMapped = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ArgInfo &info = entry.inputs[i];
    anyMapped |= info.isMapped();
    if (!info.isMapped() || inputs[i].shape.size() != info.shape.size() + 1)
      continue;
    int64_t size = inputs[i].shape[size_t(info.mappedAxis)];
    if (o.numExamples >= 0 && o.numExamples != size)
      return invalid("--num-examples " + std::to_string(o.numExamples) +
                     " disagrees with N = " + std::to_string(size) +
                     " from input '" + info.name + "' (its axis " +
                     std::to_string(info.mappedAxis) +
                     "); leave --num-examples out for an entry that maps "
                     "inputs");
    *n = size;
    return Status();
  }
  if (o.numExamples >= 0) {
    *n = o.numExamples;
    return Status();
  }
  if (anyMapped) {
    *n = 0; // A malformed mapped input; checkInputs says which.
    return Status();
  }
  return invalid("entry '" + entry.name +
                 "' maps no input, so the inputs do not say how many "
                 "examples to run; give --num-examples N");
}

/// The runtime's checks of each input against the manifest and N, made on
/// rank 0 before anything is sent (messages as the runtime's, with the
/// file's name).
static Status checkInputs(const vmapc::EntryInfo &entry, const Options &o,
                          const std::vector<vmapc::NpyArray> &inputs,
                          int64_t n) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ArgInfo &info = entry.inputs[i];
    const vmapc::NpyArray &array = inputs[i];
    std::string where = o.inputs[i] + ": input '" + info.name + "': ";
    if (array.dtype != info.dtype)
      return invalid(where + "expected dtype " + vmapc::dtypeName(info.dtype) +
                     ", got " + vmapc::dtypeName(array.dtype));
    std::vector<int64_t> want = vmapc::batchedShape(info, n);
    if (array.shape.size() != want.size())
      return invalid(where + "expected shape " + expectedString(info, -1) +
                     ", got " + dimsString(array.shape));
    if (array.shape != want)
      return invalid(where + "expected shape " + expectedString(info, n) +
                     ", got " + dimsString(array.shape));
  }
  return Status();
}

/// Rank 0: reads the inputs, finds N, checks the inputs and allocates the
/// outputs of all N examples (with `vmapc run`'s memory checks).
static Status readInputs(const vmapc::EntryInfo &entry, const Options &o,
                         std::vector<vmapc::NpyArray> *inputs,
                         std::vector<vmapc::NpyArray> *outputs, int64_t *n) {
  inputs->resize(o.inputs.size());
  for (size_t i = 0; i < o.inputs.size(); ++i)
    VMAPC_RETURN_IF_ERROR(vmapc::readNpy(o.inputs[i], &(*inputs)[i]));
  VMAPC_RETURN_IF_ERROR(numExamples(entry, o, *inputs, n));
  VMAPC_RETURN_IF_ERROR(checkInputs(entry, o, *inputs, *n));

  std::string examples = " of " + std::to_string(*n) + " examples";
  std::optional<uint64_t> total = 0;
  for (const ArgInfo &out : entry.outputs) {
    std::vector<int64_t> shape = vmapc::batchedShape(out, *n);
    std::optional<uint64_t> bytes =
        vmapc::arrayBytes(out.dtype, shape.data(), shape.size());
    std::string what = "output '" + out.name + "'" + examples;
    if (!bytes)
      return Status::error(StatusCode::kOutOfRange,
                           what + " would take 2^62 bytes or more");
    VMAPC_RETURN_IF_ERROR(vmapc::checkHostMemory(*bytes, what));
    total = vmapc::checkedAddBytes(*total, *bytes);
    if (!total)
      return Status::error(StatusCode::kOutOfRange,
                           "the outputs" + examples +
                               " would take 2^62 bytes or more");
  }
  VMAPC_RETURN_IF_ERROR(
      vmapc::checkHostMemory(*total, "the outputs" + examples));
  outputs->resize(entry.outputs.size());
  for (size_t i = 0; i < entry.outputs.size(); ++i)
    VMAPC_RETURN_IF_ERROR(vmapc::NpyArray::zeros(
        entry.outputs[i].dtype, vmapc::batchedShape(entry.outputs[i], *n),
        &(*outputs)[i]));
  return Status();
}

//===----------------------------------------------------------------------===//
// The job
//===----------------------------------------------------------------------===//

namespace {
/// One argument as this rank runs it: its own array, or (rank 0, axis 0 or
/// unmapped) a view of the whole array.
struct LocalArg {
  vmapc::NpyArray own;
  unsigned char *data = nullptr;
  std::vector<int64_t> shape;
  bool inPlace = false;
};
} // namespace

/// Allocates what this rank runs on: its share of each mapped argument, a
/// copy of each unmapped input (not on rank 0), a buffer for each unmapped
/// output (rank 0: the output itself).
static Status makeLocalArgs(const World &w, const std::vector<ArgInfo> &args,
                            const char *kind,
                            std::vector<vmapc::NpyArray> *whole, Share share,
                            std::vector<LocalArg> *local) {
  local->resize(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgInfo &arg = args[i];
    LocalArg &l = (*local)[i];
    l.shape = vmapc::batchedShape(arg, share.count);
    // Rank 0's share starts at example 0: a prefix of the whole array when
    // the batch axis is outermost.
    if (w.rank == 0 && (!arg.isMapped() || arg.mappedAxis == 0)) {
      l.data = (*whole)[i].data.data();
      l.inPlace = true;
      continue;
    }
    Status s = vmapc::NpyArray::zeros(arg.dtype, l.shape, &l.own);
    if (!s.ok())
      return s.withPrefix(std::string(kind) + " '" + arg.name + "' of " +
                          std::to_string(share.count) + " examples: ");
    l.data = l.own.data.data();
  }
  return Status();
}

/// For --verbose: " (2 counts over the limit split into nested types)".
static std::string splitsText(int splits) {
  if (splits == 0)
    return "";
  return " (" + std::to_string(splits) + (splits == 1 ? " count" : " counts") +
         " over the limit split into nested types)";
}

/// For --verbose: "examples [4, 8), 3 blocks of 48 bytes 132 bytes apart".
static std::string describeSlice(const Layout &l, Share s, int64_t n) {
  uint64_t block = uint64_t(s.count) * l.row;
  std::string text = "examples [" + std::to_string(s.start) + ", " +
                     std::to_string(s.start + s.count) + "), ";
  if (l.pre == 1)
    return text + std::to_string(block) + " bytes";
  return text + std::to_string(l.pre) + " blocks of " + std::to_string(block) +
         " bytes " + std::to_string(uint64_t(n) * l.row) + " bytes apart";
}

/// Rank 0's transfers of one mapped argument's slices: one derived type per
/// rank, describing the rank's examples in the whole array of `n`. `post`
/// starts the transfer of `type` at `start` with rank `r`.
template <typename Post>
static void forEachSlice(const World &w, const Options &o, TypeMaker &types,
                         const ArgInfo &arg, unsigned char *whole, int64_t n,
                         const char *verb, const std::string &what, Post post) {
  Layout layout = layoutOf(arg);
  for (int r = 1; r < w.size; ++r) {
    Share s = shareOf(n, r, w.size);
    if (s.count == 0)
      continue;
    int before = types.splits();
    MPI_Datatype type = types.blocks(layout.pre, uint64_t(s.count) * layout.row,
                                     uint64_t(n) * layout.row);
    post(whole + uint64_t(s.start) * layout.row, type, r);
    if (o.verbose)
      std::fprintf(
          stderr, "%s: %s %s (axis %d), rank %d: %s\n", kToolName, verb,
          what.c_str(), arg.mappedAxis, r,
          (describeSlice(layout, s, n) + splitsText(types.splits() - before))
              .c_str());
  }
}

/// Broadcasts the unmapped inputs, then scatters the mapped ones.
static void sendInputs(const World &w, const Options &o,
                       const vmapc::EntryInfo &entry,
                       std::vector<vmapc::NpyArray> &whole,
                       std::vector<LocalArg> &local, int64_t n) {
  TypeMaker types(o.maxCount);
  for (size_t i = 0; i < entry.inputs.size(); ++i) {
    const ArgInfo &arg = entry.inputs[i];
    uint64_t bytes = layoutOf(arg).bytes(1);
    if (arg.isMapped() || bytes == 0 || w.size == 1)
      continue;
    std::string what = "input '" + arg.name + "'";
    int before = types.splits();
    MPI_Datatype type = types.blocks(1, bytes, bytes);
    checkMpi(MPI_Bcast(local[i].data, 1, type, 0, MPI_COMM_WORLD), "MPI_Bcast",
             what);
    if (o.verbose && w.rank == 0)
      std::fprintf(stderr, "%s: broadcast %s: %llu bytes%s\n", kToolName,
                   what.c_str(), (unsigned long long)bytes,
                   splitsText(types.splits() - before).c_str());
  }

  Requests requests;
  Share mine = shareOf(n, w.rank, w.size);
  for (size_t i = 0; i < entry.inputs.size(); ++i) {
    const ArgInfo &arg = entry.inputs[i];
    if (!arg.isMapped())
      continue;
    std::string what = "input '" + arg.name + "'";
    int tag = int(i);
    Layout layout = layoutOf(arg);
    if (w.rank != 0) {
      // The rank's examples arrive contiguous, in its array's order.
      uint64_t bytes = layout.bytes(mine.count);
      if (bytes == 0)
        continue;
      checkMpi(MPI_Irecv(local[i].data, 1, types.blocks(1, bytes, bytes), 0,
                         tag, MPI_COMM_WORLD, requests.add()),
               "MPI_Irecv", what);
      continue;
    }
    if (layout.bytes(n) == 0)
      continue;
    uint64_t block = uint64_t(mine.count) * layout.row;
    if (!local[i].inPlace)
      copyBlocks(local[i].data, block, whole[i].data.data(),
                 uint64_t(n) * layout.row, block, layout.pre);
    forEachSlice(w, o, types, arg, whole[i].data.data(), n, "scatter", what,
                 [&](unsigned char *start, MPI_Datatype type, int r) {
                   checkMpi(MPI_Isend(start, 1, type, r, tag, MPI_COMM_WORLD,
                                      requests.add()),
                            "MPI_Isend",
                            what + " to rank " + std::to_string(r));
                 });
  }
  requests.waitAll("the inputs");
}

/// Gathers the mapped outputs on rank 0, in order.
static void gatherOutputs(const World &w, const Options &o,
                          const vmapc::EntryInfo &entry,
                          std::vector<vmapc::NpyArray> &whole,
                          std::vector<LocalArg> &local, int64_t n) {
  TypeMaker types(o.maxCount);
  Requests requests;
  Share mine = shareOf(n, w.rank, w.size);
  for (size_t i = 0; i < entry.outputs.size(); ++i) {
    const ArgInfo &arg = entry.outputs[i];
    if (!arg.isMapped())
      continue;
    std::string what = "output '" + arg.name + "'";
    int tag = int(i);
    Layout layout = layoutOf(arg);
    if (w.rank != 0) {
      uint64_t bytes = layout.bytes(mine.count);
      if (bytes == 0)
        continue;
      checkMpi(MPI_Isend(local[i].data, 1, types.blocks(1, bytes, bytes), 0,
                         tag, MPI_COMM_WORLD, requests.add()),
               "MPI_Isend", what);
      continue;
    }
    if (layout.bytes(n) == 0)
      continue;
    uint64_t block = uint64_t(mine.count) * layout.row;
    if (!local[i].inPlace)
      copyBlocks(whole[i].data.data(), uint64_t(n) * layout.row, local[i].data,
                 block, block, layout.pre);
    forEachSlice(w, o, types, arg, whole[i].data.data(), n, "gather", what,
                 [&](unsigned char *start, MPI_Datatype type, int r) {
                   checkMpi(MPI_Irecv(start, 1, type, r, tag, MPI_COMM_WORLD,
                                      requests.add()),
                            "MPI_Irecv",
                            what + " from rank " + std::to_string(r));
                 });
  }
  requests.waitAll("the outputs");
}

static std::vector<vmapc::HostArray>
inputViews(const vmapc::EntryInfo &entry, const std::vector<LocalArg> &local) {
  std::vector<vmapc::HostArray> views;
  for (size_t i = 0; i < local.size(); ++i)
    views.push_back(
        {local[i].data, entry.inputs[i].dtype, vmapc::Shape(local[i].shape)});
  return views;
}

static std::vector<vmapc::MutableHostArray>
outputViews(const vmapc::EntryInfo &entry, const std::vector<LocalArg> &local) {
  std::vector<vmapc::MutableHostArray> views;
  for (size_t i = 0; i < local.size(); ++i)
    views.push_back(
        {local[i].data, entry.outputs[i].dtype, vmapc::Shape(local[i].shape)});
  return views;
}

/// "e(x: f32[3] axis 1, w: f32[3, 2] unmapped) -> (y: f32[2] axis 0)".
static std::string signature(const vmapc::EntryInfo &e) {
  auto args = [](const std::vector<ArgInfo> &list) {
    std::string s;
    for (const ArgInfo &a : list)
      s += (s.empty() ? "" : ", ") + a.name + ": " + vmapc::dtypeName(a.dtype) +
           dimsString(a.shape) +
           (a.isMapped() ? " axis " + std::to_string(a.mappedAxis)
                         : std::string(" unmapped"));
    return s;
  };
  return e.name + "(" + args(e.inputs) + ") -> (" + args(e.outputs) + ")";
}

/// Compares this rank's entry with rank 0's (by a hash of their signatures;
/// the message shows rank 0's signature, cut to kMaxMessageBytes).
static Status checkSameEntry(const Options &o, const vmapc::EntryInfo &info) {
  std::string mine = signature(info);
  uint64_t hash = vmapc::fnv1a64(mine.data(), mine.size());
  uint64_t rootHash = hash;
  std::string shown = mine.substr(0, kMaxMessageBytes);
  int length = int(shown.size());
  checkMpi(MPI_Bcast(&rootHash, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD),
           "MPI_Bcast", "the entry's signature");
  checkMpi(MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast",
           "the entry's signature");
  shown.resize(size_t(length));
  checkMpi(MPI_Bcast(shown.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD),
           "MPI_Bcast", "the entry's signature");
  if (hash == rootHash)
    return Status();
  return invalid(o.artifact + ": entry " + mine +
                 " differs from rank 0's entry " + shown +
                 " (every rank must run the same entry)");
}

/// Everything after MPI_Init; returns the exit status.
static int runJob(int argc, char **argv) {
  World w = makeWorld();

  // Arguments (every rank parses its own: an MPMD launch may differ).
  Options o;
  if (!agree(w, parseArgs(argc, argv, &o)))
    return 1;
  // Flags that decide which collectives run: the same on every rank.
  int flags[2] = {o.help ? 1 : 0, o.verbose ? 1 : 0}, anyFlags[2] = {0, 0};
  checkMpi(MPI_Allreduce(flags, anyFlags, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD),
           "MPI_Allreduce", "--help and --verbose");
  o.verbose = anyFlags[1] != 0;
  if (anyFlags[0]) {
    if (w.rank == 0)
      printUsage();
    return 0;
  }

  // The device and the artifact, on every rank.
  std::string deviceName = deviceFor(o.device, w);
  vmapc::Device device;
  std::unique_ptr<vmapc::Executable> executable;
  const vmapc::Entry *entry = nullptr;
  Status status = vmapc::Device::open(deviceName, &device);
  if (status.code() == StatusCode::kNotFound && o.device == "cuda")
    status = status.withPrefix(
        "--device cuda gives each rank cuda:<its rank within the node>, here " +
        deviceName + " (" + std::to_string(w.localSize) +
        " ranks on this node): ");
  if (status.ok()) // The runtime's message names the file.
    status = vmapc::Executable::loadFile(device, o.artifact, &executable);
  if (status.ok()) {
    if (!o.entry.empty())
      status = executable->findEntry(o.entry, &entry);
    else if (executable->numEntries() != 1)
      status = invalid("the artifact has " +
                       std::to_string(executable->numEntries()) +
                       " entries; choose one with --entry");
    else
      entry = &executable->entry(0);
  }
  if (status.ok() && o.inputs.size() != entry->numInputs())
    status =
        invalid("entry '" + entry->name() + "' takes " +
                std::to_string(entry->numInputs()) +
                (entry->numInputs() == 1 ? " input" : " inputs") + ", got " +
                std::to_string(o.inputs.size()) + " --input files");
  if (status.ok() && o.outputs.size() != entry->numOutputs())
    status =
        invalid("entry '" + entry->name() + "' has " +
                std::to_string(entry->numOutputs()) +
                (entry->numOutputs() == 1 ? " output" : " outputs") + ", got " +
                std::to_string(o.outputs.size()) + " --output files");
  if (!agree(w, status))
    return 1;
  const vmapc::EntryInfo &info = entry->info();
  // Every rank must run the same signature (an MPMD launch, or a stale copy
  // of the artifact on one node, might not): else the transfers would not
  // match.
  if (!agree(w, checkSameEntry(o, info)))
    return 1;

  // Rank 0's inputs and N.
  std::vector<vmapc::NpyArray> wholeInputs(info.inputs.size());
  std::vector<vmapc::NpyArray> wholeOutputs(info.outputs.size());
  int64_t n = 0;
  if (w.rank == 0)
    status = readInputs(info, o, &wholeInputs, &wholeOutputs, &n);
  if (!agree(w, status))
    return 1;
  checkMpi(MPI_Bcast(&n, 1, MPI_INT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast", "N");
  Share mine = shareOf(n, w.rank, w.size);
  if (o.verbose)
    printFromEveryRank(
        w, "rank " + std::to_string(w.rank) + " of " + std::to_string(w.size) +
               " on " + w.host + " (node rank " + std::to_string(w.localRank) +
               " of " + std::to_string(w.localSize) + "): device " +
               deviceName + " (" + device.describe() + "), code " +
               executable->codeLevel() + ", examples [" +
               std::to_string(mine.start) + ", " +
               std::to_string(mine.start + mine.count) + ") of " +
               std::to_string(n));

  // This rank's arrays.
  std::vector<LocalArg> localInputs, localOutputs;
  status =
      makeLocalArgs(w, info.inputs, "input", &wholeInputs, mine, &localInputs);
  if (status.ok())
    status = makeLocalArgs(w, info.outputs, "output", &wholeOutputs, mine,
                           &localOutputs);
  if (!agree(w, status))
    return 1;

  sendInputs(w, o, info, wholeInputs, localInputs, n);
  status = executable->run(*entry, inputViews(info, localInputs),
                           outputViews(info, localOutputs));
  if (!agree(w, status))
    return 1;
  gatherOutputs(w, o, info, wholeOutputs, localOutputs, n);

  if (w.rank == 0)
    for (size_t i = 0; i < wholeOutputs.size() && status.ok(); ++i)
      status =
          vmapc::writeNpy(o.outputs[i], wholeOutputs[i].dtype,
                          wholeOutputs[i].shape, wholeOutputs[i].data.data());
  return agree(w, status) ? 0 : 1;
}

int main(int argc, char **argv) {
  // MPI_Init's own failure is fatal by MPI's default (MPI_ERRORS_ARE_FATAL);
  // from here on MPI returns errors and checkMpi handles them. FUNNELED: the
  // runtime's worker threads never call MPI.
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) !=
      MPI_SUCCESS) {
    std::fprintf(stderr, "%s: error: MPI_Init_thread failed\n", kToolName);
    return 1;
  }
  checkMpi(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
           "MPI_Comm_set_errhandler");
  checkMpi(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN),
           "MPI_Comm_set_errhandler");
  int exitCode = 1;
  if (provided < MPI_THREAD_FUNNELED) {
    int rank = 0;
    checkMpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    if (rank == 0)
      std::fprintf(stderr,
                   "%s: error: this MPI gives no MPI_THREAD_FUNNELED support "
                   "(the runtime's worker threads need it)\n",
                   kToolName);
  } else {
    exitCode = runJob(argc, argv);
  }
  checkMpi(MPI_Finalize(), "MPI_Finalize");
  return exitCode;
}
