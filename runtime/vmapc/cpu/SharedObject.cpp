//===- SharedObject.cpp - CPU features and code loading
//---------------------===//

#include "vmapc/cpu/SharedObject.h"

#include "vmapc/ReadFile.h"

#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

namespace vmapc {
namespace cpu {

namespace {
struct FeatureProbe {
  const char *name;
  bool (*probe)();
};
} // namespace

// __builtin_cpu_supports needs a string literal, hence one lambda per name.
#define VMAPC_FEATURE(NAME)                                                    \
  {                                                                            \
    NAME, [] { return __builtin_cpu_supports(NAME) != 0; }                     \
  }
static const FeatureProbe kProbes[] = {
    VMAPC_FEATURE("cmov"),
    VMAPC_FEATURE("mmx"),
    VMAPC_FEATURE("popcnt"),
    VMAPC_FEATURE("sse"),
    VMAPC_FEATURE("sse2"),
    VMAPC_FEATURE("sse3"),
    VMAPC_FEATURE("ssse3"),
    VMAPC_FEATURE("sse4.1"),
    VMAPC_FEATURE("sse4.2"),
    VMAPC_FEATURE("avx"),
    VMAPC_FEATURE("avx2"),
    VMAPC_FEATURE("fma"),
    VMAPC_FEATURE("bmi"),
    VMAPC_FEATURE("bmi2"),
    VMAPC_FEATURE("aes"),
    VMAPC_FEATURE("pclmul"),
    VMAPC_FEATURE("avx512f"),
    VMAPC_FEATURE("avx512vl"),
    VMAPC_FEATURE("avx512bw"),
    VMAPC_FEATURE("avx512dq"),
    VMAPC_FEATURE("avx512cd"),
    VMAPC_FEATURE("avx512vbmi"),
    VMAPC_FEATURE("avx512ifma"),
    VMAPC_FEATURE("avx512vpopcntdq"),
    VMAPC_FEATURE("avx512vbmi2"),
    VMAPC_FEATURE("avx512vnni"),
    VMAPC_FEATURE("avx512bitalg"),
    VMAPC_FEATURE("avx512bf16"),
    VMAPC_FEATURE("gfni"),
    VMAPC_FEATURE("vpclmulqdq"),
    VMAPC_FEATURE("sse4a"),
    VMAPC_FEATURE("fma4"),
    VMAPC_FEATURE("xop"),
    // The x86-64 psABI micro-architecture levels (GCC 12, clang 16).
    VMAPC_FEATURE("x86-64-v2"),
    VMAPC_FEATURE("x86-64-v3"),
    VMAPC_FEATURE("x86-64-v4"),
};
#undef VMAPC_FEATURE

const std::vector<std::string> &knownCpuFeatures() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const FeatureProbe &p : kProbes)
      v.push_back(p.name);
    return v;
  }();
  return names;
}

bool hostSupports(const std::string &feature) {
  __builtin_cpu_init();
  for (const FeatureProbe &p : kProbes)
    if (feature == p.name)
      return p.probe();
  return false;
}

Status checkCpuFeatures(const std::vector<std::string> &features,
                        bool (*supports)(const std::string &)) {
  if (!supports)
    supports = hostSupports;
  for (const std::string &f : features) {
    bool known = false;
    for (const FeatureProbe &p : kProbes)
      known = known || f == p.name;
    if (!known)
      return Status::error(StatusCode::kUnimplemented,
                           "unknown CPU feature '" + f + "'");
    if (!supports(f))
      return Status::error(StatusCode::kFailedPrecondition,
                           "the code needs CPU feature '" + f +
                               "', which this CPU lacks");
  }
  return Status();
}

namespace {
/// Closes the fds it holds on scope exit.
struct FdList {
  std::vector<int> fds;
  ~FdList() {
    for (int fd : fds)
      close(fd);
  }
};
} // namespace

Status SharedObject::load(const void *code, size_t size,
                          std::unique_ptr<SharedObject> *out) {
  FdList fds;
  int fd = memfd_create("vmapc-code", MFD_CLOEXEC);
  if (fd < 0)
    return statusFromErrno(errno, "memfd_create failed");
  fds.fds.push_back(fd);
  const auto *bytes = static_cast<const char *>(code);
  size_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, bytes + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return statusFromErrno(errno, "writing the code to a memfd failed");
    if (n == 0)
      return Status::error(StatusCode::kUnavailable,
                           "writing the code to a memfd wrote nothing");
    done += size_t(n);
  }
  // The dynamic loader matches already-loaded objects by path first, so the
  // path "/proc/self/fd/N" must be new to it. Every CodeObject keeps its fd
  // open while it is loaded, so no live object has this fd's path; only an
  // object that could not be unloaded (linked with -z nodelete) can linger
  // under a closed fd's number: move to a fresh number past those.
  std::string path;
  for (int tries = 0;; ++tries) {
    path = "/proc/self/fd/" + std::to_string(fd);
    void *old = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!old)
      break;
    dlclose(old);
    if (tries == 64)
      return Status::error(StatusCode::kUnavailable,
                           "cannot find an unused path to load the code");
    fd = dup(fd);
    if (fd < 0)
      return statusFromErrno(errno, "dup failed");
    fds.fds.push_back(fd);
  }
  dlerror();
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *err = dlerror();
    return Status::error(StatusCode::kDataLoss,
                         std::string("cannot load the code object: ") +
                             (err ? err : "unknown dlopen error"));
  }
  std::unique_ptr<SharedObject> obj(new SharedObject());
  obj->handle = handle;
  obj->fd = fds.fds.back();
  fds.fds.pop_back();
  *out = std::move(obj);
  return Status();
}

SharedObject::~SharedObject() {
  if (handle)
    dlclose(handle);
  if (fd >= 0)
    close(fd);
}

Status SharedObject::resolve(const std::string &symbol, void **address,
                             unsigned *type, size_t *size) const {
  auto error = [&](const char *what) {
    return Status::error(StatusCode::kDataLoss,
                         "symbol '" + symbol + "' " + what);
  };
  dlerror();
  void *sym = dlsym(handle, symbol.c_str());
  if (!sym)
    return error("not found in the code object");
  // dlsym also searches the libraries the object links (libc, libm): the
  // symbol must be this object's own.
  struct link_map *own = nullptr, *definer = nullptr;
  void *entryAddress = nullptr; // dladdr1 stores a const ElfW(Sym) * here

  Dl_info info;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &own) != 0 ||
      !dladdr1(sym, &info, reinterpret_cast<void **>(&definer),
               RTLD_DL_LINKMAP) ||
      definer != own)
    return error("is not defined by the code object");
  if (!dladdr1(sym, &info, &entryAddress, RTLD_DL_SYMENT) || !entryAddress)
    return error("has no entry in the code object's symbol table");
  const auto *entry = static_cast<const ElfW(Sym) *>(entryAddress);
  *address = sym;
  *type = ELF64_ST_TYPE(entry->st_info);
  *size = size_t(entry->st_size);
  return Status();
}

Status SharedObject::lookup(const std::string &symbol, const void **out) const {
  void *sym = nullptr;
  unsigned type = 0;
  size_t size = 0;
  VMAPC_RETURN_IF_ERROR(resolve(symbol, &sym, &type, &size));
  if (type != STT_FUNC)
    return Status::error(StatusCode::kDataLoss,
                         "symbol '" + symbol + "' is not a function");
  *out = sym;
  return Status();
}

Status SharedObject::lookupData(const std::string &symbol, const void **data,
                                size_t *size) const {
  void *sym = nullptr;
  unsigned type = 0;
  VMAPC_RETURN_IF_ERROR(resolve(symbol, &sym, &type, size));
  if (type != STT_OBJECT)
    return Status::error(StatusCode::kDataLoss,
                         "symbol '" + symbol + "' is not a data object");
  *data = sym;
  return Status();
}

} // namespace cpu
} // namespace vmapc
