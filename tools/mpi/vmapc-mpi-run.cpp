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
// Large arrays. Open MPI's counts are `int`, so nothing here passes MPI a
// count of examples or bytes. Each transfer is ONE element of a derived
// datatype that describes the rank's whole slice of the array: for an
// argument mapped at axis k, the dims before k are `pre` blocks, each of the
// slice's n examples x `row` bytes (the bytes of the dims after k), which are
// contiguous in the rank's array and N x row bytes apart in rank 0's. A count
// above the limit (INT_MAX) is split into a second-level type (and so on),
// so an array of 2^31 bytes or more, or an example of that size, moves the
// same way. --mpi-max-count lowers the limit, for tests of that path on small
// arrays.
//
// Failures. After each phase that can fail (arguments, device and artifact,
// rank 0's inputs, buffers, the run, writing the outputs) every rank takes
// part in an MPI_Allreduce of an error flag; when a rank failed, rank 0
// gathers the messages of the failing ranks, prints each distinct one once,
// naming the ranks, and every rank exits with status 1. An error of MPI
// itself (MPI_ERRORS_RETURN on MPI_COMM_WORLD: every call's status is
// checked) may leave the communicator unusable, so it is printed by the rank
// that saw it and ends the job with MPI_Abort.
//
//===----------------------------------------------------------------------===//

// The C API only: no C++ bindings, which Debian's mpi.h would include.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "vmapc/HostBuffer.h"
#include "vmapc/Npy.h"
#include "vmapc/Runtime.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using vmapc::ArgInfo;
using vmapc::Status;
using vmapc::StatusCode;

namespace {

constexpr const char *kTool = "vmapc-mpi-run";

/// The longest part of an error message sent to rank 0 (the rest is cut).
constexpr size_t kMaxMessageBytes = 4096;

//===----------------------------------------------------------------------===//
// MPI calls: every status checked; a failure ends the job.
//===----------------------------------------------------------------------===//

int worldRank = 0;

/// Checks the status of an MPI call. An MPI error may leave the
/// communicator unusable (a peer that is gone, a message cut short), so no
/// collective agreement is attempted: the rank prints what failed and calls
/// MPI_Abort, which ends every rank with a non-zero status.
void checkMpi(int rc, const char *call, const std::string &what = "") {
  if (rc == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS)
    std::snprintf(text, sizeof text, "MPI error %d", rc);
  std::fprintf(stderr,
               "%s: error: rank %d: %s%s%s failed: %s (aborting every "
               "rank)\n",
               kTool, worldRank, call, what.empty() ? "" : " of ", what.c_str(),
               text);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1); // MPI_Abort does not return; this is for the compiler.
}

Status invalid(std::string message) {
  return Status::error(StatusCode::kInvalidArgument, std::move(message));
}

//===----------------------------------------------------------------------===//
// The ranks
//===----------------------------------------------------------------------===//

struct World {
  int rank = 0;
  int size = 1;
  /// This rank among the ranks of its node (MPI_COMM_TYPE_SHARED).
  int localRank = 0;
  int localSize = 1;
  /// This rank's share of the hardware threads it may run on, which the
  /// ranks of its node may run on too: the sum over its CPUs of 1 / (the
  /// number of local ranks that may run there), at least 1.
  unsigned cpuShare = 1;
  std::string host;
};

/// The hardware threads this process may run on, as the runtime counts them
/// for `cpu` (sched_getaffinity).
bool affinity(cpu_set_t *set) {
  CPU_ZERO(set);
  return sched_getaffinity(0, sizeof *set, set) == 0 && CPU_COUNT(set) > 0;
}

World makeWorld() {
  World w;
  checkMpi(MPI_Comm_rank(MPI_COMM_WORLD, &w.rank), "MPI_Comm_rank");
  checkMpi(MPI_Comm_size(MPI_COMM_WORLD, &w.size), "MPI_Comm_size");
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int hostLength = 0;
  checkMpi(MPI_Get_processor_name(host, &hostLength), "MPI_Get_processor_name");
  w.host.assign(host, size_t(hostLength));

  MPI_Comm local;
  checkMpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w.rank,
                               MPI_INFO_NULL, &local),
           "MPI_Comm_split_type", "the ranks of this node");
  checkMpi(MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN),
           "MPI_Comm_set_errhandler");
  checkMpi(MPI_Comm_rank(local, &w.localRank), "MPI_Comm_rank");
  checkMpi(MPI_Comm_size(local, &w.localSize), "MPI_Comm_size");

  // Every rank of the node learns which CPUs the others may use, so that
  // ranks bound to disjoint cores keep theirs (Open MPI binds to cores for
  // K <= 2) and ranks that share CPUs divide them.
  cpu_set_t mine;
  bool known = affinity(&mine);
  std::vector<cpu_set_t> all(size_t(w.localSize));
  checkMpi(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine,
                         MPI_BYTE, local),
           "MPI_Allgather", "the CPU affinity of the node's ranks");
  checkMpi(MPI_Comm_free(&local), "MPI_Comm_free");
  if (!known) {
    unsigned hardware = std::thread::hardware_concurrency();
    w.cpuShare = std::max(1u, hardware / unsigned(w.localSize));
    return w;
  }
  double share = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mine))
      continue;
    int users = 0;
    for (const cpu_set_t &other : all)
      users += CPU_ISSET(cpu, &other) ? 1 : 0;
    share += 1.0 / std::max(users, 1);
  }
  w.cpuShare = std::max(1u, unsigned(share + 1e-9));
  return w;
}

//===----------------------------------------------------------------------===//
// Agreeing on failure
//===----------------------------------------------------------------------===//

/// Gathers one string from every rank on rank 0 (empty elsewhere).
std::vector<std::string> gatherStrings(const World &w, std::string mine) {
  if (mine.size() > kMaxMessageBytes)
    mine = mine.substr(0, kMaxMessageBytes - 3) + "...";
  int length = int(mine.size());
  std::vector<int> lengths(w.rank == 0 ? size_t(w.size) : 0);
  checkMpi(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0,
                      MPI_COMM_WORLD),
           "MPI_Gather", "message lengths");
  // At most K x 4 KiB in all: int offsets hold for K up to half a million.
  std::vector<int> offsets(lengths.size());
  int total = 0;
  for (size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::string all(size_t(total), '\0');
  checkMpi(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(),
                       lengths.data(), offsets.data(), MPI_CHAR, 0,
                       MPI_COMM_WORLD),
           "MPI_Gatherv", "messages");
  std::vector<std::string> out;
  for (size_t r = 0; r < lengths.size(); ++r)
    out.push_back(all.substr(size_t(offsets[r]), size_t(lengths[r])));
  return out;
}

/// "3", "0-3", "0, 2, 5-7".
std::string rankList(const std::vector<int> &ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
      ++j;
    s += (s.empty() ? "" : ", ") + std::to_string(ranks[i]);
    if (j > i)
      s += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return s;
}

/// Every rank calls this after a phase that can fail, with its own status.
/// Returns true when every rank succeeded. Otherwise rank 0 prints, once,
/// each distinct message of the failing ranks with the ranks that gave it
/// (and the host, for one rank) and the status code, and every rank gets
/// false (and exits with status 1).
bool agree(const World &w, const Status &status) {
  int failed = status.ok() ? 0 : 1;
  int anyFailed = 0;
  checkMpi(
      MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD),
      "MPI_Allreduce", "the error flags");
  if (!anyFailed)
    return true;
  // A failing rank sends "HOST\nMESSAGE [CODE]"; the others nothing.
  std::string record;
  if (!status.ok())
    record = w.host + '\n' + status.message() + " [" +
             vmapc::statusCodeName(status.code()) + "]";
  std::vector<std::string> records = gatherStrings(w, record);
  if (w.rank != 0)
    return false;
  auto text = [&](size_t r) {
    return records[r].substr(records[r].find('\n') + 1);
  };
  std::vector<bool> printed(records.size());
  for (size_t r = 0; r < records.size(); ++r) {
    if (records[r].empty() || printed[r])
      continue;
    std::vector<int> ranks;
    for (size_t s = r; s < records.size(); ++s)
      if (!records[s].empty() && !printed[s] && text(s) == text(r)) {
        printed[s] = true;
        ranks.push_back(int(s));
      }
    std::string who =
        ranks.size() == 1
            ? "rank " + std::to_string(r) + " of " + std::to_string(w.size) +
                  " (" + records[r].substr(0, records[r].find('\n')) + ")"
            : "ranks " + rankList(ranks) + " of " + std::to_string(w.size);
    std::fprintf(stderr, "%s: error: %s: %s\n", kTool, who.c_str(),
                 text(r).c_str());
  }
  std::fflush(stderr);
  return false;
}

/// Rank 0 prints `line` of every rank, in rank order (--verbose).
void printFromEveryRank(const World &w, const std::string &line) {
  std::vector<std::string> lines = gatherStrings(w, line);
  for (const std::string &l : lines)
    std::fprintf(stderr, "%s: %s\n", kTool, l.c_str());
  std::fflush(stderr);
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

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

void printUsage() {
  std::printf(
      "usage: mpirun -np K %s FILE.vmapc [--entry NAME] --input X.npy ...\n"
      "           --output Y.npy ... [--device NAME] [--num-examples N] "
      "[--verbose]\n"
      "\n"
      "Runs an entry of a compiled .vmapc artifact on .npy files, as `vmapc "
      "run` does,\n"
      "with the examples split over the MPI ranks (docs/scale-out.md). Rank 0 "
      "reads\n"
      "the inputs and writes the outputs.\n"
      "\n"
      "  --entry NAME        entry to run (default: the only one)\n"
      "  --input X.npy       an input, in declaration order (repeatable)\n"
      "  --output Y.npy      an output, in declaration order (repeatable)\n"
      "  --device NAME       cpu (default; the node's hardware threads divided "
      "among\n"
      "                      its ranks), cpu:threads=K,isa=LEVEL (as given), "
      "cuda (each\n"
      "                      rank on cuda:<its rank within the node>) or "
      "cuda:N (all on N)\n"
      "  --num-examples N    N for an entry that maps no input\n"
      "  --verbose           print each rank's device and examples, and each "
      "transfer\n"
      "  --mpi-max-count C   for testing: the largest count (of bytes or "
      "blocks) given to\n"
      "                      one MPI datatype constructor, 2 to 2147483647 "
      "(default); a\n"
      "                      small C moves small arrays the way arrays over "
      "2^31 bytes move\n",
      kTool);
}

bool parseInteger(const std::string &text, long long min, long long max,
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
Status parseArgs(int argc, char **argv, Options *o) {
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
    return invalid("give a compiled artifact: " + std::string(kTool) +
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
std::string deviceFor(const std::string &requested, const World &w) {
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
// Splitting examples over ranks
//===----------------------------------------------------------------------===//

/// Examples [start, start + count) of N.
struct Share {
  int64_t start = 0;
  int64_t count = 0;
};

/// JAX's split_for_jax_process: N / K each, one more for the first N % K.
Share shareOf(int64_t n, int rank, int size) {
  int64_t base = n / size, extra = n % size;
  return {rank * base + std::min<int64_t>(rank, extra),
          base + (rank < extra ? 1 : 0)};
}

/// How an argument mapped at axis k lies in memory, for an array of M
/// examples: `pre` blocks (the dims before k) of M x `row` bytes (`row`: the
/// bytes of the dims after k and of the element).
struct Layout {
  uint64_t pre = 1;
  uint64_t row = 0;
};

Layout layoutOf(const ArgInfo &arg) {
  Layout l;
  l.row = vmapc::dtypeBytes(arg.dtype);
  for (size_t i = 0; i < arg.shape.size(); ++i)
    (int64_t(i) < arg.mappedAxis ? l.pre : l.row) *= uint64_t(arg.shape[i]);
  return l;
}

/// Copies `count` blocks of `bytes` from `src` to `dst` (rank 0's own
/// share, packed or unpacked without MPI).
void copyBlocks(unsigned char *dst, uint64_t dstStride,
                const unsigned char *src, uint64_t srcStride, uint64_t bytes,
                uint64_t count) {
  for (uint64_t i = 0; i < count; ++i)
    std::memcpy(dst + i * dstStride, src + i * srcStride, bytes);
}

//===----------------------------------------------------------------------===//
// Derived datatypes with no count above the limit
//===----------------------------------------------------------------------===//

/// Makes MPI datatypes for arrays whose byte and block counts may exceed
/// what one `int` count holds. Every count it passes to MPI is at most
/// `limit` (INT_MAX, or --mpi-max-count): a larger one is split into a
/// type of `limit` repeats, repeated in turn (recursively), plus the
/// remainder (MPI_Type_create_struct). Frees every type it made.
class TypeMaker {
public:
  explicit TypeMaker(int limit) : limit(uint64_t(limit)) {}
  ~TypeMaker() {
    for (MPI_Datatype &t : made)
      checkMpi(MPI_Type_free(&t), "MPI_Type_free");
  }
  TypeMaker(const TypeMaker &) = delete;
  TypeMaker &operator=(const TypeMaker &) = delete;

  /// A committed type of `count` blocks of `bytes` bytes, `stride` bytes
  /// apart (one block: `bytes` contiguous bytes).
  MPI_Datatype blocks(uint64_t count, uint64_t bytes, uint64_t stride) {
    MPI_Datatype block = repeat(bytes, MPI_BYTE, 1);
    MPI_Datatype t = count == 1 ? block : repeat(count, block, stride);
    checkMpi(MPI_Type_commit(&t), "MPI_Type_commit");
    return t;
  }
  /// How many counts above the limit were split so far.
  int splits() const { return splitCount; }

private:
  MPI_Datatype keep(MPI_Datatype t) {
    made.push_back(t);
    return t;
  }

  /// `count` copies of `elem`, `stride` bytes apart.
  MPI_Datatype repeat(uint64_t count, MPI_Datatype elem, uint64_t stride) {
    MPI_Aint lb = 0, extent = 0;
    checkMpi(MPI_Type_get_extent(elem, &lb, &extent), "MPI_Type_get_extent");
    MPI_Datatype t;
    if (count <= limit) {
      if (uint64_t(extent) == stride)
        checkMpi(MPI_Type_contiguous(int(count), elem, &t),
                 "MPI_Type_contiguous");
      else
        checkMpi(
            MPI_Type_create_hvector(int(count), 1, MPI_Aint(stride), elem, &t),
            "MPI_Type_create_hvector");
      return keep(t);
    }
    // count = q x limit + r: q repeats of (limit repeats), then r.
    ++splitCount;
    uint64_t q = count / limit, r = count % limit;
    MPI_Datatype inner = repeat(limit, elem, stride);
    MPI_Datatype outer = repeat(q, inner, limit * stride);
    if (r == 0)
      return outer;
    MPI_Datatype rest = repeat(r, elem, stride);
    int lengths[2] = {1, 1};
    MPI_Aint displacements[2] = {0, MPI_Aint(q * limit * stride)};
    MPI_Datatype types[2] = {outer, rest};
    checkMpi(MPI_Type_create_struct(2, lengths, displacements, types, &t),
             "MPI_Type_create_struct");
    return keep(t);
  }

  uint64_t limit;
  int splitCount = 0;
  std::vector<MPI_Datatype> made;
};

/// Collects non-blocking transfers and waits for them.
class Requests {
public:
  MPI_Request *add() {
    list.emplace_back();
    return &list.back();
  }
  void waitAll(const char *what) {
    std::vector<MPI_Status> statuses(list.size());
    int rc = MPI_Waitall(int(list.size()), list.data(), statuses.data());
    if (rc == MPI_ERR_IN_STATUS)
      for (const MPI_Status &s : statuses)
        if (s.MPI_ERROR != MPI_SUCCESS && s.MPI_ERROR != MPI_ERR_PENDING)
          rc = s.MPI_ERROR;
    checkMpi(rc, "MPI_Waitall", what);
    list.clear();
  }

private:
  std::vector<MPI_Request> list;
};

//===----------------------------------------------------------------------===//
// Rank 0's inputs
//===----------------------------------------------------------------------===//

std::string dimsString(const std::vector<int64_t> &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

/// "[N, 64] (axis 0 mapped, N = 5)" / "[64] (unmapped)", as the runtime says.
std::string expectedString(const ArgInfo &arg, int64_t n) {
  std::vector<int64_t> dims = vmapc::batchedShape(arg, n);
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + (arg.isMapped() && int64_t(i) == arg.mappedAxis
                                ? std::string("N")
                                : std::to_string(dims[i]));
  s += "]";
  if (!arg.isMapped())
    return s + " (unmapped)";
  return s + " (axis " + std::to_string(arg.mappedAxis) +
         " mapped, N = " + std::to_string(n) + ")";
}

/// N: the size of the mapped inputs' batch axis, or --num-examples for an
/// entry that maps no input (`vmapc run`'s rule and messages).
Status numExamples(const vmapc::EntryInfo &entry, const Options &o,
                   const std::vector<vmapc::NpyArray> &inputs, int64_t *n) {
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
Status checkInputs(const vmapc::EntryInfo &entry, const Options &o,
                   const std::vector<vmapc::NpyArray> &inputs, int64_t n) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ArgInfo &info = entry.inputs[i];
    const vmapc::NpyArray &array = inputs[i];
    std::string where = o.inputs[i] + ": input '" + info.name + "': ";
    if (array.dtype != info.dtype)
      return invalid(where + "expected dtype " + vmapc::dtypeName(info.dtype) +
                     ", got " + vmapc::dtypeName(array.dtype));
    if (array.shape != vmapc::batchedShape(info, n))
      return invalid(where + "expected shape " + expectedString(info, n) +
                     ", got " + dimsString(array.shape));
  }
  return Status();
}

/// Rank 0: reads the inputs, finds N, checks the inputs and allocates the
/// outputs of all N examples (with `vmapc run`'s memory checks).
Status readInputs(const vmapc::EntryInfo &entry, const Options &o,
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

/// One argument as this rank runs it: its own array, or (rank 0, axis 0 or
/// unmapped) a view of the whole array.
struct LocalArg {
  vmapc::NpyArray own;
  unsigned char *data = nullptr;
  std::vector<int64_t> shape;
  bool inPlace = false;
};

/// Allocates what this rank runs on: its share of each mapped argument, a
/// copy of each unmapped input (not on rank 0), a buffer for each unmapped
/// output (rank 0: the output itself).
Status makeLocalArgs(const World &w, const std::vector<ArgInfo> &args,
                     const char *kind, std::vector<vmapc::NpyArray> *whole,
                     Share share, std::vector<LocalArg> *local) {
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
std::string splitsText(int splits) {
  if (splits == 0)
    return "";
  return " (" + std::to_string(splits) + (splits == 1 ? " count" : " counts") +
         " over the limit split into nested types)";
}

/// For --verbose: "examples [4, 8), 3 blocks of 48 bytes 132 bytes apart".
std::string describeSlice(const Layout &l, Share s, int64_t n) {
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
void forEachSlice(const World &w, const Options &o, TypeMaker &types,
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
          stderr, "%s: %s %s (axis %d), rank %d: %s\n", kTool, verb,
          what.c_str(), arg.mappedAxis, r,
          (describeSlice(layout, s, n) + splitsText(types.splits() - before))
              .c_str());
  }
}

/// The bytes of this rank's share of a mapped argument (0 for an empty one).
uint64_t shareBytes(const ArgInfo &arg, Share s) {
  Layout layout = layoutOf(arg);
  return layout.pre * uint64_t(s.count) * layout.row;
}

/// Broadcasts the unmapped inputs, then scatters the mapped ones.
void sendInputs(const World &w, const Options &o, const vmapc::EntryInfo &entry,
                std::vector<vmapc::NpyArray> &whole,
                std::vector<LocalArg> &local, int64_t n) {
  TypeMaker types(o.maxCount);
  for (size_t i = 0; i < entry.inputs.size(); ++i) {
    const ArgInfo &arg = entry.inputs[i];
    uint64_t bytes = shareBytes(arg, {0, 1});
    if (arg.isMapped() || bytes == 0 || w.size == 1)
      continue;
    std::string what = "input '" + arg.name + "'";
    int before = types.splits();
    MPI_Datatype type = types.blocks(1, bytes, bytes);
    checkMpi(MPI_Bcast(local[i].data, 1, type, 0, MPI_COMM_WORLD), "MPI_Bcast",
             what);
    if (o.verbose && w.rank == 0)
      std::fprintf(stderr, "%s: broadcast %s: %llu bytes%s\n", kTool,
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
    if (w.rank != 0) {
      uint64_t bytes = shareBytes(arg, mine);
      if (bytes == 0)
        continue;
      checkMpi(MPI_Irecv(local[i].data, 1, types.blocks(1, bytes, bytes), 0,
                         tag, MPI_COMM_WORLD, requests.add()),
               "MPI_Irecv", what);
      continue;
    }
    if (shareBytes(arg, {0, n}) == 0)
      continue;
    Layout layout = layoutOf(arg);
    if (!local[i].inPlace)
      copyBlocks(local[i].data, uint64_t(mine.count) * layout.row,
                 whole[i].data.data(), uint64_t(n) * layout.row,
                 uint64_t(mine.count) * layout.row, layout.pre);
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
void gatherOutputs(const World &w, const Options &o,
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
    if (w.rank != 0) {
      uint64_t bytes = shareBytes(arg, mine);
      if (bytes == 0)
        continue;
      checkMpi(MPI_Isend(local[i].data, 1, types.blocks(1, bytes, bytes), 0,
                         tag, MPI_COMM_WORLD, requests.add()),
               "MPI_Isend", what);
      continue;
    }
    if (shareBytes(arg, {0, n}) == 0)
      continue;
    Layout layout = layoutOf(arg);
    if (!local[i].inPlace)
      copyBlocks(whole[i].data.data(), uint64_t(n) * layout.row, local[i].data,
                 uint64_t(mine.count) * layout.row,
                 uint64_t(mine.count) * layout.row, layout.pre);
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

std::vector<vmapc::HostArray> inputViews(const vmapc::EntryInfo &entry,
                                         const std::vector<LocalArg> &local) {
  std::vector<vmapc::HostArray> views;
  for (size_t i = 0; i < local.size(); ++i)
    views.push_back(
        {local[i].data, entry.inputs[i].dtype, vmapc::Shape(local[i].shape)});
  return views;
}

std::vector<vmapc::MutableHostArray>
outputViews(const vmapc::EntryInfo &entry, const std::vector<LocalArg> &local) {
  std::vector<vmapc::MutableHostArray> views;
  for (size_t i = 0; i < local.size(); ++i)
    views.push_back(
        {local[i].data, entry.outputs[i].dtype, vmapc::Shape(local[i].shape)});
  return views;
}

/// "e(x: f32[3] axis 1, w: f32[3, 2] unmapped) -> (y: f32[2] axis 0)".
std::string signature(const vmapc::EntryInfo &e) {
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
Status checkSameEntry(const Options &o, const vmapc::EntryInfo &info) {
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
int runJob(int argc, char **argv) {
  World w = makeWorld();
  worldRank = w.rank;

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
    status = invalid("entry '" + entry->name() + "' takes " +
                     std::to_string(entry->numInputs()) + " inputs, got " +
                     std::to_string(o.inputs.size()) + " --input files");
  if (status.ok() && o.outputs.size() != entry->numOutputs())
    status = invalid("entry '" + entry->name() + "' has " +
                     std::to_string(entry->numOutputs()) + " outputs, got " +
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

} // namespace

int main(int argc, char **argv) {
  // MPI_Init's own failure is fatal by MPI's default (MPI_ERRORS_ARE_FATAL);
  // from here on MPI returns errors and checkMpi handles them. FUNNELED: the
  // runtime's worker threads never call MPI.
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) !=
      MPI_SUCCESS) {
    std::fprintf(stderr, "%s: error: MPI_Init_thread failed\n", kTool);
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
                   kTool);
  } else {
    exitCode = runJob(argc, argv);
  }
  checkMpi(MPI_Finalize(), "MPI_Finalize");
  return exitCode;
}
