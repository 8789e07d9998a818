//===- GpuCheck.cpp - vmapc-gpu-check: GPU results against the CPU's ------===//
//
//   vmapc-gpu-check --checks FILE --artifacts DIR [--device NAME]
//                   [--reference NAME] [--reference-artifacts DIR]
//                   [--seed S] [--filter TEXT] [--host-arrays-only]
//
// Runs every line of the test table (Checks.h; test/gpu/checks.txt) on two
// devices and compares the outputs: the artifact is loaded on --device
// (default cuda:0) and on --reference (default cpu; a CPU device takes
// DIR/cpu/NAME.vmapc where test/gpu/prepare.sh had to compile the CPU code
// apart), the inputs are filled with fresh random data of the line's kind
// (HostData.h; the seed is printed and --seed repeats a run), the outputs
// are poisoned before each run (a different pattern on each side), and each
// output of the device is compared with the reference's within the line's
// tolerance. On a CUDA
// device each line runs twice: with host arrays (the runtime stages them)
// and with device arrays (RunOptions::deviceArrays, on a stream of this
// program's), the device outputs poisoned the same way first.
//
// --reference-artifacts DIR takes the reference's artifacts from another
// folder (the same entries, compiled from other programs: how the tests show
// that a difference is caught). --filter runs the lines whose program or
// entry contains TEXT. --host-arrays-only skips the device-array runs.
//
// Prints one line per check: "ok" or "FAIL", the artifact and entry, N and
// the data kind, then each output's largest error (f32: max |device -
// reference| and, for a tolerance other than exact, the fraction of the
// allowed error it uses; i32/bool: the count of elements that differ); a
// failing output also shows its first bad element. A last line counts them.
// The first load of each artifact on the device prints the code it runs
// ("load  x.vmapc on cuda:0: sm_90 (cubin)").
// On a CUDA device it also checks that the runtime made no device
// allocation after loading (Stats::deviceAllocations).
//
// Exit status: 0 when every check passes, 1 when one fails (a mismatch, an
// artifact that does not load, a run that returns an error), 2 when nothing
// could be checked (bad arguments, a malformed table, a device refused).
//
//===----------------------------------------------------------------------===//

#include "Checks.h"
#include "CudaDriver.h"
#include "HostData.h"

#include "vmapc/Npy.h"
#include "vmapc/Runtime.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace vmapc::gpuhost;

namespace {

struct Options {
  std::string checks;
  std::string artifacts;
  std::string referenceArtifacts;
  std::string device = "cuda:0";
  std::string reference = "cpu";
  std::string filter;
  bool seedGiven = false;
  uint64_t seed = 0;
  bool hostArraysOnly = false;
};

void usage(std::FILE *to) {
  std::fprintf(to, "usage: vmapc-gpu-check --checks FILE --artifacts DIR "
                   "[--device NAME]\n"
                   "                       [--reference NAME] "
                   "[--reference-artifacts DIR]\n"
                   "                       [--seed S] [--filter TEXT] "
                   "[--host-arrays-only]\n"
                   "Runs each check of FILE on --device (default cuda:0) and "
                   "--reference (default\ncpu) and compares the outputs. See "
                   "test/gpu/host/GpuCheck.cpp.\n");
}

int setupError(const std::string &message) {
  std::fprintf(stderr, "vmapc-gpu-check: error: %s\n", message.c_str());
  return 2;
}

bool parseArgs(int argc, char **argv, Options *o, bool *help,
               std::string *error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      *help = true;
      return true;
    }
    if (arg == "--host-arrays-only") {
      o->hostArraysOnly = true;
      continue;
    }
    static const char *const kValueOptions[] = {
        "--checks", "--artifacts", "--reference-artifacts",
        "--device", "--reference", "--seed",
        "--filter"};
    std::string value;
    size_t eq = arg.find('=');
    bool inlineValue = arg.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inlineValue) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    bool known = false;
    for (const char *name : kValueOptions)
      known |= arg == name;
    if (!known) {
      *error = "unknown argument '" + arg + "' (--help lists the options)";
      return false;
    }
    if (!inlineValue) {
      if (i + 1 >= argc) {
        *error = "option '" + arg + "' needs a value";
        return false;
      }
      value = argv[++i];
    }
    if (arg == "--checks") {
      o->checks = value;
    } else if (arg == "--artifacts") {
      o->artifacts = value;
    } else if (arg == "--reference-artifacts") {
      o->referenceArtifacts = value;
    } else if (arg == "--device") {
      o->device = value;
    } else if (arg == "--reference") {
      o->reference = value;
    } else if (arg == "--filter") {
      o->filter = value;
    } else if (arg == "--seed") {
      char *end = nullptr;
      errno = 0;
      unsigned long long s = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || errno != 0 || value[0] == '-') {
        *error = "option '--seed' wants an integer >= 0, got '" + value + "'";
        return false;
      }
      o->seed = s;
      o->seedGiven = true;
    }
  }
  if (o->checks.empty() || o->artifacts.empty()) {
    *error = "--checks and --artifacts are required";
    return false;
  }
  if (o->referenceArtifacts.empty())
    o->referenceArtifacts = o->artifacts;
  return true;
}

/// The ordinal of a "cuda" / "cuda:N" device name, or -1 for another name.
int cudaOrdinal(const std::string &name) {
  if (name == "cuda")
    return 0;
  if (name.rfind("cuda:", 0) != 0)
    return -1;
  char *end = nullptr;
  long n = std::strtol(name.c_str() + 5, &end, 10);
  return *end == '\0' && n >= 0 && n < 1 << 20 ? static_cast<int>(n) : -1;
}

/// Executables loaded once per (device, artifact path).
class Loader {
public:
  /// `announce`: print each first load, its path relative to `root`.
  Loader(const vmapc::Device &device, bool announce, std::string root)
      : device(device), announce(announce), root(std::move(root)) {}
  vmapc::Status get(const std::string &path, vmapc::Executable **out) {
    auto it = loaded.find(path);
    if (it == loaded.end()) {
      std::unique_ptr<vmapc::Executable> exe;
      VMAPC_RETURN_IF_ERROR(vmapc::Executable::loadFile(device, path, &exe));
      if (announce)
        std::printf("load  %s on %s: %s\n",
                    path.rfind(root + "/", 0) == 0
                        ? path.substr(root.size() + 1).c_str()
                        : path.c_str(),
                    device.name().c_str(), exe->codeLevel().c_str());
      Loaded l;
      l.exe = std::move(exe);
      l.statsAfterLoad = l.exe->stats();
      it = loaded.emplace(path, std::move(l)).first;
    }
    *out = it->second.exe.get();
    return {};
  }
  struct Loaded {
    std::unique_ptr<vmapc::Executable> exe;
    vmapc::Stats statsAfterLoad;
  };
  std::map<std::string, Loaded> loaded;

private:
  vmapc::Device device;
  bool announce;
  std::string root;
};

/// The arrays of one run: inputs shared, outputs per side.
struct Arrays {
  std::vector<vmapc::NpyArray> inputs;
  std::vector<vmapc::NpyArray> outputs;
};

vmapc::Status makeOutputs(const vmapc::EntryInfo &info, int64_t n,
                          unsigned char poison,
                          std::vector<vmapc::NpyArray> *out) {
  out->clear();
  out->resize(info.outputs.size());
  for (size_t i = 0; i < info.outputs.size(); ++i) {
    const vmapc::ArgInfo &arg = info.outputs[i];
    VMAPC_RETURN_IF_ERROR(vmapc::NpyArray::zeros(arg.dtype,
                                                 vmapc::batchedShape(arg, n),
                                                 &(*out)[i])
                              .withPrefix("output '" + arg.name + "': "));
    std::memset((*out)[i].data.data(), poison, (*out)[i].data.size());
  }
  return {};
}

vmapc::Status runHost(vmapc::Executable *exe, const vmapc::Entry &entry,
                      const std::vector<vmapc::NpyArray> &inputs,
                      std::vector<vmapc::NpyArray> *outputs) {
  std::vector<vmapc::HostArray> in;
  std::vector<vmapc::MutableHostArray> out;
  for (const vmapc::NpyArray &a : inputs)
    in.push_back(a.view());
  for (vmapc::NpyArray &a : *outputs)
    out.push_back(a.mutableView());
  return exe->run(entry, in, out);
}

/// Runs with device arrays on `stream`: inputs copied to the device,
/// outputs poisoned there and copied back into `outputs` afterwards.
vmapc::Status runDeviceArrays(const CudaDriver &cuda, CUstream stream,
                              vmapc::Executable *exe, const vmapc::Entry &entry,
                              const std::vector<vmapc::NpyArray> &inputs,
                              std::vector<vmapc::NpyArray> *outputs) {
  auto cudaError = [](const std::string &message) {
    return vmapc::Status::error(vmapc::StatusCode::kInternal, message);
  };
  std::string error;
  std::vector<DeviceBuffer> din(inputs.size()), dout(outputs->size());
  std::vector<vmapc::HostArray> in;
  std::vector<vmapc::MutableHostArray> out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const vmapc::NpyArray &a = inputs[i];
    if (!din[i].allocate(cuda, a.data.size(), &error) ||
        !cuda.upload(din[i].address(), a.data.data(), a.data.size(), stream,
                     &error))
      return cudaError(error);
    in.push_back({din[i].pointer(), a.dtype, vmapc::Shape(a.shape)});
  }
  // The outputs as makeOutputs poisoned them on the host.
  for (size_t i = 0; i < outputs->size(); ++i) {
    vmapc::NpyArray &a = (*outputs)[i];
    if (!dout[i].allocate(cuda, a.data.size(), &error) ||
        !cuda.upload(dout[i].address(), a.data.data(), a.data.size(), stream,
                     &error))
      return cudaError(error);
    out.push_back({dout[i].pointer(), a.dtype, vmapc::Shape(a.shape)});
  }
  vmapc::RunOptions options;
  options.deviceArrays = true;
  options.stream = stream;
  VMAPC_RETURN_IF_ERROR(exe->run(entry, in, out, options));
  if (!cuda.check(cuda.cuStreamSynchronize(stream), "cuStreamSynchronize",
                  &error))
    return cudaError(error);
  for (size_t i = 0; i < outputs->size(); ++i) {
    vmapc::NpyArray &a = (*outputs)[i];
    if (a.data.size() &&
        !cuda.check(
            cuda.cuMemcpyDtoH(a.data.data(), dout[i].address(), a.data.size()),
            "cuMemcpyDtoH", &error))
      return cudaError(error);
  }
  return {};
}

std::string errorText(const Comparison &c, vmapc::DType dtype) {
  char buf[64];
  if (dtype != vmapc::DType::F32) {
    std::snprintf(buf, sizeof buf, "%.0f differ", c.maxError);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.3g", c.maxError);
  return buf;
}

/// One check on both devices; prints its line. Returns true when it passed.
bool runCheck(const Check &check, uint64_t seed, Loader &device,
              Loader &reference, const Options &o, const CudaDriver *cuda,
              CUstream stream) {
  std::string label = check.name + "." + check.entry;
  char head[256];
  std::snprintf(head, sizeof head, "%-40s n=%-5" PRId64 " %-8s", label.c_str(),
                check.numExamples, check.dataText.c_str());
  auto failLine = [&](const std::string &why) {
    std::printf("FAIL  %s %s\n", head, why.c_str());
    std::fflush(stdout);
    return false;
  };

  vmapc::Executable *exe = nullptr, *ref = nullptr;
  const vmapc::Entry *entry = nullptr, *refEntry = nullptr;
  vmapc::Status s =
      device.get(artifactPath(o.artifacts, check.name, o.device), &exe);
  std::string refPath =
      artifactPath(o.referenceArtifacts, check.name, o.reference);
  if (s.ok())
    s = reference.get(refPath, &ref).withPrefix("reference: ");
  if (s.ok())
    s = exe->findEntry(check.entry, &entry);
  if (s.ok())
    s = ref->findEntry(check.entry, &refEntry).withPrefix("reference: ");
  if (!s.ok())
    return failLine(s.message());
  const vmapc::EntryInfo &info = entry->info();
  std::string error;
  if (!checkEntry(check, info, &error))
    return failLine(error);
  const vmapc::EntryInfo &refInfo = refEntry->info();
  bool same = info.inputs.size() == refInfo.inputs.size() &&
              info.outputs.size() == refInfo.outputs.size();
  for (size_t i = 0; same && i < info.outputs.size(); ++i)
    same = info.outputs[i].dtype == refInfo.outputs[i].dtype &&
           info.outputs[i].shape == refInfo.outputs[i].shape &&
           info.outputs[i].mappedAxis == refInfo.outputs[i].mappedAxis;
  if (!same)
    return failLine("the reference's entry has other outputs");

  // Inputs: fresh random data, one stream per input.
  std::vector<vmapc::NpyArray> inputs(info.inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const vmapc::ArgInfo &arg = info.inputs[i];
    s = vmapc::NpyArray::zeros(
        arg.dtype, vmapc::batchedShape(arg, check.numExamples), &inputs[i]);
    if (!s.ok())
      return failLine("input '" + arg.name + "': " + s.message());
    fillRandom(inputs[i].data.data(), arg.dtype,
               static_cast<size_t>(inputs[i].numElements()), check.dataKind(i),
               seed * 1000003 + i);
  }

  std::vector<vmapc::NpyArray> expected;
  s = makeOutputs(refInfo, check.numExamples, kReferencePoison, &expected);
  if (s.ok())
    s = runHost(ref, *refEntry, inputs, &expected);
  if (!s.ok())
    return failLine("reference " + o.reference + ": " + s.message());

  struct Mode {
    const char *name;
    bool deviceArrays;
  };
  std::vector<Mode> modes = {{"host arrays", false}};
  if (cuda && !o.hostArraysOnly)
    modes.push_back({"device arrays", true});

  std::vector<double> maxError(info.outputs.size(), 0);
  std::vector<double> worstRatio(info.outputs.size(), 0);
  // Every mode runs, so that a failure says which path broke (staging,
  // binding in place).
  std::vector<std::string> failures, passes;
  for (const Mode &mode : modes) {
    std::string tag = std::string("[") + mode.name + "] ";
    std::vector<vmapc::NpyArray> actual;
    s = makeOutputs(info, check.numExamples, kDevicePoison, &actual);
    if (s.ok())
      s = mode.deviceArrays
              ? runDeviceArrays(*cuda, stream, exe, *entry, inputs, &actual)
              : runHost(exe, *entry, inputs, &actual);
    if (!s.ok()) {
      failures.push_back(tag + o.device + ": " + s.message());
      continue;
    }
    bool modeOk = true;
    for (size_t k = 0; k < info.outputs.size() && modeOk; ++k) {
      const vmapc::ArgInfo &arg = info.outputs[k];
      Tolerance tol = check.tolerance(k, arg.dtype);
      Comparison c =
          compareOutput(actual[k].data.data(), expected[k].data.data(),
                        arg.dtype, actual[k].numElements(), tol);
      if (!c.ok) {
        char why[512];
        std::snprintf(why, sizeof why,
                      "%s: max error %s beyond %s; first at flat index "
                      "%" PRId64 ": %s %s, %s %s",
                      arg.name.c_str(), errorText(c, arg.dtype).c_str(),
                      tol.text.c_str(), c.badIndex, o.device.c_str(),
                      c.deviceValue.c_str(), o.reference.c_str(),
                      c.referenceValue.c_str());
        failures.push_back(tag + why);
        modeOk = false;
        break;
      }
      if (c.maxError > maxError[k])
        maxError[k] = c.maxError;
      if (c.worstRatio > worstRatio[k])
        worstRatio[k] = c.worstRatio;
    }
    if (modeOk)
      passes.push_back(tag + "ok");
  }
  if (!failures.empty()) {
    std::string why;
    for (const std::string &f : failures)
      why += (why.empty() ? "" : "; ") + f;
    for (const std::string &p : passes)
      why += "; " + p;
    return failLine(why);
  }
  std::string errors;
  for (size_t k = 0; k < info.outputs.size(); ++k) {
    const vmapc::ArgInfo &arg = info.outputs[k];
    Comparison c;
    c.maxError = maxError[k];
    errors += (k ? ", " : "") + arg.name + " " + errorText(c, arg.dtype);
    Tolerance tol = check.tolerance(k, arg.dtype);
    if (arg.dtype == vmapc::DType::F32 && !tol.exact) {
      char ratio[64];
      std::snprintf(ratio, sizeof ratio, " (%.2f of %s)", worstRatio[k],
                    tol.text.c_str());
      errors += ratio;
    }
  }
  std::printf("ok    %s %s\n", head, errors.c_str());
  std::fflush(stdout);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  bool help = false;
  std::string error;
  if (!parseArgs(argc, argv, &o, &help, &error)) {
    usage(stderr);
    return setupError(error);
  }
  if (help) {
    usage(stdout);
    return 0;
  }
  std::vector<Check> checks;
  if (!readChecks(o.checks, &checks, &error))
    return setupError(error);
  if (!o.filter.empty()) {
    std::vector<Check> kept;
    for (Check &c : checks)
      if (c.program.find(o.filter) != std::string::npos ||
          c.entry.find(o.filter) != std::string::npos)
        kept.push_back(std::move(c));
    if (kept.empty())
      return setupError("no check matches --filter '" + o.filter + "'");
    checks = std::move(kept);
  }
  if (!o.seedGiven)
    o.seed = std::random_device{}() & 0xffffffffu;

  // The driver first: device arrays need its primary context current.
  std::unique_ptr<CudaDriver> cuda;
  CUstream stream = nullptr;
  int ordinal = cudaOrdinal(o.device);
  if (ordinal >= 0) {
    cuda = CudaDriver::open(ordinal, &error);
    if (!cuda)
      return setupError("no CUDA device: " + error);
    if (!cuda->check(cuda->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                     "cuStreamCreate", &error))
      return setupError(error);
  }
  vmapc::Device device, reference;
  vmapc::Status s = vmapc::Device::open(o.device, &device);
  if (!s.ok())
    return setupError("device '" + o.device + "' refused: " + s.message());
  s = vmapc::Device::open(o.reference, &reference);
  if (!s.ok())
    return setupError("reference device '" + o.reference +
                      "' refused: " + s.message());
  std::printf("device %s, reference %s, seed %" PRIu64 " (--seed %" PRIu64
              " repeats this run)\n",
              device.describe().c_str(), reference.describe().c_str(), o.seed,
              o.seed);
  std::fflush(stdout);

  Loader deviceLoader(device, /*announce=*/true, o.artifacts),
      referenceLoader(reference, /*announce=*/false, o.referenceArtifacts);
  size_t passed = 0, failed = 0;
  for (size_t i = 0; i < checks.size(); ++i) {
    bool ok = runCheck(checks[i], o.seed + i, deviceLoader, referenceLoader, o,
                       cuda.get(), stream);
    (ok ? passed : failed) += 1;
  }

  // Nothing allocated on the device after a load (runtime point 2).
  if (cuda)
    for (const auto &[path, l] : deviceLoader.loaded) {
      uint64_t before = l.statsAfterLoad.deviceAllocations;
      uint64_t after = l.exe->stats().deviceAllocations;
      if (after != before) {
        std::printf("FAIL  %s: %" PRIu64 " device allocations after the "
                    "load, %" PRIu64 " after the runs\n",
                    path.c_str(), before, after);
        ++failed;
      }
    }
  if (stream)
    cuda->cuStreamDestroy(stream);

  std::printf("%zu checks: %zu passed, %zu failed (seed %" PRIu64 ")\n",
              passed + failed, passed, failed, o.seed);
  return failed ? 1 : 0;
}
