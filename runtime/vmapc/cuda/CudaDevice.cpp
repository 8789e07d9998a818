//===- CudaDevice.cpp - the CUDA device: opening it and loading code ------===//

#include "vmapc/cuda/CudaDevice.h"

#include "vmapc/cuda/CudaBackend.h"

#include "vmapc/ArtifactDescriptors.h"
#include "vmapc/ArtifactValidator.h"
#include "vmapc/HostBuffer.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstring>
#include <optional>

namespace vmapc {
namespace cuda {

namespace {

/// Dynamic shared memory a kernel gets without opting in (bytes).
constexpr uint32_t kDefaultSharedBytes = 48 << 10;
/// Room for the PTX JIT's error log (bytes).
constexpr size_t kJitLogBytes = 16 << 10;

Status failedPrecondition(std::string message) {
  return Status::error(StatusCode::kFailedPrecondition, std::move(message));
}

/// The number in "sm_90" (90); the validator checked the form.
int smNumber(const std::string &level) {
  int value = 0;
  for (size_t i = 3; i < level.size(); ++i)
    value = value * 10 + (level[i] - '0');
  return value;
}

/// Parses the ordinal of "cuda:N" (empty: 0).
bool parseOrdinal(std::string_view text, int *out) {
  if (text.empty()) {
    *out = 0;
    return true;
  }
  if (text.size() > 4)
    return false;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    value = value * 10 + (c - '0');
  }
  *out = value;
  return true;
}

} // namespace

Status openCudaDevice(std::string_view options,
                      std::shared_ptr<backend::Device> *out) {
  int ordinal = 0;
  if (!parseOrdinal(options, &ordinal))
    return Status::error(StatusCode::kInvalidArgument,
                         "cuda device: 'cuda:" + std::string(options) +
                             "': the device is 'cuda' or 'cuda:N' with N a "
                             "GPU number (0, 1, ...)");
  std::shared_ptr<const Driver> driver;
  VMAPC_RETURN_IF_ERROR(Driver::load(&driver));
  const DriverApi &api = driver->api();
  std::string spec = "cuda:" + std::to_string(ordinal);
  if (CUresult r = api.init(0))
    return driver->error(r, "no CUDA device: cuInit failed")
        .withCode(StatusCode::kUnavailable);
  int count = 0;
  if (CUresult r = api.deviceGetCount(&count))
    return driver->error(r, "no CUDA device: cuDeviceGetCount failed")
        .withCode(StatusCode::kUnavailable);
  if (ordinal >= count)
    return Status::error(StatusCode::kNotFound,
                         "no CUDA device: " + spec + " does not exist (" +
                             std::to_string(count) +
                             (count == 1 ? " device)" : " devices)"));

  auto device = std::make_shared<CudaDevice>();
  device->driver = driver;
  device->ordinal = ordinal;
  VMAPC_RETURN_IF_ERROR(
      driver->check(api.deviceGet(&device->device, ordinal), "cuDeviceGet"));
  char name[256] = {};
  VMAPC_RETURN_IF_ERROR(
      driver->check(api.deviceGetName(name, sizeof(name) - 1, device->device),
                    "cuDeviceGetName"));
  device->name = name;
  DeviceLimits &l = device->limits;
  struct Attribute {
    CUdevice_attribute attribute;
    const char *what;
    int64_t *out;
  };
  int64_t values[11] = {};
  const Attribute attributes[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability",
       &values[0]},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability",
       &values[1]},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "grid size", &values[2]},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "grid size", &values[3]},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, "grid size", &values[4]},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, "block size", &values[5]},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, "block size", &values[6]},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, "block size", &values[7]},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "threads per block",
       &values[8]},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       "shared memory per block", &values[9]},
      {CU_DEVICE_ATTRIBUTE_MAX_PITCH, "copy pitch", &values[10]},
  };
  for (const Attribute &a : attributes) {
    int value = 0;
    VMAPC_RETURN_IF_ERROR(driver->check(
        api.deviceGetAttribute(&value, a.attribute, device->device),
        "cuDeviceGetAttribute"));
    // The driver's ints are never negative; read one as 0 if it were.
    *a.out = std::max(value, 0);
  }
  l.computeMajor = int(values[0]);
  l.computeMinor = int(values[1]);
  for (int d = 0; d < 3; ++d) {
    l.maxGrid[d] = uint64_t(values[2 + d]);
    l.maxBlock[d] = uint32_t(values[5 + d]);
  }
  l.maxThreadsPerBlock = uint32_t(values[8]);
  l.maxSharedOptIn = uint32_t(values[9]);
  l.maxPitch = uint64_t(values[10]);
  VMAPC_RETURN_IF_ERROR(driver->check(
      api.devicePrimaryCtxRetain(&device->context, device->device),
      "cuDevicePrimaryCtxRetain"));
  *out = std::move(device);
  return Status();
}

CudaDevice::~CudaDevice() {
  if (context)
    (void)driver->api().devicePrimaryCtxRelease(device);
}

std::string CudaDevice::describe() const {
  return spec() + ": " + name + " (" + limits.architecture() +
         "), CUDA driver " + driver->versionString();
}

namespace {

Status dataLoss(std::string message) {
  return Status::error(StatusCode::kDataLoss, std::move(message));
}

/// Loads one CUDA code object into `*module`. The error names the object
/// and the call; for PTX it ends with the JIT's error log.
Status loadModule(const Driver &driver, const CodeObject &object,
                  std::string_view code, CUmodule *module) {
  const DriverApi &api = driver.api();
  bool cubin = object.kind == CodeKind::CudaCubin;
  std::string what = (cubin ? "cubin " : "PTX ") + object.level;
  // The driver reads PTX up to a NUL byte, which the artifact does not
  // store, and wants an aligned ELF image: both are copied.
  std::string image(code);
  if (cubin)
    return driver.check(api.moduleLoadData(module, image.data()),
                        (what + ": cuModuleLoadData").c_str());
  std::string log(kJitLogBytes, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log.data(), reinterpret_cast<void *>(log.size() - 1)};
  CUresult r = api.moduleLoadDataEx(module, image.c_str(), 2, options, values);
  if (r == CUDA_SUCCESS)
    return Status();
  log.resize(std::strlen(log.c_str()));
  while (!log.empty() && std::isspace(static_cast<unsigned char>(log.back())))
    log.pop_back();
  Status s = driver.error(r, what + ": cuModuleLoadDataEx (PTX JIT)");
  return Status::error(s.code(),
                       s.message() + (log.empty() ? "; the JIT log is empty"
                                                  : "; JIT log: " + log));
}

/// Reads up to `want` bytes of the module global `symbol` into `*out`
/// (fewer if the global is smaller).
Status readGlobal(const Driver &driver, CUmodule module,
                  const std::string &symbol, size_t want,
                  std::vector<unsigned char> *out) {
  const DriverApi &api = driver.api();
  CUdeviceptr address = 0;
  size_t bytes = 0;
  CUresult r = api.moduleGetGlobal(&address, &bytes, module, symbol.c_str());
  if (r == CUDA_ERROR_NOT_FOUND)
    return dataLoss("the CUDA module has no global " + symbol);
  VMAPC_RETURN_IF_ERROR(
      driver.check(r, ("cuModuleGetGlobal " + symbol).c_str()));
  out->resize(std::min(bytes, want));
  if (out->empty())
    return Status();
  return driver.check(api.memcpyDtoH(out->data(), address, out->size()),
                      ("cuMemcpyDtoH of " + symbol).c_str());
}

std::string dims(uint64_t x, uint64_t y, uint64_t z) {
  return std::to_string(x) + " x " + std::to_string(y) + " x " +
         std::to_string(z);
}

} // namespace

Status CudaDevice::load(const Artifact &artifact,
                        const std::vector<std::string_view> &code,
                        uint64_t arenaBytes,
                        std::unique_ptr<backend::Executable> *out) {
  // The code objects to try: cubins this GPU runs (its architecture, or an
  // older one of the same major version), then PTX for it or an older one,
  // newest first.
  const int arch = limits.computeMajor * 10 + limits.computeMinor;
  std::vector<size_t> cubins, ptx;
  std::string found;
  for (size_t i = 0; i < artifact.codeObjects.size(); ++i) {
    const CodeObject &o = artifact.codeObjects[i];
    if (!isCudaCode(o.kind))
      continue;
    bool cubin = o.kind == CodeKind::CudaCubin;
    found +=
        (found.empty() ? "" : ", ") + o.level + (cubin ? " (cubin)" : " (PTX)");
    int sm = smNumber(o.level);
    if (cubin && sm / 10 == arch / 10 && sm <= arch)
      cubins.push_back(i);
    if (!cubin && sm <= arch)
      ptx.push_back(i);
  }
  if (found.empty())
    return failedPrecondition("the artifact has no CUDA code (it was compiled "
                              "with --target=cpu)");
  // Newest first; in artifact order among equals.
  auto newestFirst = [&](size_t a, size_t b) {
    int x = smNumber(artifact.codeObjects[a].level);
    int y = smNumber(artifact.codeObjects[b].level);
    return x != y ? x > y : a < b;
  };
  std::sort(cubins.begin(), cubins.end(), newestFirst);
  std::sort(ptx.begin(), ptx.end(), newestFirst);
  const std::string gpu = spec() + " (" + limits.architecture() + ", " + name +
                          ", CUDA driver " + driver->versionString() + ")";
  if (cubins.empty() && ptx.empty())
    return failedPrecondition("the artifact's CUDA code is for " + found +
                              ", none of which runs on " + gpu);

  ContextScope scope(*driver, context);
  VMAPC_RETURN_IF_ERROR(scope.status());
  const DriverApi &api = driver->api();
  auto exe = std::make_unique<CudaExecutable>(*this);
  const CodeObject *chosen = nullptr;
  std::string attempts;
  Status last;
  for (const std::vector<size_t> *list : {&cubins, &ptx}) {
    for (size_t i : *list) {
      const CodeObject &o = artifact.codeObjects[i];
      Status s = loadModule(*driver, o, code[i], &exe->module);
      if (s.ok()) {
        chosen = &o;
        exe->level = o.level + (list == &ptx ? " (PTX JIT)" : " (cubin)");
        break;
      }
      // Out of memory or a GPU that is gone: no other object would load.
      if (s.code() == StatusCode::kResourceExhausted ||
          s.code() == StatusCode::kUnavailable)
        return s;
      attempts += (attempts.empty() ? "" : "; ") + s.message();
      last = s;
    }
    if (chosen)
      break;
  }
  if (!chosen)
    return Status::error(last.code(), gpu +
                                          " cannot load the artifact's CUDA "
                                          "code: " +
                                          attempts);

  // The kernels: each function, its descriptor, its launch record against
  // the GPU's limits.
  size_t maxParams = 1;
  std::vector<unsigned char> bytes;
  // The kernels as this module has them: what they access may be less
  // than the manifest says of every object.
  std::vector<KernelInfo> asCompiled = artifact.kernels;
  for (size_t k = 0; k < artifact.kernels.size(); ++k) {
    const KernelInfo &kernel = artifact.kernels[k];
    CudaExecutable::Kernel &K = exe->kernels.emplace_back();
    K.name = kernel.name;
    K.launch = chosen->launches[k];
    K.numBindings = kernel.numBindings;
    K.numScalars = kernel.numScalars;
    maxParams = std::max<size_t>(maxParams, size_t(kernel.numBindings) +
                                                kernel.numScalars);
    std::string where = "kernel '" + kernel.name + "': ";
    std::string symbol = "vmapc_kernel_" + kernel.name;
    CUresult r =
        api.moduleGetFunction(&K.function, exe->module, symbol.c_str());
    if (r == CUDA_ERROR_NOT_FOUND)
      return dataLoss(where + "the CUDA module has no kernel " + symbol);
    VMAPC_RETURN_IF_ERROR(
        driver->check(r, (where + "cuModuleGetFunction " + symbol).c_str()));
    VMAPC_RETURN_IF_ERROR(
        readGlobal(*driver, exe->module, symbol + "_descriptor",
                   offsetof(KernelDescriptor, bindings) +
                       2 * sizeof(uint64_t) * kernel.numBindings,
                   &bytes)
            .withPrefix(where));
    VMAPC_RETURN_IF_ERROR(
        checkKernelDescriptor(kernel, bytes.data(), bytes.size(),
                              &asCompiled[k].bindingAccess, K.launch));
    const GpuLaunch &l = K.launch;
    uint64_t threads = uint64_t(l.block[0]) * l.block[1] * l.block[2];
    if (l.block[0] > limits.maxBlock[0] || l.block[1] > limits.maxBlock[1] ||
        l.block[2] > limits.maxBlock[2] || threads > limits.maxThreadsPerBlock)
      return failedPrecondition(
          where + "blocks of " + dims(l.block[0], l.block[1], l.block[2]) +
          " threads; " + gpu + " runs at most " +
          dims(limits.maxBlock[0], limits.maxBlock[1], limits.maxBlock[2]) +
          ", " + std::to_string(limits.maxThreadsPerBlock) + " in all");
    if (l.sharedBytes > limits.maxSharedOptIn)
      return failedPrecondition(where + std::to_string(l.sharedBytes) +
                                " bytes of dynamic shared memory per block; " +
                                gpu + " gives a block at most " +
                                std::to_string(limits.maxSharedOptIn));
    // Past 48 KiB a kernel must opt in to its dynamic shared memory.
    if (l.sharedBytes > kDefaultSharedBytes)
      VMAPC_RETURN_IF_ERROR(driver->check(
          api.funcSetAttribute(K.function,
                               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               int(l.sharedBytes)),
          (where + "cuFuncSetAttribute (dynamic shared memory)").c_str()));
  }

  // The entries: descriptors, grids for a full chunk, the staging they
  // copy through.
  uint64_t pinnedBytes = 256;
  size_t maxOutputs = 0;
  for (const EntryInfo &entry : artifact.entries) {
    std::string where = "entry '" + entry.name + "': ";
    VMAPC_RETURN_IF_ERROR(
        readGlobal(*driver, exe->module, entryDescriptorSymbol(entry.name),
                   sizeof(EntryDescriptorHeader) +
                       sizeof(ArgDescriptor) *
                           (entry.inputs.size() + entry.outputs.size()),
                   &bytes)
            .withPrefix(where));
    VMAPC_RETURN_IF_ERROR(checkEntryDescriptor(entry, artifact.kernels,
                                               bytes.data(), bytes.size())
                              .withPrefix(where));
    if (Status s = validateAccess(entry, asCompiled); !s.ok())
      return dataLoss("the CUDA code: " + s.message());
    for (const Command &c : entry.schedule) {
      if (c.kind != Command::Kind::Dispatch)
        continue;
      const KernelInfo &k = artifact.kernels[c.kernel];
      uint64_t grid[3];
      for (int d = 0; d < 3; ++d)
        grid[d] = workgroupsFor(k.workgroupCount[d], entry.batchSize);
      if (grid[0] > limits.maxGrid[0] || grid[1] > limits.maxGrid[1] ||
          grid[2] > limits.maxGrid[2])
        return failedPrecondition(
            where + "kernel '" + k.name + "' needs a grid of " +
            dims(grid[0], grid[1], grid[2]) + " blocks for a chunk of " +
            std::to_string(entry.batchSize) + " examples; " + gpu +
            " launches at most " +
            dims(limits.maxGrid[0], limits.maxGrid[1], limits.maxGrid[2]));
    }
    // Every staging slot's bytes, each rounded up as the staging rounds
    // its copies (validated sizes: no product wraps, a sum may pass 2^62).
    std::optional<uint64_t> sum = 0;
    for (const auto *list : {&entry.inputs, &entry.outputs})
      for (const ArgInfo &arg : *list) {
        uint64_t slot = uint64_t(exampleBytes(arg)) *
                        (arg.isMapped() ? entry.batchSize : 1);
        if (sum)
          sum = checkedAddBytes(*sum, (slot + 15) / 16 * 16);
      }
    if (!sum)
      return Status::error(StatusCode::kResourceExhausted,
                           where + "its staging slots take 2^62 bytes or "
                                   "more of pinned host memory");
    pinnedBytes = std::max(pinnedBytes, *sum);
    maxOutputs = std::max(maxOutputs, entry.outputs.size());
  }
  VMAPC_RETURN_IF_ERROR(checkHostMemory(pinnedBytes, "the pinned staging"));
  VMAPC_RETURN_IF_ERROR(exe->allocate(arenaBytes, arenaAlignmentOf(artifact),
                                      pinnedBytes, maxParams, maxOutputs + 1));
  *out = std::move(exe);
  return Status();
}

} // namespace cuda
} // namespace vmapc
