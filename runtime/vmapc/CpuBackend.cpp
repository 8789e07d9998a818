//===- CpuBackend.cpp - CPU features and code loading ---------------------===//

#include "vmapc/CpuBackend.h"

#include <cerrno>
#include <cstring>
#include <dlfcn.h>
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
    VMAPC_FEATURE("cmov"),         VMAPC_FEATURE("mmx"),
    VMAPC_FEATURE("popcnt"),       VMAPC_FEATURE("sse"),
    VMAPC_FEATURE("sse2"),         VMAPC_FEATURE("sse3"),
    VMAPC_FEATURE("ssse3"),        VMAPC_FEATURE("sse4.1"),
    VMAPC_FEATURE("sse4.2"),       VMAPC_FEATURE("avx"),
    VMAPC_FEATURE("avx2"),         VMAPC_FEATURE("fma"),
    VMAPC_FEATURE("bmi"),          VMAPC_FEATURE("bmi2"),
    VMAPC_FEATURE("aes"),          VMAPC_FEATURE("pclmul"),
    VMAPC_FEATURE("avx512f"),      VMAPC_FEATURE("avx512vl"),
    VMAPC_FEATURE("avx512bw"),     VMAPC_FEATURE("avx512dq"),
    VMAPC_FEATURE("avx512cd"),     VMAPC_FEATURE("avx512vbmi"),
    VMAPC_FEATURE("avx512ifma"),   VMAPC_FEATURE("avx512vpopcntdq"),
    VMAPC_FEATURE("avx512vbmi2"),  VMAPC_FEATURE("avx512vnni"),
    VMAPC_FEATURE("avx512bitalg"), VMAPC_FEATURE("avx512bf16"),
    VMAPC_FEATURE("gfni"),         VMAPC_FEATURE("vpclmulqdq"),
    VMAPC_FEATURE("sse4a"),        VMAPC_FEATURE("fma4"),
    VMAPC_FEATURE("xop"),
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
      return Status::error("unknown CPU feature '" + f + "'");
    if (!supports(f))
      return Status::error("the code needs CPU feature '" + f +
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

Status CodeObject::load(const std::string &code,
                        std::unique_ptr<CodeObject> *out) {
  FdList fds;
  int fd = memfd_create("vmapc-code", MFD_CLOEXEC);
  if (fd < 0)
    return Status::error(std::string("memfd_create failed: ") +
                         std::strerror(errno));
  fds.fds.push_back(fd);
  size_t done = 0;
  while (done < code.size()) {
    ssize_t n = write(fd, code.data() + done, code.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return Status::error(std::string("writing the code to a memfd failed: ") +
                           std::strerror(errno));
    done += size_t(n);
  }
  // The dynamic loader matches already-loaded objects by path first: a
  // "/proc/self/fd/N" whose number an earlier load used (and closed) would
  // return that earlier object. Move to a fresh fd number until the path is
  // unknown to the loader.
  std::string path;
  for (int tries = 0;; ++tries) {
    path = "/proc/self/fd/" + std::to_string(fd);
    void *old = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!old)
      break;
    dlclose(old);
    if (tries == 64)
      return Status::error("cannot find an unused path to load the code");
    fd = dup(fd);
    if (fd < 0)
      return Status::error(std::string("dup failed: ") + std::strerror(errno));
    fds.fds.push_back(fd);
  }
  dlerror();
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *err = dlerror();
    return Status::error(std::string("cannot load the code object: ") +
                         (err ? err : "unknown dlopen error"));
  }
  std::unique_ptr<CodeObject> obj(new CodeObject());
  obj->handle = handle;
  *out = std::move(obj);
  return Status();
}

CodeObject::~CodeObject() {
  if (handle)
    dlclose(handle);
}

Status CodeObject::lookup(const std::string &symbol, EntryFn *out) const {
  dlerror();
  void *sym = dlsym(handle, symbol.c_str());
  if (!sym)
    return Status::error("symbol '" + symbol +
                         "' not found in the code object");
  *out = reinterpret_cast<EntryFn>(sym);
  return Status();
}

} // namespace cpu
} // namespace vmapc
