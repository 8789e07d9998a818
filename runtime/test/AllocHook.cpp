//===- AllocHook.cpp - Count and fail heap allocations in tests -----------===//
//
// See AllocHook.h. Under ASan or TSan, replacing malloc fights the
// sanitizer's own allocator (the binary crashes before main), so the
// sanitizer's hook counts there and the linker's --wrap
// (runtime/CMakeLists.txt) fails allocations.
//
//===----------------------------------------------------------------------===//

#include "AllocHook.h"

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define VMAPC_TEST_SANITIZER_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define VMAPC_TEST_SANITIZER_ALLOCATOR 1
#endif

namespace {
std::atomic<bool> counting{false};
std::atomic<uint64_t> count{0};
std::atomic<size_t> failFrom{SIZE_MAX};

void note() {
  if (counting.load(std::memory_order_relaxed))
    count.fetch_add(1, std::memory_order_relaxed);
}
} // namespace

namespace vmapc_test {
void startCountingAllocations() {
  count = 0;
  counting = true;
}
uint64_t stopCountingAllocations() {
  counting = false;
  return count.load();
}
void failMallocFamily(size_t minBytes) { failFrom = minBytes; }
void stopFailingAllocations() { failFrom = SIZE_MAX; }
} // namespace vmapc_test

#ifdef VMAPC_TEST_SANITIZER_ALLOCATOR

// From <sanitizer/allocator_interface.h>, which g++ does not ship.
extern "C" int __sanitizer_install_malloc_and_free_hooks(
    void (*malloc_hook)(const volatile void *, size_t),
    void (*free_hook)(const volatile void *));

namespace {
void onMalloc(const volatile void *, size_t) { note(); }
void onFree(const volatile void *) {}
// Installed before main; ASan calls onMalloc for every allocation.
[[maybe_unused]] const int installed =
    __sanitizer_install_malloc_and_free_hooks(onMalloc, onFree);
} // namespace

bool vmapc_test::underAddressSanitizer() { return true; }

#ifdef VMAPC_TEST_WRAP_MALLOC
// The test binary is linked with -Wl,--wrap=malloc (and the rest of the
// family): its own and the static runtime's calls come here, __real_* is
// ASan's allocator. Counting stays with the hook above.
extern "C" {
void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
void *__real_aligned_alloc(size_t, size_t);
void *__real_memalign(size_t, size_t);
int __real_posix_memalign(void **, size_t, size_t);
}

namespace {
/// True if an allocation of `bytes` must fail (and sets errno).
bool mustFail(size_t bytes) {
  if (bytes < failFrom.load(std::memory_order_relaxed))
    return false;
  errno = ENOMEM;
  return true;
}
} // namespace

bool vmapc_test::canFailAllocations() { return true; }

extern "C" {
void *__wrap_malloc(size_t n) {
  return mustFail(n) ? nullptr : __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t m) {
  size_t bytes;
  if (__builtin_mul_overflow(n, m, &bytes))
    bytes = SIZE_MAX;
  return mustFail(bytes) ? nullptr : __real_calloc(n, m);
}
void *__wrap_realloc(void *p, size_t n) {
  return mustFail(n) ? nullptr : __real_realloc(p, n);
}
void *__wrap_aligned_alloc(size_t align, size_t n) {
  return mustFail(n) ? nullptr : __real_aligned_alloc(align, n);
}
void *__wrap_memalign(size_t align, size_t n) {
  return mustFail(n) ? nullptr : __real_memalign(align, n);
}
int __wrap_posix_memalign(void **out, size_t align, size_t n) {
  return mustFail(n) ? ENOMEM : __real_posix_memalign(out, align, n);
}
}
#else
bool vmapc_test::canFailAllocations() { return false; }
#endif // VMAPC_TEST_WRAP_MALLOC

#else // !VMAPC_TEST_SANITIZER_ALLOCATOR

bool vmapc_test::underAddressSanitizer() { return false; }
bool vmapc_test::canFailAllocations() { return true; }

extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void __libc_free(void *);
}

namespace {
/// Notes a malloc-family call; true if it must fail.
bool noteMallocFamily(size_t bytes) {
  note();
  if (bytes < failFrom.load(std::memory_order_relaxed))
    return false;
  errno = ENOMEM;
  return true;
}
} // namespace

extern "C" {
void *malloc(size_t n) {
  return noteMallocFamily(n) ? nullptr : __libc_malloc(n);
}
void *calloc(size_t n, size_t m) {
  size_t bytes;
  if (__builtin_mul_overflow(n, m, &bytes))
    bytes = SIZE_MAX;
  return noteMallocFamily(bytes) ? nullptr : __libc_calloc(n, m);
}
void *realloc(void *p, size_t n) {
  return noteMallocFamily(n) ? nullptr : __libc_realloc(p, n);
}
void *aligned_alloc(size_t align, size_t n) {
  return noteMallocFamily(n) ? nullptr : __libc_memalign(align, n);
}
void *memalign(size_t align, size_t n) {
  return noteMallocFamily(n) ? nullptr : __libc_memalign(align, n);
}
int posix_memalign(void **out, size_t align, size_t n) {
  if (noteMallocFamily(n))
    return ENOMEM;
  void *p = __libc_memalign(align, n);
  if (!p)
    return ENOMEM;
  *out = p;
  return 0;
}
void free(void *p) { __libc_free(p); }
}

static void *countedNew(size_t n, size_t align) {
  note();
  if (n == 0)
    n = 1;
  void *p = align ? __libc_memalign(align, n) : __libc_malloc(n);
  return p;
}

void *operator new(size_t n) {
  void *p = countedNew(n, 0);
  if (!p)
    std::abort();
  return p;
}
void *operator new[](size_t n) { return operator new(n); }
void *operator new(size_t n, const std::nothrow_t &) noexcept {
  return countedNew(n, 0);
}
void *operator new[](size_t n, const std::nothrow_t &) noexcept {
  return countedNew(n, 0);
}
void *operator new(size_t n, std::align_val_t a) {
  void *p = countedNew(n, size_t(a));
  if (!p)
    std::abort();
  return p;
}
void *operator new[](size_t n, std::align_val_t a) {
  return operator new(n, a);
}
void *operator new(size_t n, std::align_val_t a,
                   const std::nothrow_t &) noexcept {
  return countedNew(n, size_t(a));
}
void *operator new[](size_t n, std::align_val_t a,
                     const std::nothrow_t &) noexcept {
  return countedNew(n, size_t(a));
}
void operator delete(void *p) noexcept { __libc_free(p); }
void operator delete[](void *p) noexcept { __libc_free(p); }
void operator delete(void *p, size_t) noexcept { __libc_free(p); }
void operator delete[](void *p, size_t) noexcept { __libc_free(p); }
void operator delete(void *p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void *p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void *p, size_t, std::align_val_t) noexcept {
  __libc_free(p);
}
void operator delete[](void *p, size_t, std::align_val_t) noexcept {
  __libc_free(p);
}
void operator delete(void *p, const std::nothrow_t &) noexcept {
  __libc_free(p);
}
void operator delete[](void *p, const std::nothrow_t &) noexcept {
  __libc_free(p);
}
void operator delete(void *p, std::align_val_t,
                     const std::nothrow_t &) noexcept {
  __libc_free(p);
}
void operator delete[](void *p, std::align_val_t,
                       const std::nothrow_t &) noexcept {
  __libc_free(p);
}

#endif // VMAPC_TEST_SANITIZER_ALLOCATOR
