//===- FakeCuda.cpp - a fake CUDA driver for the CUDA backend's tests -----===//
//
// See FakeCuda.h. The entry points keep the signatures of cuda.h (the
// definitions below must match its declarations), under the versioned names
// its macros give them.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"
#include "FakeCudaEmulator.h"

#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr uint64_t kDeviceBase = 0x1000000000000000ull;
constexpr int kMaxDevices = 8;
constexpr size_t kQueueCapacity = 4096;

struct Context {
  int device; // -1: not a primary context
};

struct Function {
  std::string name;
  int numParams = 0;
  int maxDynamicShared = 48 << 10;
  /// Threads per block at most (PTX .maxntid); 0 for no limit.
  int maxThreads = 0;
  /// Its emulated code (FakeCudaEmulation.h), if any.
  const vmapc::fakecuda::EmulatedLibrary *library = nullptr;
  const vmapc_emu_kernel *emulated = nullptr;
};

struct Global {
  std::string name;
  uint64_t address = 0;
  size_t bytes = 0;
};

struct Module {
  std::vector<Function *> functions;
  std::vector<Global> globals;
};

struct Stream {
  bool own; // made by cuStreamCreate (not vmapc_fake_cuda_make_stream)
};

struct Event {};

struct Allocation {
  uint64_t base;
  size_t bytes;
  unsigned char *host;
  bool counted; // a cuMemAlloc (not a test's array or a module global)
};

/// One copy or launch waiting in the queue.
struct Op {
  bool launch;
  size_t record; // launch: its index in the records (or past them)
  const Function *function;
  vmapc_fake_cuda_launch copyOfLaunch;
  unsigned char *dst;
  const unsigned char *src;
  uint64_t width, height, dstPitch, srcPitch;
};

struct Injected {
  int error;
  int skip;
};

struct KernelHook {
  vmapc_fake_cuda_kernel_fn fn;
  void *user;
};

struct State {
  std::recursive_mutex mutex;
  int deviceCount = 1;
  std::map<int, int> attributes;
  bool refuseCubins = false;
  bool failJit = false;
  std::string jitLog;
  Context primary[kMaxDevices];
  int retained[kMaxDevices] = {};
  Context other{-1};
  // Looked up by `const char *` (std::less<>): no string is made per call.
  std::map<std::string, uint64_t, std::less<>> calls;
  std::map<std::string, Injected, std::less<>> failures;
  std::map<std::string, KernelHook, std::less<>> kernels;
  uint64_t violations = 0;
  /// An emulated kernel failed: synchronizing calls return
  /// CUDA_ERROR_LAUNCH_FAILED from then on (until a reset).
  bool launchFailed = false;
  std::vector<Allocation> allocations;
  uint64_t nextAddress = kDeviceBase;
  std::vector<std::pair<void *, size_t>> pinned;
  std::vector<Module *> modules;
  std::vector<Stream *> streams;
  std::vector<Event *> events;
  vmapc_fake_cuda_launch launches[kFakeCudaRecords];
  size_t launchCount = 0;
  vmapc_fake_cuda_copy copies[kFakeCudaRecords];
  size_t copyCount = 0;
  Op queue[kQueueCapacity];
  size_t queued = 0;

  State() {
    for (int i = 0; i < kMaxDevices; ++i)
      primary[i].device = i;
    clearCalls();
  }
  /// Every entry point's counter, made here so that a call makes none.
  void clearCalls() {
    calls.clear();
    for (const char *name : kEntryPoints)
      calls[name] = 0;
  }
  static constexpr const char *kEntryPoints[] = {
      "cuInit",
      "cuDriverGetVersion",
      "cuDeviceGetCount",
      "cuDeviceGet",
      "cuDeviceGetName",
      "cuDeviceGetAttribute",
      "cuDevicePrimaryCtxRetain",
      "cuDevicePrimaryCtxRelease_v2",
      "cuCtxPushCurrent_v2",
      "cuCtxPopCurrent_v2",
      "cuMemAlloc_v2",
      "cuMemFree_v2",
      "cuMemHostAlloc",
      "cuMemFreeHost",
      "cuMemcpyDtoH_v2",
      "cuMemcpyHtoDAsync_v2",
      "cuMemcpyDtoHAsync_v2",
      "cuMemcpyDtoDAsync_v2",
      "cuMemcpy2DAsync_v2",
      "cuStreamCreate",
      "cuStreamDestroy_v2",
      "cuStreamSynchronize",
      "cuStreamWaitEvent",
      "cuEventCreate",
      "cuEventDestroy_v2",
      "cuEventRecord",
      "cuEventSynchronize",
      "cuEventElapsedTime_v2",
      "cuModuleLoadData",
      "cuModuleLoadDataEx",
      "cuModuleUnload",
      "cuModuleGetFunction",
      "cuModuleGetGlobal_v2",
      "cuFuncSetAttribute",
      "cuLaunchKernel",
  };
};

State &state() {
  static State *s = new State();
  return *s;
}

thread_local Context *contextStack[16];
thread_local int contextDepth = 0;

using Lock = std::lock_guard<std::recursive_mutex>;

/// Counts a call of `name` and returns the error injected for it, if any.
CUresult enter(State &s, const char *name) {
  ++s.calls.find(name)->second;
  auto it = s.failures.find(name);
  if (it == s.failures.end())
    return CUDA_SUCCESS;
  if (it->second.skip > 0) {
    --it->second.skip;
    return CUDA_SUCCESS;
  }
  CUresult error = CUresult(it->second.error);
  s.failures.erase(it);
  return error;
}

/// CUDA_SUCCESS if a primary context is current on this thread.
CUresult needContext(State &s) {
  if (contextDepth > 0 && contextStack[contextDepth - 1]->device >= 0)
    return CUDA_SUCCESS;
  ++s.violations;
  return CUDA_ERROR_INVALID_CONTEXT;
}

#define FAKE_ENTER(name)                                                       \
  State &s = state();                                                          \
  Lock lock(s.mutex);                                                          \
  if (CUresult injected_ = enter(s, name))                                     \
  return injected_

#define FAKE_NEED_CONTEXT()                                                    \
  if (CUresult noContext_ = needContext(s))                                    \
  return noContext_

int attribute(State &s, CUdevice_attribute a) {
  auto it = s.attributes.find(int(a));
  if (it != s.attributes.end())
    return it->second;
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    return 9;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    return 0;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
    return 2147483647;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
    return 65535;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    return 1024;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
    return 64;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    return 232448;
  case CU_DEVICE_ATTRIBUTE_MAX_PITCH:
    return 2147483647;
  default:
    return 0;
  }
}

/// Host memory behind device bytes [address, address + bytes).
unsigned char *translate(State &s, uint64_t address, uint64_t bytes) {
  for (const Allocation &a : s.allocations)
    if (address >= a.base && bytes <= a.bytes &&
        address - a.base <= a.bytes - bytes)
      return a.host + (address - a.base);
  return nullptr;
}

bool isPinned(State &s, const void *p, uint64_t bytes) {
  auto address = reinterpret_cast<uintptr_t>(p);
  for (const auto &[base, size] : s.pinned) {
    auto b = reinterpret_cast<uintptr_t>(base);
    if (address >= b && bytes <= size && address - b <= size - bytes)
      return true;
  }
  return false;
}

uint64_t allocate(State &s, size_t bytes, bool counted) {
  size_t size = std::max<size_t>(bytes, 1);
  auto *host = static_cast<unsigned char *>(std::malloc(size));
  if (!host)
    return 0;
  // Fresh device memory holds no particular value.
  std::memset(host, 0xcd, size);
  uint64_t base = s.nextAddress;
  // 256-byte aligned, with a gap that no copy may reach across.
  s.nextAddress += (size + 4096 + 255) / 256 * 256;
  s.allocations.push_back({base, bytes, host, counted});
  return base;
}

bool release(State &s, uint64_t base) {
  for (size_t i = 0; i < s.allocations.size(); ++i)
    if (s.allocations[i].base == base) {
      std::free(s.allocations[i].host);
      s.allocations.erase(s.allocations.begin() + long(i));
      return true;
    }
  return false;
}

bool isStream(State &s, CUstream stream) {
  auto *p = reinterpret_cast<Stream *>(stream);
  return std::find(s.streams.begin(), s.streams.end(), p) != s.streams.end();
}

/// Runs `launch` with `f`'s emulated code (FakeCudaEmulation.h); a
/// failure is printed and makes the context's error sticky.
void emulate(State &s, const Function &f,
             const vmapc_fake_cuda_launch &launch) {
  const char *signature = f.emulated->params;
  uint64_t params[kFakeCudaMaxParams];
  std::string error;
  for (int i = 0; i < launch.num_params && error.empty(); ++i) {
    params[i] = launch.params[i];
    if (signature[i] != 'p')
      continue;
    void *host = translate(s, launch.params[i], 0);
    if (!host || !launch.params[i]) {
      char text[96];
      std::snprintf(text, sizeof(text),
                    "pointer parameter %d (0x%llx) is in no live allocation", i,
                    static_cast<unsigned long long>(launch.params[i]));
      error = text;
    }
    params[i] = reinterpret_cast<uintptr_t>(host);
  }
  if (error.empty()) {
    vmapc::fakecuda::EmulatedLaunch run{};
    run.library = f.library;
    run.kernel = f.emulated;
    std::copy(std::begin(launch.grid), std::end(launch.grid), run.grid);
    std::copy(std::begin(launch.block), std::end(launch.block), run.block);
    run.sharedBytes = launch.shared_bytes;
    run.params = params;
    error = vmapc::fakecuda::runEmulatedLaunch(run);
  }
  if (error.empty())
    return;
  std::fprintf(stderr, "vmapc fake CUDA: kernel %s %s\n", f.name.c_str(),
               error.c_str());
  s.launchFailed = true;
}

void runOp(State &s, const Op &op) {
  if (!op.launch) {
    for (uint64_t r = 0; r < op.height; ++r)
      std::memmove(op.dst + r * op.dstPitch, op.src + r * op.srcPitch,
                   op.width);
    return;
  }
  auto it = s.kernels.find(op.copyOfLaunch.kernel);
  if (it != s.kernels.end() && it->second.fn) {
    it->second.fn(&op.copyOfLaunch, it->second.user);
    return;
  }
  if (op.function->emulated && !s.launchFailed)
    emulate(s, *op.function, op.copyOfLaunch);
}

void runQueue(State &s) {
  // A kernel may call back into the fake (host_pointer): the lock is
  // recursive, and the queue is emptied before the ops run.
  size_t n = s.queued;
  s.queued = 0;
  for (size_t i = 0; i < n; ++i)
    runOp(s, s.queue[i]);
}

/// Carries out everything queued; CUDA_ERROR_LAUNCH_FAILED once an
/// emulated kernel failed.
CUresult synchronize(State &s) {
  runQueue(s);
  return s.launchFailed ? CUDA_ERROR_LAUNCH_FAILED : CUDA_SUCCESS;
}

void enqueue(State &s, const Op &op) {
  if (s.queued == kQueueCapacity)
    runQueue(s);
  s.queue[s.queued++] = op;
}

/// Records a copy, checks its addresses and queues it (or, when not
/// async, carries it out after everything queued).
CUresult copy(State &s, int kind, bool twoD, bool async, uint64_t dst,
              uint64_t src, uint64_t width, uint64_t height, uint64_t dstPitch,
              uint64_t srcPitch, CUstream stream) {
  if (async && !isStream(s, stream))
    return CUDA_ERROR_INVALID_HANDLE;
  vmapc_fake_cuda_copy record{};
  record.kind = kind;
  record.two_d = twoD;
  record.async = async;
  record.dst = dst;
  record.src = src;
  record.width = width;
  record.height = height;
  record.dst_pitch = dstPitch;
  record.src_pitch = srcPitch;
  record.stream = stream;
  if (height == 0 || width == 0)
    return CUDA_SUCCESS;
  uint64_t dstSpan = (height - 1) * dstPitch + width;
  uint64_t srcSpan = (height - 1) * srcPitch + width;
  if (width > dstPitch || width > srcPitch)
    return CUDA_ERROR_INVALID_VALUE;
  unsigned char *to = nullptr;
  const unsigned char *from = nullptr;
  if (kind == VMAPC_FAKE_DTOH) {
    to = reinterpret_cast<unsigned char *>(dst);
    record.host_pinned = isPinned(s, to, dstSpan);
  } else {
    to = translate(s, dst, dstSpan);
  }
  if (kind == VMAPC_FAKE_HTOD) {
    from = reinterpret_cast<const unsigned char *>(src);
    record.host_pinned = isPinned(s, from, srcSpan);
  } else {
    from = translate(s, src, srcSpan);
  }
  if (!to || !from)
    return CUDA_ERROR_INVALID_VALUE;
  if (s.copyCount < kFakeCudaRecords)
    s.copies[s.copyCount] = record;
  ++s.copyCount;
  Op op{};
  op.dst = to;
  op.src = from;
  op.width = width;
  op.height = height;
  op.dstPitch = dstPitch;
  op.srcPitch = srcPitch;
  if (async) {
    enqueue(s, op);
    return CUDA_SUCCESS;
  }
  runQueue(s);
  runOp(s, op);
  return s.launchFailed ? CUDA_ERROR_LAUNCH_FAILED : CUDA_SUCCESS;
}

/// Parses module text from `text` (at most `size` bytes, up to "end").
CUresult parseModule(State &s, const char *text, size_t size, Module **out) {
  std::string body(text, size);
  size_t end = body.find("\nend");
  if (body.compare(0, 22, "vmapc-fake-cuda-module") != 0 ||
      end == std::string::npos)
    return CUDA_ERROR_INVALID_IMAGE;
  body.resize(end + 1);
  auto *m = new Module();
  size_t pos = body.find('\n') + 1;
  while (pos < body.size()) {
    size_t eol = body.find('\n', pos);
    std::string line = body.substr(pos, eol - pos);
    pos = eol + 1;
    char kind[16] = {}, name[128] = {};
    int params = 0;
    if (std::sscanf(line.c_str(), "kernel %127s %d", name, &params) == 2) {
      auto *f = new Function();
      f->name = name;
      f->numParams = params;
      m->functions.push_back(f);
      continue;
    }
    size_t space = line.find(' ', 7);
    if (std::sscanf(line.c_str(), "%15s %127s", kind, name) == 2 &&
        std::string(kind) == "global" && space != std::string::npos) {
      std::string hex = line.substr(space + 1);
      Global g;
      g.name = name;
      g.bytes = hex.size() / 2;
      g.address = allocate(s, g.bytes, /*counted=*/false);
      unsigned char *host = translate(s, g.address, g.bytes);
      for (size_t i = 0; i < g.bytes; ++i)
        host[i] = static_cast<unsigned char>(
            std::stoul(hex.substr(2 * i, 2), nullptr, 16));
      m->globals.push_back(g);
      continue;
    }
    for (Function *f : m->functions)
      delete f;
    for (const Global &g : m->globals)
      release(s, g.address);
    delete m;
    return CUDA_ERROR_INVALID_IMAGE;
  }
  s.modules.push_back(m);
  *out = m;
  return CUDA_SUCCESS;
}

/// Bytes per element of a PTX type (".b8", ".u32", ".f64", ...); 0 if not
/// a plain scalar type.
size_t ptxTypeBytes(const std::string &type) {
  if (type.size() < 3 || type[0] != '.')
    return 0;
  char kind = type[1];
  if (kind != 'b' && kind != 'u' && kind != 's' && kind != 'f')
    return 0;
  std::string bits = type.substr(2);
  if (bits == "8")
    return 1;
  if (bits == "16")
    return 2;
  if (bits == "32")
    return 4;
  if (bits == "64")
    return 8;
  return 0;
}

/// Parses what the fake needs of real PTX text (what the compiler emits):
///   .visible .entry NAME(.param ..., .param ...)  [.maxntid X, Y, Z]
///   .visible .global .align A .TYPE NAME[COUNT] [= {v, v, ...}];
/// Kernels get their parameter count and thread limit; globals their bytes
/// (little-endian elements; zero without an initializer).
CUresult parsePtx(State &s, const std::string &text, Module **out) {
  auto *m = new Module();
  auto fail = [&] {
    for (Function *f : m->functions)
      delete f;
    for (const Global &g : m->globals)
      release(s, g.address);
    delete m;
    return CUDA_ERROR_INVALID_PTX;
  };
  size_t pos = 0;
  while (true) {
    size_t entry = text.find(".entry ", pos);
    size_t global = text.find(".global ", pos);
    if (entry == std::string::npos && global == std::string::npos)
      break;
    if (entry < global) {
      size_t open = text.find('(', entry);
      size_t close = text.find(')', open);
      if (open == std::string::npos || close == std::string::npos)
        return fail();
      auto *f = new Function();
      f->name = text.substr(entry + 7, open - entry - 7);
      while (!f->name.empty() && f->name.back() == ' ')
        f->name.pop_back();
      for (size_t p = text.find(".param", open); p < close;
           p = text.find(".param", p + 6))
        ++f->numParams;
      // A thread limit just after the parameters, before the body.
      size_t body = text.find('{', close);
      size_t limit = text.find(".maxntid", close);
      unsigned x = 1, y = 1, z = 1;
      if (limit < body && std::sscanf(text.c_str() + limit,
                                      ".maxntid %u, %u, %u", &x, &y, &z) >= 1)
        f->maxThreads = int(x * y * z);
      m->functions.push_back(f);
      pos = close;
      continue;
    }
    size_t end = text.find(';', global);
    if (end == std::string::npos)
      return fail();
    std::string decl = text.substr(global, end - global);
    pos = end;
    size_t bracket = decl.find('[');
    size_t closeBracket = decl.find(']', bracket);
    if (bracket == std::string::npos || closeBracket == std::string::npos)
      continue; // a scalar global: nothing the runtime reads
    size_t nameStart = decl.rfind(' ', bracket) + 1;
    size_t typeStart = decl.rfind(" .", nameStart - 1);
    std::string type =
        decl.substr(typeStart + 1, nameStart - 1 - (typeStart + 1));
    size_t elementBytes = ptxTypeBytes(type);
    if (elementBytes == 0)
      return fail();
    Global g;
    g.name = decl.substr(nameStart, bracket - nameStart);
    size_t count = std::strtoull(decl.c_str() + bracket + 1, nullptr, 10);
    g.bytes = count * elementBytes;
    g.address = allocate(s, g.bytes, /*counted=*/false);
    unsigned char *host = translate(s, g.address, std::max<size_t>(g.bytes, 1));
    std::memset(host, 0, g.bytes);
    size_t brace = decl.find('{', closeBracket);
    size_t at = 0;
    for (size_t p = brace; p != std::string::npos && p < decl.size() &&
                           at + elementBytes <= g.bytes;) {
      ++p;
      char *next = nullptr;
      unsigned long long v = std::strtoull(decl.c_str() + p, &next, 0);
      if (next == decl.c_str() + p)
        break;
      for (size_t b = 0; b < elementBytes; ++b)
        host[at + b] = static_cast<unsigned char>(v >> (8 * b));
      at += elementBytes;
      p = decl.find(',', size_t(next - decl.c_str()));
    }
    m->globals.push_back(g);
  }
  s.modules.push_back(m);
  *out = m;
  return CUDA_SUCCESS;
}

/// Frees module `m` (known to `s`) and its globals.
void unloadModule(State &s, Module *m) {
  for (Function *f : m->functions)
    delete f;
  for (const Global &g : m->globals)
    release(s, g.address);
  s.modules.erase(std::find(s.modules.begin(), s.modules.end(), m));
  delete m;
}

/// With VMAPC_FAKE_CUDA_KERNELS set, gives each kernel of `m`, loaded from
/// the PTX `text`, its emulated code from the library built from that PTX
/// (FakeCudaEmulation.h). False with `why` set if there is none.
bool bindEmulatedKernels(Module *m, const char *text, size_t bytes,
                         std::string *why) {
  const char *list = std::getenv("VMAPC_FAKE_CUDA_KERNELS");
  if (!list || !*list)
    return true;
  std::string error;
  vmapc::fakecuda::emulatedLibraries(&error);
  if (!error.empty()) {
    *why = "VMAPC_FAKE_CUDA_KERNELS: " + error;
    return false;
  }
  const vmapc::fakecuda::EmulatedLibrary *lib =
      vmapc::fakecuda::libraryForPtx(text, bytes);
  if (!lib) {
    char hash[32];
    std::snprintf(hash, sizeof(hash), "%016llx",
                  static_cast<unsigned long long>(
                      vmapc_emu_fnv1a(text, uint64_t(bytes))));
    *why = "no library of VMAPC_FAKE_CUDA_KERNELS (" + std::string(list) +
           ") was built from this PTX (FNV-1a " + hash + ", " +
           std::to_string(bytes) +
           " bytes): rebuild them from the artifact's program "
           "(test/gpu/emulate/build-emulated-kernels.py)";
    return false;
  }
  for (Function *f : m->functions) {
    f->library = lib;
    f->emulated = lib->find(f->name);
    if (!f->emulated) {
      *why = lib->path + " has no kernel " + f->name;
      return false;
    }
    if (std::strlen(f->emulated->params) != size_t(f->numParams)) {
      *why = lib->path + ": kernel " + f->name + " takes " +
             std::to_string(std::strlen(f->emulated->params)) +
             " parameters, its PTX " + std::to_string(f->numParams);
      return false;
    }
  }
  return true;
}

/// Loads an image as the driver would: a cubin (ELF) or PTX text. `log`
/// and `logBytes` receive the JIT's error log.
CUresult loadImage(State &s, CUmodule *module, const void *image, char *log,
                   size_t *logBytes) {
  const char *p = static_cast<const char *>(image);
  Module *m = nullptr;
  CUresult r;
  if (std::memcmp(p,
                  "\x7f"
                  "ELF",
                  4) == 0) {
    // A real cubin (not the fake's text after an ELF header) is code the
    // fake cannot run: it refuses it as a driver refuses a cubin for
    // another GPU.
    if (s.refuseCubins ||
        std::strncmp(p + 64, "vmapc-fake-cuda-module", 22) != 0)
      return CUDA_ERROR_NO_BINARY_FOR_GPU;
    // The module text after the ELF header ends in "end"; read no further.
    size_t size = 64;
    while (std::strncmp(p + size, "\nend", 4) != 0)
      ++size;
    r = parseModule(s, p + 64, size + 4 - 64, &m);
  } else {
    size_t size = std::strlen(p); // PTX ends in a NUL byte
    auto jitFails = [&](const std::string &text) {
      if (log && logBytes && *logBytes) {
        size_t n = std::min(*logBytes - 1, text.size());
        std::memcpy(log, text.data(), n);
        log[n] = '\0';
        *logBytes = n;
      }
      return CUDA_ERROR_INVALID_PTX;
    };
    if (s.failJit)
      return jitFails(s.jitLog);
    if (std::strncmp(p, "vmapc-fake-cuda-module", 22) == 0) {
      r = parseModule(s, p, size, &m);
    } else {
      r = parsePtx(s, std::string(p, size), &m);
      std::string why;
      if (r == CUDA_SUCCESS && !bindEmulatedKernels(m, p, size, &why)) {
        std::fprintf(stderr, "vmapc fake CUDA: %s\n", why.c_str());
        unloadModule(s, m);
        return jitFails(why);
      }
    }
  }
  if (r == CUDA_SUCCESS)
    *module = reinterpret_cast<CUmodule>(m);
  return r;
}

Module *findModule(State &s, CUmodule module) {
  auto *m = reinterpret_cast<Module *>(module);
  return std::find(s.modules.begin(), s.modules.end(), m) != s.modules.end()
             ? m
             : nullptr;
}

Function *findFunction(State &s, CUfunction function) {
  auto *f = reinterpret_cast<Function *>(function);
  for (Module *m : s.modules)
    if (std::find(m->functions.begin(), m->functions.end(), f) !=
        m->functions.end())
      return f;
  return nullptr;
}

struct ErrorName {
  CUresult error;
  const char *name;
  const char *text;
};
const ErrorName kErrorNames[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED",
     "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE",
     "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE",
     "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE",
     "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT",
     "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX",
     "a PTX JIT compilation failed"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE",
     "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED",
     "unspecified launch failure"},
    {CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED",
     "operation not permitted"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED",
     "operation not supported"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

} // namespace

//===----------------------------------------------------------------------===//
// The driver API
//===----------------------------------------------------------------------===//

FAKE_EXPORT CUresult cuGetErrorName(CUresult error, const char **pStr) {
  for (const ErrorName &e : kErrorNames)
    if (e.error == error) {
      *pStr = e.name;
      return CUDA_SUCCESS;
    }
  *pStr = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

FAKE_EXPORT CUresult cuGetErrorString(CUresult error, const char **pStr) {
  for (const ErrorName &e : kErrorNames)
    if (e.error == error) {
      *pStr = e.text;
      return CUDA_SUCCESS;
    }
  *pStr = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

FAKE_EXPORT CUresult cuInit(unsigned int) {
  FAKE_ENTER("cuInit");
  return s.deviceCount > 0 ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE;
}

FAKE_EXPORT CUresult cuDriverGetVersion(int *version) {
  FAKE_ENTER("cuDriverGetVersion");
  *version = 13000;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetCount(int *count) {
  FAKE_ENTER("cuDeviceGetCount");
  *count = s.deviceCount;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  FAKE_ENTER("cuDeviceGet");
  if (ordinal < 0 || ordinal >= s.deviceCount || ordinal >= kMaxDevices)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice) {
  FAKE_ENTER("cuDeviceGetName");
  std::snprintf(name, size_t(len), "Fake GPU");
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attrib,
                                          CUdevice) {
  FAKE_ENTER("cuDeviceGetAttribute");
  *value = attribute(s, attrib);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *context,
                                              CUdevice device) {
  FAKE_ENTER("cuDevicePrimaryCtxRetain");
  if (device < 0 || device >= s.deviceCount)
    return CUDA_ERROR_INVALID_DEVICE;
  ++s.retained[device];
  *context = reinterpret_cast<CUcontext>(&s.primary[device]);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  FAKE_ENTER("cuDevicePrimaryCtxRelease_v2");
  if (device < 0 || device >= kMaxDevices || s.retained[device] == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  --s.retained[device];
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext context) {
  FAKE_ENTER("cuCtxPushCurrent_v2");
  if (!context || contextDepth == 16)
    return CUDA_ERROR_INVALID_VALUE;
  contextStack[contextDepth++] = reinterpret_cast<Context *>(context);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *context) {
  FAKE_ENTER("cuCtxPopCurrent_v2");
  if (contextDepth == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  Context *top = contextStack[--contextDepth];
  if (context)
    *context = reinterpret_cast<CUcontext>(top);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  FAKE_ENTER("cuMemAlloc_v2");
  FAKE_NEED_CONTEXT();
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  uint64_t base = allocate(s, bytes, /*counted=*/true);
  if (!base)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *pointer = CUdeviceptr(base);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemFree_v2(CUdeviceptr pointer) {
  FAKE_ENTER("cuMemFree_v2");
  FAKE_NEED_CONTEXT();
  runQueue(s);
  return release(s, pointer) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKE_EXPORT CUresult cuMemHostAlloc(void **pointer, size_t bytes,
                                    unsigned int) {
  FAKE_ENTER("cuMemHostAlloc");
  FAKE_NEED_CONTEXT();
  void *p = std::malloc(std::max<size_t>(bytes, 1));
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  std::memset(p, 0xcd, std::max<size_t>(bytes, 1));
  s.pinned.push_back({p, bytes});
  *pointer = p;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemFreeHost(void *pointer) {
  FAKE_ENTER("cuMemFreeHost");
  FAKE_NEED_CONTEXT();
  runQueue(s);
  for (size_t i = 0; i < s.pinned.size(); ++i)
    if (s.pinned[i].first == pointer) {
      std::free(pointer);
      s.pinned.erase(s.pinned.begin() + long(i));
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_INVALID_VALUE;
}

FAKE_EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  FAKE_ENTER("cuMemcpyDtoH_v2");
  FAKE_NEED_CONTEXT();
  return copy(s, VMAPC_FAKE_DTOH, false, false, uint64_t(uintptr_t(dst)), src,
              bytes, 1, bytes, bytes, nullptr);
}

FAKE_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src,
                                          size_t bytes, CUstream stream) {
  FAKE_ENTER("cuMemcpyHtoDAsync_v2");
  FAKE_NEED_CONTEXT();
  return copy(s, VMAPC_FAKE_HTOD, false, true, dst, uint64_t(uintptr_t(src)),
              bytes, 1, bytes, bytes, stream);
}

FAKE_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src,
                                          size_t bytes, CUstream stream) {
  FAKE_ENTER("cuMemcpyDtoHAsync_v2");
  FAKE_NEED_CONTEXT();
  return copy(s, VMAPC_FAKE_DTOH, false, true, uint64_t(uintptr_t(dst)), src,
              bytes, 1, bytes, bytes, stream);
}

FAKE_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src,
                                          size_t bytes, CUstream stream) {
  FAKE_ENTER("cuMemcpyDtoDAsync_v2");
  FAKE_NEED_CONTEXT();
  return copy(s, VMAPC_FAKE_DTOD, false, true, dst, src, bytes, 1, bytes, bytes,
              stream);
}

FAKE_EXPORT CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *c,
                                        CUstream stream) {
  FAKE_ENTER("cuMemcpy2DAsync_v2");
  FAKE_NEED_CONTEXT();
  if (c->srcXInBytes || c->srcY || c->dstXInBytes || c->dstY ||
      (c->srcMemoryType != CU_MEMORYTYPE_HOST &&
       c->srcMemoryType != CU_MEMORYTYPE_DEVICE) ||
      (c->dstMemoryType != CU_MEMORYTYPE_HOST &&
       c->dstMemoryType != CU_MEMORYTYPE_DEVICE) ||
      (c->srcMemoryType == CU_MEMORYTYPE_HOST &&
       c->dstMemoryType == CU_MEMORYTYPE_HOST) ||
      c->srcPitch > uint64_t(attribute(s, CU_DEVICE_ATTRIBUTE_MAX_PITCH)) ||
      c->dstPitch > uint64_t(attribute(s, CU_DEVICE_ATTRIBUTE_MAX_PITCH)))
    return CUDA_ERROR_INVALID_VALUE;
  bool srcHost = c->srcMemoryType == CU_MEMORYTYPE_HOST;
  bool dstHost = c->dstMemoryType == CU_MEMORYTYPE_HOST;
  int kind =
      srcHost ? VMAPC_FAKE_HTOD : (dstHost ? VMAPC_FAKE_DTOH : VMAPC_FAKE_DTOD);
  uint64_t src = srcHost ? uint64_t(uintptr_t(c->srcHost)) : c->srcDevice;
  uint64_t dst = dstHost ? uint64_t(uintptr_t(c->dstHost)) : c->dstDevice;
  return copy(s, kind, true, true, dst, src, c->WidthInBytes, c->Height,
              c->dstPitch, c->srcPitch, stream);
}

FAKE_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned int) {
  FAKE_ENTER("cuStreamCreate");
  FAKE_NEED_CONTEXT();
  auto *p = new Stream{true};
  s.streams.push_back(p);
  *stream = reinterpret_cast<CUstream>(p);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamDestroy_v2(CUstream stream) {
  FAKE_ENTER("cuStreamDestroy_v2");
  FAKE_NEED_CONTEXT();
  auto *p = reinterpret_cast<Stream *>(stream);
  auto it = std::find(s.streams.begin(), s.streams.end(), p);
  if (it == s.streams.end())
    return CUDA_ERROR_INVALID_HANDLE;
  runQueue(s);
  s.streams.erase(it);
  delete p;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamSynchronize(CUstream stream) {
  FAKE_ENTER("cuStreamSynchronize");
  FAKE_NEED_CONTEXT();
  if (!isStream(s, stream))
    return CUDA_ERROR_INVALID_HANDLE;
  return synchronize(s);
}

FAKE_EXPORT CUresult cuStreamWaitEvent(CUstream stream, CUevent event,
                                       unsigned int) {
  FAKE_ENTER("cuStreamWaitEvent");
  FAKE_NEED_CONTEXT();
  auto *e = reinterpret_cast<Event *>(event);
  if (!isStream(s, stream) ||
      std::find(s.events.begin(), s.events.end(), e) == s.events.end())
    return CUDA_ERROR_INVALID_HANDLE;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventCreate(CUevent *event, unsigned int) {
  FAKE_ENTER("cuEventCreate");
  FAKE_NEED_CONTEXT();
  auto *e = new Event();
  s.events.push_back(e);
  *event = reinterpret_cast<CUevent>(e);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventDestroy_v2(CUevent event) {
  FAKE_ENTER("cuEventDestroy_v2");
  FAKE_NEED_CONTEXT();
  auto *e = reinterpret_cast<Event *>(event);
  auto it = std::find(s.events.begin(), s.events.end(), e);
  if (it == s.events.end())
    return CUDA_ERROR_INVALID_HANDLE;
  s.events.erase(it);
  delete e;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventRecord(CUevent event, CUstream stream) {
  FAKE_ENTER("cuEventRecord");
  FAKE_NEED_CONTEXT();
  auto *e = reinterpret_cast<Event *>(event);
  if (!isStream(s, stream) ||
      std::find(s.events.begin(), s.events.end(), e) == s.events.end())
    return CUDA_ERROR_INVALID_HANDLE;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventSynchronize(CUevent event) {
  FAKE_ENTER("cuEventSynchronize");
  FAKE_NEED_CONTEXT();
  auto *e = reinterpret_cast<Event *>(event);
  if (std::find(s.events.begin(), s.events.end(), e) == s.events.end())
    return CUDA_ERROR_INVALID_HANDLE;
  return synchronize(s);
}

// The fake has no clock: the time between two events is 0 ms (what the GPU
// test hosts, test/gpu/host, time their calls with).
FAKE_EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent start,
                                           CUevent end) {
  FAKE_ENTER("cuEventElapsedTime_v2");
  FAKE_NEED_CONTEXT();
  auto *a = reinterpret_cast<Event *>(start);
  auto *b = reinterpret_cast<Event *>(end);
  if (!ms)
    return CUDA_ERROR_INVALID_VALUE;
  if (std::find(s.events.begin(), s.events.end(), a) == s.events.end() ||
      std::find(s.events.begin(), s.events.end(), b) == s.events.end())
    return CUDA_ERROR_INVALID_HANDLE;
  runQueue(s);
  *ms = 0;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  FAKE_ENTER("cuModuleLoadData");
  FAKE_NEED_CONTEXT();
  return loadImage(s, module, image, nullptr, nullptr);
}

FAKE_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                                        unsigned int numOptions,
                                        CUjit_option *options, void **values) {
  FAKE_ENTER("cuModuleLoadDataEx");
  FAKE_NEED_CONTEXT();
  char *log = nullptr;
  size_t logBytes = 0;
  int sizeOption = -1;
  for (unsigned i = 0; i < numOptions; ++i) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
      log = static_cast<char *>(values[i]);
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) {
      logBytes = reinterpret_cast<uintptr_t>(values[i]);
      sizeOption = int(i);
    }
  }
  CUresult r = loadImage(s, module, image, log, &logBytes);
  if (sizeOption >= 0)
    values[sizeOption] = reinterpret_cast<void *>(uintptr_t(logBytes));
  return r;
}

FAKE_EXPORT CUresult cuModuleUnload(CUmodule module) {
  FAKE_ENTER("cuModuleUnload");
  FAKE_NEED_CONTEXT();
  Module *m = findModule(s, module);
  if (!m)
    return CUDA_ERROR_INVALID_HANDLE;
  runQueue(s);
  unloadModule(s, m);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                                         const char *name) {
  FAKE_ENTER("cuModuleGetFunction");
  FAKE_NEED_CONTEXT();
  Module *m = findModule(s, module);
  if (!m)
    return CUDA_ERROR_INVALID_HANDLE;
  for (Function *f : m->functions)
    if (f->name == name) {
      *function = reinterpret_cast<CUfunction>(f);
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}

FAKE_EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *address, size_t *bytes,
                                          CUmodule module, const char *name) {
  FAKE_ENTER("cuModuleGetGlobal_v2");
  FAKE_NEED_CONTEXT();
  Module *m = findModule(s, module);
  if (!m)
    return CUDA_ERROR_INVALID_HANDLE;
  for (const Global &g : m->globals)
    if (g.name == name) {
      if (address)
        *address = CUdeviceptr(g.address);
      if (bytes)
        *bytes = g.bytes;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}

FAKE_EXPORT CUresult cuFuncSetAttribute(CUfunction function,
                                        CUfunction_attribute attrib,
                                        int value) {
  FAKE_ENTER("cuFuncSetAttribute");
  FAKE_NEED_CONTEXT();
  Function *f = findFunction(s, function);
  if (!f)
    return CUDA_ERROR_INVALID_HANDLE;
  if (attrib != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
    return CUDA_ERROR_NOT_SUPPORTED;
  if (value < 0 ||
      value >
          attribute(s, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN))
    return CUDA_ERROR_INVALID_VALUE;
  f->maxDynamicShared = value;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuLaunchKernel(CUfunction function, unsigned int gridX,
                                    unsigned int gridY, unsigned int gridZ,
                                    unsigned int blockX, unsigned int blockY,
                                    unsigned int blockZ,
                                    unsigned int sharedBytes, CUstream stream,
                                    void **params, void **extra) {
  FAKE_ENTER("cuLaunchKernel");
  FAKE_NEED_CONTEXT();
  Function *f = findFunction(s, function);
  if (!f || !isStream(s, stream))
    return CUDA_ERROR_INVALID_HANDLE;
  if (s.launchFailed)
    return CUDA_ERROR_LAUNCH_FAILED;
  uint64_t threads = uint64_t(blockX) * blockY * blockZ;
  if (gridX == 0 || gridY == 0 || gridZ == 0 ||
      gridX > unsigned(attribute(s, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)) ||
      gridY > unsigned(attribute(s, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)) ||
      gridZ > unsigned(attribute(s, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)) ||
      threads == 0 || threads > 1024 || blockZ > 64 ||
      (f->maxThreads && threads > uint64_t(f->maxThreads)) ||
      int(sharedBytes) > f->maxDynamicShared || extra ||
      (f->numParams > 0 && !params))
    return CUDA_ERROR_INVALID_VALUE;
  vmapc_fake_cuda_launch record{};
  std::snprintf(record.kernel, sizeof(record.kernel), "%s", f->name.c_str());
  record.grid[0] = gridX, record.grid[1] = gridY, record.grid[2] = gridZ;
  record.block[0] = blockX, record.block[1] = blockY, record.block[2] = blockZ;
  record.shared_bytes = sharedBytes;
  record.stream = stream;
  record.num_params = std::min(f->numParams, int(kFakeCudaMaxParams));
  for (int i = 0; i < record.num_params; ++i)
    std::memcpy(&record.params[i], params[i], sizeof(uint64_t));
  if (s.launchCount < kFakeCudaRecords)
    s.launches[s.launchCount] = record;
  Op op{};
  op.launch = true;
  op.function = f;
  op.record = s.launchCount++;
  op.copyOfLaunch = record;
  enqueue(s, op);
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// The control API (FakeCuda.h)
//===----------------------------------------------------------------------===//

FAKE_EXPORT void vmapc_fake_cuda_reset(void) {
  State &s = state();
  Lock lock(s.mutex);
  runQueue(s);
  s.deviceCount = 1;
  s.attributes.clear();
  s.refuseCubins = false;
  s.failJit = false;
  s.jitLog.clear();
  s.clearCalls();
  s.failures.clear();
  s.kernels.clear();
  s.violations = 0;
  s.launchFailed = false;
  s.launchCount = 0;
  s.copyCount = 0;
}

FAKE_EXPORT void vmapc_fake_cuda_clear_records(void) {
  State &s = state();
  Lock lock(s.mutex);
  s.launchCount = 0;
  s.copyCount = 0;
}

FAKE_EXPORT void vmapc_fake_cuda_fail(const char *function, int error,
                                      int skip) {
  State &s = state();
  Lock lock(s.mutex);
  s.failures[function] = {error, skip};
}

FAKE_EXPORT uint64_t vmapc_fake_cuda_calls(const char *function) {
  State &s = state();
  Lock lock(s.mutex);
  auto it = s.calls.find(function);
  return it == s.calls.end() ? 0 : it->second;
}

FAKE_EXPORT void vmapc_fake_cuda_set_device_count(int count) {
  State &s = state();
  Lock lock(s.mutex);
  s.deviceCount = std::min(count, kMaxDevices);
}

FAKE_EXPORT void vmapc_fake_cuda_set_attribute(int attrib, int value) {
  State &s = state();
  Lock lock(s.mutex);
  s.attributes[attrib] = value;
}

FAKE_EXPORT void vmapc_fake_cuda_refuse_cubins(int refuse) {
  State &s = state();
  Lock lock(s.mutex);
  s.refuseCubins = refuse != 0;
}

FAKE_EXPORT void vmapc_fake_cuda_fail_jit(const char *log) {
  State &s = state();
  Lock lock(s.mutex);
  s.failJit = log != nullptr;
  s.jitLog = log ? log : "";
}

FAKE_EXPORT void vmapc_fake_cuda_set_kernel(const char *kernel,
                                            vmapc_fake_cuda_kernel_fn fn,
                                            void *user) {
  State &s = state();
  Lock lock(s.mutex);
  s.kernels[kernel] = {fn, user};
}

FAKE_EXPORT size_t vmapc_fake_cuda_launch_count(void) {
  State &s = state();
  Lock lock(s.mutex);
  return s.launchCount;
}

FAKE_EXPORT int vmapc_fake_cuda_launch_at(size_t i,
                                          vmapc_fake_cuda_launch *out) {
  State &s = state();
  Lock lock(s.mutex);
  if (i >= s.launchCount || i >= kFakeCudaRecords)
    return 0;
  *out = s.launches[i];
  return 1;
}

FAKE_EXPORT size_t vmapc_fake_cuda_copy_count(void) {
  State &s = state();
  Lock lock(s.mutex);
  return s.copyCount;
}

FAKE_EXPORT int vmapc_fake_cuda_copy_at(size_t i, vmapc_fake_cuda_copy *out) {
  State &s = state();
  Lock lock(s.mutex);
  if (i >= s.copyCount || i >= kFakeCudaRecords)
    return 0;
  *out = s.copies[i];
  return 1;
}

FAKE_EXPORT void *vmapc_fake_cuda_host_pointer(uint64_t address, size_t bytes) {
  State &s = state();
  Lock lock(s.mutex);
  return translate(s, address, bytes);
}

FAKE_EXPORT uint64_t vmapc_fake_cuda_device_alloc(size_t bytes) {
  State &s = state();
  Lock lock(s.mutex);
  return allocate(s, bytes, /*counted=*/false);
}

FAKE_EXPORT void vmapc_fake_cuda_device_free(uint64_t address) {
  State &s = state();
  Lock lock(s.mutex);
  runQueue(s);
  release(s, address);
}

FAKE_EXPORT void *vmapc_fake_cuda_make_stream(void) {
  State &s = state();
  Lock lock(s.mutex);
  auto *p = new Stream{false};
  s.streams.push_back(p);
  return p;
}

FAKE_EXPORT void vmapc_fake_cuda_synchronize(void) {
  State &s = state();
  Lock lock(s.mutex);
  runQueue(s);
}

FAKE_EXPORT uint64_t vmapc_fake_cuda_context_violations(void) {
  State &s = state();
  Lock lock(s.mutex);
  return s.violations;
}

FAKE_EXPORT void *vmapc_fake_cuda_other_context(void) { return &state().other; }

FAKE_EXPORT void *vmapc_fake_cuda_current_context(void) {
  return contextDepth ? contextStack[contextDepth - 1] : nullptr;
}

FAKE_EXPORT uint64_t vmapc_fake_cuda_live(const char *what) {
  State &s = state();
  Lock lock(s.mutex);
  std::string w = what;
  if (w == "device")
    return uint64_t(
        std::count_if(s.allocations.begin(), s.allocations.end(),
                      [](const Allocation &a) { return a.counted; }));
  if (w == "pinned")
    return s.pinned.size();
  if (w == "module")
    return s.modules.size();
  if (w == "stream")
    return uint64_t(std::count_if(s.streams.begin(), s.streams.end(),
                                  [](const Stream *p) { return p->own; }));
  if (w == "event")
    return s.events.size();
  if (w == "primary") {
    uint64_t n = 0;
    for (int r : s.retained)
      n += uint64_t(r);
    return n;
  }
  return ~uint64_t(0);
}
