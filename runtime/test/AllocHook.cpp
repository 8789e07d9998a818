//===- AllocHook.cpp - Count heap allocations in the test binary ----------===//
//
// Replaces the global operator new / delete and the malloc family of this
// binary with versions that count while counting is on, forwarding to glibc.
//
//===----------------------------------------------------------------------===//

#include "AllocHook.h"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void __libc_free(void *);
}

namespace {
std::atomic<bool> counting{false};
std::atomic<uint64_t> count{0};
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
} // namespace vmapc_test

extern "C" {
void *malloc(size_t n) {
  note();
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t m) {
  note();
  return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n) {
  note();
  return __libc_realloc(p, n);
}
void *aligned_alloc(size_t align, size_t n) {
  note();
  return __libc_memalign(align, n);
}
void *memalign(size_t align, size_t n) {
  note();
  return __libc_memalign(align, n);
}
int posix_memalign(void **out, size_t align, size_t n) {
  note();
  void *p = __libc_memalign(align, n);
  if (!p)
    return 12; // ENOMEM
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
