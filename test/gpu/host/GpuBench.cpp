//===- GpuBench.cpp - vmapc-gpu-bench: time an entry on the GPU -----------===//
//
//   vmapc-gpu-bench ARTIFACT [--entry NAME] --input X.npy...
//                   [--output Y.npy]... [--device NAME] [--runs K]
//                   [--warmup W]
//   vmapc-gpu-bench --copy-bytes BYTES [--copy-repeats R] [--device cuda:N]
//   vmapc-gpu-bench --probe [--device cuda:N]
//
// The vmapc side of the GPU bench table (bench/gpu_bench.py runs it and the
// JAX side, and prints the table). Prints ONE line of JSON on stdout.
//
// Entry, on a CUDA device (default cuda:0). The inputs (.npy, manifest
// order) are copied to device memory once; the outputs are device buffers
// poisoned with 0xFF bytes. W warm-up calls (default 3), then K timed calls
// (default 20), each `Executable::run` with RunOptions{deviceArrays = true,
// stream = this program's stream}:
//   wall   steady_clock around the run and a cuStreamSynchronize after it
//          (what a caller waits for one call);
//   kernel cuEventElapsedTime between events recorded on the same stream
//          just before and just after the run (what the GPU spent).
// Keys: "times_s", "median_s", "min_s", "kernel_times_s", "kernel_median_s",
// "launches_per_call", "input_bytes", "output_bytes" (all N examples),
// "arena_bytes" (the runtime's device allocation), "peak_device_bytes"
// (inputs + outputs + arena: every byte of device memory the call needs,
// counted as bench/gpu_bench.py counts JAX's), "mem_get_info_delta_bytes"
// (free device memory before the load minus after the buffers, page
// granular: a cross-check), "device_allocations" (the runtime's),
// "code_level", "device". --output writes the last call's outputs.
// On the CPU (--device cpu: the CPU path of test/gpu/check.sh) the inputs
// are host arrays, there is no kernel time, and peak_device_bytes counts the
// same host bytes.
//
// --copy-bytes BYTES: device-to-device copy bandwidth: two buffers of BYTES,
// two warm-up copies, then R (default 20) cuMemcpyDtoDAsync on one stream,
// each timed with events. "copy": {"bytes", "median_s", "median_gbps",
// "best_gbps"} with read + write counted (2 x BYTES per copy), and "gpu"
// (name, sm, multiprocessors, memory and L2 bytes, driver version).
//
// --probe: {"available": true, "gpu": {...}} and exit 0 when device 0 (or
// the --device ordinal) can be used, else {"available": false, "reason":
// "..."} and exit 3.
//
// Exit status: 0 success; 1 any error (message on stderr); 2 when the
// runtime refuses --device ({"device_refused": "..."} on stdout); 3 no GPU
// (--probe, --copy-bytes).
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "Json.h"

#include "vmapc/Npy.h"
#include "vmapc/Runtime.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace vmapc::gpuhost;

namespace {

struct Options {
  std::string artifact;
  std::string entry;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::string device = "cuda:0";
  long runs = 20;
  long warmup = 3;
  uint64_t copyBytes = 0;
  long copyRepeats = 20;
  bool probe = false;
};

int fail(const std::string &message) {
  std::fprintf(stderr, "vmapc-gpu-bench: error: %s\n", message.c_str());
  return 1;
}

void usage(std::FILE *to) {
  std::fprintf(
      to, "usage: vmapc-gpu-bench ARTIFACT [--entry NAME] --input X.npy... "
          "[--output Y.npy]...\n"
          "                       [--device NAME] [--runs K] [--warmup W]\n"
          "       vmapc-gpu-bench --copy-bytes BYTES [--copy-repeats R] "
          "[--device cuda:N]\n"
          "       vmapc-gpu-bench --probe [--device cuda:N]\n"
          "Times an entry with device arrays (wall clock and CUDA events), or "
          "the device-to-\ndevice copy bandwidth; prints one line of JSON. See "
          "test/gpu/host/GpuBench.cpp.\n");
}

bool parseCount(const std::string &text, long long min, long long *out) {
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < min)
    return false;
  *out = v;
  return true;
}

bool parseArgs(int argc, char **argv, Options *o, bool *help,
               std::string *error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      *help = true;
      return true;
    }
    if (arg == "--probe") {
      o->probe = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      if (!o->artifact.empty()) {
        *error = "unexpected argument '" + arg + "' (one artifact only)";
        return false;
      }
      o->artifact = arg;
      continue;
    }
    static const char *const kValueOptions[] = {
        "--entry", "--input",  "--output",     "--device",
        "--runs",  "--warmup", "--copy-bytes", "--copy-repeats"};
    std::string value;
    size_t eq = arg.find('=');
    bool inlineValue = eq != std::string::npos;
    if (inlineValue) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    if (std::none_of(std::begin(kValueOptions), std::end(kValueOptions),
                     [&](const char *o) { return arg == o; })) {
      *error = "unknown option '" + arg + "' (--help lists them)";
      return false;
    }
    if (!inlineValue) {
      if (i + 1 >= argc) {
        *error = "option '" + arg + "' needs a value";
        return false;
      }
      value = argv[++i];
    }
    long long n = 0;
    auto count = [&](long long min) {
      if (parseCount(value, min, &n))
        return true;
      *error = "option '" + arg +
               "' wants an integer >= " + std::to_string(min) + ", got '" +
               value + "'";
      return false;
    };
    if (arg == "--entry") {
      o->entry = value;
    } else if (arg == "--input") {
      o->inputs.push_back(value);
    } else if (arg == "--output") {
      o->outputs.push_back(value);
    } else if (arg == "--device") {
      o->device = value;
    } else if (arg == "--runs") {
      if (!count(1))
        return false;
      o->runs = static_cast<long>(n);
    } else if (arg == "--warmup") {
      if (!count(0))
        return false;
      o->warmup = static_cast<long>(n);
    } else if (arg == "--copy-bytes") {
      if (!count(1))
        return false;
      o->copyBytes = static_cast<uint64_t>(n);
    } else if (arg == "--copy-repeats") {
      if (!count(1))
        return false;
      o->copyRepeats = static_cast<long>(n);
    }
  }
  int modes = !o->artifact.empty() + (o->copyBytes > 0) + o->probe;
  if (modes != 1) {
    *error = "give one of: an artifact, --copy-bytes BYTES, --probe";
    return false;
  }
  if (o->artifact.empty() &&
      (!o->inputs.empty() || !o->outputs.empty() || !o->entry.empty())) {
    *error = "--entry, --input and --output need an artifact";
    return false;
  }
  return true;
}

/// The ordinal of "cuda" / "cuda:N", or -1.
int cudaOrdinal(const std::string &name) {
  if (name == "cuda")
    return 0;
  if (name.rfind("cuda:", 0) != 0)
    return -1;
  char *end = nullptr;
  long n = std::strtol(name.c_str() + 5, &end, 10);
  return *end == '\0' && n >= 0 && n < 1 << 20 ? static_cast<int>(n) : -1;
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void describeGpu(const CudaDriver &cuda, JsonObject *json) {
  CudaDeviceInfo d = cuda.describe();
  JsonObject g;
  g.str("name", d.name)
      .str("sm", "sm_" + std::to_string(d.computeMajor) +
                     std::to_string(d.computeMinor))
      .integer("multiprocessors", static_cast<uint64_t>(d.multiprocessors))
      .integer("memory_bytes", d.totalBytes)
      .integer("l2_bytes", d.l2Bytes)
      .integer("memory_bus_bits", static_cast<uint64_t>(d.memoryBusBits))
      .integer("memory_clock_khz", static_cast<uint64_t>(d.memoryClockKHz))
      .integer("driver_version", static_cast<uint64_t>(d.driverVersion));
  json->raw("gpu", g.done());
}

/// The driver for the --device ordinal; exits 3 (no GPU) via `rc`.
std::unique_ptr<CudaDriver> openDriver(const Options &o, std::string *error) {
  int ordinal = cudaOrdinal(o.device);
  if (ordinal < 0) {
    *error = "--device '" + o.device + "' is not a CUDA device (cuda:N)";
    return nullptr;
  }
  return CudaDriver::open(ordinal, error);
}

int probe(const Options &o) {
  std::string error;
  std::unique_ptr<CudaDriver> cuda = openDriver(o, &error);
  JsonObject json;
  if (!cuda) {
    json.boolean("available", false).str("reason", error);
    std::printf("%s\n", json.done().c_str());
    return 3;
  }
  json.boolean("available", true);
  describeGpu(*cuda, &json);
  std::printf("%s\n", json.done().c_str());
  return 0;
}

int copyBandwidth(const Options &o) {
  std::string error;
  std::unique_ptr<CudaDriver> cuda = openDriver(o, &error);
  if (!cuda) {
    JsonObject json;
    json.boolean("available", false).str("reason", error);
    std::printf("%s\n", json.done().c_str());
    std::fprintf(stderr, "vmapc-gpu-bench: no GPU: %s\n", error.c_str());
    return 3;
  }
  DeviceBuffer from, to;
  CUstream stream = nullptr;
  CUevent start = nullptr, stop = nullptr;
  size_t bytes = static_cast<size_t>(o.copyBytes);
  // The source's contents do not change a copy's speed: left as allocated.
  if (!from.allocate(*cuda, bytes, &error) ||
      !to.allocate(*cuda, bytes, &error) ||
      !cuda->check(cuda->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                   "cuStreamCreate", &error) ||
      !cuda->check(cuda->cuEventCreate(&start, CU_EVENT_DEFAULT),
                   "cuEventCreate", &error) ||
      !cuda->check(cuda->cuEventCreate(&stop, CU_EVENT_DEFAULT),
                   "cuEventCreate", &error))
    return fail(error);
  std::vector<double> seconds;
  for (long r = -2; r < o.copyRepeats; ++r) {
    float ms = 0;
    if (!cuda->check(cuda->cuEventRecord(start, stream), "cuEventRecord",
                     &error) ||
        !cuda->check(cuda->cuMemcpyDtoDAsync(to.address(), from.address(),
                                             bytes, stream),
                     "cuMemcpyDtoDAsync", &error) ||
        !cuda->check(cuda->cuEventRecord(stop, stream), "cuEventRecord",
                     &error) ||
        !cuda->check(cuda->cuEventSynchronize(stop), "cuEventSynchronize",
                     &error) ||
        !cuda->check(cuda->cuEventElapsedTime(&ms, start, stop),
                     "cuEventElapsedTime", &error))
      return fail(error);
    if (r >= 0)
      seconds.push_back(ms * 1e-3);
  }
  cuda->cuEventDestroy(start);
  cuda->cuEventDestroy(stop);
  cuda->cuStreamDestroy(stream);
  double med = median(seconds);
  double best = *std::min_element(seconds.begin(), seconds.end());
  JsonObject copy, json;
  copy.integer("bytes", o.copyBytes)
      .integer("repeats", seconds.size())
      .numbers("times_s", seconds)
      .num("median_s", med)
      .num("median_gbps", 2.0 * static_cast<double>(bytes) / med / 1e9)
      .num("best_gbps", 2.0 * static_cast<double>(bytes) / best / 1e9);
  json.raw("copy", copy.done());
  describeGpu(*cuda, &json);
  std::printf("%s\n", json.done().c_str());
  return 0;
}

//===----------------------------------------------------------------------===//
// The entry.
//===----------------------------------------------------------------------===//

/// Inputs and outputs of one entry, on the host and (CUDA) on the device.
struct Buffers {
  std::vector<vmapc::NpyArray> hostInputs, hostOutputs;
  std::vector<DeviceBuffer> deviceInputs, deviceOutputs;
  std::vector<vmapc::HostArray> in;
  std::vector<vmapc::MutableHostArray> out;
  uint64_t inputBytes = 0, outputBytes = 0;
};

int timeEntry(const Options &o) {
  using Clock = std::chrono::steady_clock;
  std::string error;
  bool onCuda = cudaOrdinal(o.device) >= 0;
  std::unique_ptr<CudaDriver> cuda;
  size_t freeBefore = 0, freeAfter = 0, total = 0;
  if (onCuda) {
    cuda = openDriver(o, &error);
    if (!cuda)
      return fail("no CUDA device: " + error);
    if (cuda->cuMemGetInfo)
      cuda->cuMemGetInfo(&freeBefore, &total);
  }
  vmapc::Device device;
  vmapc::Status status = vmapc::Device::open(o.device, &device);
  if (!status.ok()) {
    std::fprintf(stderr, "vmapc-gpu-bench: device '%s' refused: %s\n",
                 o.device.c_str(), status.message().c_str());
    JsonObject json;
    json.str("device", o.device).str("device_refused", status.message());
    std::printf("%s\n", json.done().c_str());
    return 2;
  }
  std::unique_ptr<vmapc::Executable> exe;
  status = vmapc::Executable::loadFile(device, o.artifact, &exe);
  if (!status.ok())
    return fail(status.message());
  const vmapc::Entry *entry = nullptr;
  if (o.entry.empty()) {
    if (exe->numEntries() != 1)
      return fail("the artifact has " + std::to_string(exe->numEntries()) +
                  " entries; choose one with --entry");
    entry = &exe->entry(0);
  } else if (!(status = exe->findEntry(o.entry, &entry)).ok()) {
    return fail(status.message());
  }
  const vmapc::EntryInfo &info = entry->info();
  if (o.inputs.size() != info.inputs.size())
    return fail("entry '" + info.name + "' takes " +
                std::to_string(info.inputs.size()) +
                (info.inputs.size() == 1 ? " input" : " inputs") + ", got " +
                std::to_string(o.inputs.size()) + " --input files");
  if (!o.outputs.empty() && o.outputs.size() != info.outputs.size())
    return fail("entry '" + info.name + "' has " +
                std::to_string(info.outputs.size()) +
                (info.outputs.size() == 1 ? " output" : " outputs") + ", got " +
                std::to_string(o.outputs.size()) + " --output files");

  Buffers b;
  b.hostInputs.resize(info.inputs.size());
  int64_t n = -1;
  for (size_t i = 0; i < info.inputs.size(); ++i) {
    if (!(status = vmapc::readNpy(o.inputs[i], &b.hostInputs[i])).ok())
      return fail(status.message());
    const vmapc::ArgInfo &arg = info.inputs[i];
    if (n < 0 && arg.isMapped() &&
        b.hostInputs[i].shape.size() == arg.shape.size() + 1)
      n = b.hostInputs[i].shape[static_cast<size_t>(arg.mappedAxis)];
    b.inputBytes += b.hostInputs[i].data.size();
  }
  if (n < 0)
    n = 0;
  b.hostOutputs.resize(info.outputs.size());
  for (size_t i = 0; i < info.outputs.size(); ++i) {
    const vmapc::ArgInfo &arg = info.outputs[i];
    status = vmapc::NpyArray::zeros(arg.dtype, vmapc::batchedShape(arg, n),
                                    &b.hostOutputs[i]);
    if (!status.ok())
      return fail("output '" + arg.name + "': " + status.message());
    std::memset(b.hostOutputs[i].data.data(), 0xFF,
                b.hostOutputs[i].data.size());
    b.outputBytes += b.hostOutputs[i].data.size();
  }

  CUstream stream = nullptr;
  CUevent start = nullptr, stop = nullptr;
  if (onCuda) {
    if (!cuda->check(cuda->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                     "cuStreamCreate", &error) ||
        !cuda->check(cuda->cuEventCreate(&start, CU_EVENT_DEFAULT),
                     "cuEventCreate", &error) ||
        !cuda->check(cuda->cuEventCreate(&stop, CU_EVENT_DEFAULT),
                     "cuEventCreate", &error))
      return fail(error);
    b.deviceInputs.resize(b.hostInputs.size());
    b.deviceOutputs.resize(b.hostOutputs.size());
    for (size_t i = 0; i < b.hostInputs.size(); ++i) {
      const vmapc::NpyArray &a = b.hostInputs[i];
      if (!b.deviceInputs[i].allocate(*cuda, a.data.size(), &error) ||
          !cuda->upload(b.deviceInputs[i].address(), a.data.data(),
                        a.data.size(), stream, &error))
        return fail("input '" + info.inputs[i].name + "': " + error);
      b.in.push_back(
          {b.deviceInputs[i].pointer(), a.dtype, vmapc::Shape(a.shape)});
    }
    // Poisoned: the host outputs hold 0xFF bytes.
    for (size_t i = 0; i < b.hostOutputs.size(); ++i) {
      const vmapc::NpyArray &a = b.hostOutputs[i];
      if (!b.deviceOutputs[i].allocate(*cuda, a.data.size(), &error) ||
          !cuda->upload(b.deviceOutputs[i].address(), a.data.data(),
                        a.data.size(), stream, &error))
        return fail("output '" + info.outputs[i].name + "': " + error);
      b.out.push_back(
          {b.deviceOutputs[i].pointer(), a.dtype, vmapc::Shape(a.shape)});
    }
    if (cuda->cuMemGetInfo)
      cuda->cuMemGetInfo(&freeAfter, &total);
  } else {
    for (const vmapc::NpyArray &a : b.hostInputs)
      b.in.push_back(a.view());
    for (vmapc::NpyArray &a : b.hostOutputs)
      b.out.push_back(a.mutableView());
  }

  // One call: wall clock around run + synchronize; events around the run.
  auto call = [&](double *wall, double *kernel) -> vmapc::Status {
    auto t0 = Clock::now();
    if (!onCuda) {
      VMAPC_RETURN_IF_ERROR(exe->run(*entry, b.in, b.out));
      *wall = std::chrono::duration<double>(Clock::now() - t0).count();
      *kernel = 0;
      return {};
    }
    vmapc::RunOptions options;
    options.deviceArrays = true;
    options.stream = stream;
    float ms = 0;
    std::string e;
    if (!cuda->check(cuda->cuEventRecord(start, stream), "cuEventRecord", &e))
      return vmapc::Status::error(vmapc::StatusCode::kInternal, e);
    VMAPC_RETURN_IF_ERROR(exe->run(*entry, b.in, b.out, options));
    if (!cuda->check(cuda->cuEventRecord(stop, stream), "cuEventRecord", &e) ||
        !cuda->check(cuda->cuStreamSynchronize(stream), "cuStreamSynchronize",
                     &e))
      return vmapc::Status::error(vmapc::StatusCode::kInternal, e);
    *wall = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!cuda->check(cuda->cuEventElapsedTime(&ms, start, stop),
                     "cuEventElapsedTime", &e))
      return vmapc::Status::error(vmapc::StatusCode::kInternal, e);
    *kernel = ms * 1e-3;
    return {};
  };

  for (long w = 0; w < o.warmup; ++w) {
    double wall, kernel;
    if (!(status = call(&wall, &kernel)).ok())
      return fail(status.message());
  }
  uint64_t launchesBefore = exe->stats().launches;
  std::vector<double> walls, kernels;
  for (long r = 0; r < o.runs; ++r) {
    double wall, kernel;
    if (!(status = call(&wall, &kernel)).ok())
      return fail(status.message());
    walls.push_back(wall);
    kernels.push_back(kernel);
  }
  vmapc::Stats stats = exe->stats();
  uint64_t launches = stats.launches - launchesBefore;

  for (size_t i = 0; i < o.outputs.size(); ++i) {
    vmapc::NpyArray &a = b.hostOutputs[i];
    if (onCuda && a.data.size() &&
        !cuda->check(cuda->cuMemcpyDtoH(a.data.data(),
                                        b.deviceOutputs[i].address(),
                                        a.data.size()),
                     "cuMemcpyDtoH", &error))
      return fail(error);
    status = vmapc::writeNpy(o.outputs[i], a.dtype, a.shape, a.data.data());
    if (!status.ok())
      return fail(status.message());
  }
  if (onCuda) {
    cuda->cuEventDestroy(start);
    cuda->cuEventDestroy(stop);
    cuda->cuStreamDestroy(stream);
  }

  JsonObject json;
  json.str("artifact", o.artifact)
      .str("entry", info.name)
      .str("device", device.describe())
      .str("code_level", exe->codeLevel())
      .integer("batch", entry->batchSize())
      .integer("num_examples", static_cast<uint64_t>(n))
      .integer("runs", walls.size())
      .integer("warmup", static_cast<uint64_t>(o.warmup))
      .numbers("times_s", walls)
      .num("median_s", median(walls))
      .num("min_s", *std::min_element(walls.begin(), walls.end()));
  if (onCuda)
    json.numbers("kernel_times_s", kernels)
        .num("kernel_median_s", median(kernels));
  else
    json.raw("kernel_median_s", "null");
  json.num("launches_per_call",
           static_cast<double>(launches) / static_cast<double>(walls.size()))
      .integer("input_bytes", b.inputBytes)
      .integer("output_bytes", b.outputBytes)
      .integer("arena_bytes", stats.arenaBytes)
      .integer("peak_device_bytes",
               b.inputBytes + b.outputBytes + stats.arenaBytes)
      .boolean("device_arrays", onCuda);
  if (onCuda) {
    if (cuda->cuMemGetInfo)
      json.integer("mem_get_info_delta_bytes",
                   freeBefore > freeAfter ? freeBefore - freeAfter : 0);
    json.integer("device_allocations", stats.deviceAllocations);
  }
  std::printf("%s\n", json.done().c_str());
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  bool help = false;
  std::string error;
  if (argc == 1) {
    usage(stderr);
    return fail("give one of: an artifact, --copy-bytes BYTES, --probe");
  }
  if (!parseArgs(argc, argv, &o, &help, &error))
    return fail(error);
  if (help) {
    usage(stdout);
    return 0;
  }
  if (o.probe)
    return probe(o);
  if (o.copyBytes > 0)
    return copyBandwidth(o);
  return timeEntry(o);
}
