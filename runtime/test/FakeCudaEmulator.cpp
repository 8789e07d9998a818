//===- FakeCudaEmulator.cpp - runs emulated kernels block by block --------===//
//
// See FakeCudaEmulator.h and FakeCudaEmulation.h. A block's threads are
// fibers: each has its own stack (mmap'd, with a guard page below it) and
// runs on the calling OS thread until it waits (barrier, shuffle) or ends;
// the switch between fibers saves the callee-saved registers of the x86-64
// System V ABI, MXCSR and the x87 control word, as boost.context's
// `jump_fcontext` does. The scheduler runs the warps one after the other,
// each until all its threads wait (at a barrier or a shuffle) or ended,
// then opens the barrier when all threads of the block wait at it, or
// reports the block as stuck.
//
//===----------------------------------------------------------------------===//

#include "FakeCudaEmulator.h"

#include <dlfcn.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if !defined(__x86_64__)
#error "the fake CUDA driver's kernel emulation switches fibers on x86-64 only"
#endif

// vmapc_fake_cuda_switch(save, to): saves the caller's registers on its
// stack and its stack pointer in *save, then resumes the fiber whose stack
// pointer is `to` (saved by an earlier switch, or made by newFrame).
extern "C" void vmapc_fake_cuda_switch(void **save, void *to);
asm(R"(
  .text
  .p2align 4
  .globl vmapc_fake_cuda_switch
  .hidden vmapc_fake_cuda_switch
  .type vmapc_fake_cuda_switch,@function
vmapc_fake_cuda_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size vmapc_fake_cuda_switch, .-vmapc_fake_cuda_switch
)");

namespace vmapc::fakecuda {
namespace {

constexpr size_t kStackBytes = 256 << 10;
constexpr size_t kGuardBytes = 4096;
constexpr unsigned kMaxThreads = 1024;
constexpr unsigned kWarpSize = 32;
/// Bytes after the launch's shared memory that must keep their poison.
constexpr size_t kCanaryBytes = 4096;
constexpr unsigned char kPoison = 0xff;

enum class ThreadState { Ready, AtBarrier, AtShuffle, Done };

struct Thread {
  void *sp = nullptr;
  ThreadState state = ThreadState::Ready;
  uint32_t linear = 0;
  vmapc_emu_thread ids{};
  uint32_t barrierSite = 0;
  // The shuffle it waits at, and what it gets.
  uint32_t mode = 0, value = 0, b = 0, c = 0;
  uint32_t result = 0, valid = 0;
};

struct Warp {
  uint32_t mask = 0;
  uint32_t arrived = 0;
};

struct Block {
  const EmulatedLaunch *launch = nullptr;
  Thread threads[kMaxThreads];
  Warp warps[kMaxThreads / kWarpSize];
  unsigned count = 0;
  Thread *running = nullptr;
  void *schedulerSp = nullptr;
  std::string error;
};

/// The block that runs (one at a time: the fake runs its queue under its
/// lock).
Block *current = nullptr;

/// Fiber stacks, made once and reused by every block.
unsigned char *stacks[kMaxThreads];

bool makeStacks(unsigned count) {
  for (unsigned i = 0; i < count; ++i) {
    if (stacks[i])
      continue;
    void *p = mmap(nullptr, kStackBytes + kGuardBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      return false;
    // A stack overflow faults on the guard page rather than corrupting the
    // next stack.
    mprotect(p, kGuardBytes, PROT_NONE);
    stacks[i] = static_cast<unsigned char *>(p) + kGuardBytes;
  }
  return true;
}

[[noreturn]] void fiberMain();

/// A stack that vmapc_fake_cuda_switch resumes into fiberMain, as if
/// called (the stack pointer 8 below a 16-byte boundary at its entry).
void *newFrame(unsigned char *stack) {
  auto top = reinterpret_cast<uintptr_t>(stack + kStackBytes) & ~uintptr_t(15);
  auto *frame = reinterpret_cast<uint64_t *>(top - 72);
  uint32_t mxcsr = 0x1f80; // all exceptions masked, round to nearest
  uint16_t fpucw = 0x037f;
  std::memset(frame, 0, 72);
  std::memcpy(frame, &mxcsr, 4);
  std::memcpy(reinterpret_cast<char *>(frame) + 4, &fpucw, 2);
  // r15, r14, r13, r12, rbx, rbp: frame[1..6]; the return address:
  frame[7] = reinterpret_cast<uint64_t>(&fiberMain);
  return frame;
}

/// Back to the scheduler; returns when the scheduler resumes this thread.
void yield(Thread &t) { vmapc_fake_cuda_switch(&t.sp, current->schedulerSp); }

/// Stops the block with `message` (the first one is kept); never returns.
[[noreturn]] void fail(Thread &t, const std::string &message) {
  if (current->error.empty())
    current->error = "thread (" + std::to_string(t.ids.tid[0]) + ", " +
                     std::to_string(t.ids.tid[1]) + ", " +
                     std::to_string(t.ids.tid[2]) + "): " + message;
  t.state = ThreadState::Done;
  yield(t);
  std::abort(); // a failed block is never resumed
}

void fiberMain() {
  Thread &t = *current->running;
  current->launch->kernel->entry(current->launch->params);
  t.state = ThreadState::Done;
  yield(t);
  std::abort(); // an ended thread is never resumed
}

std::string hex(uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08x", v);
  return text;
}

void emuBarrier(uint32_t id, uint32_t site) {
  Thread &t = *current->running;
  if (id != 0)
    fail(t, "bar.sync " + std::to_string(id) +
                ": only barrier 0 (the whole block) is emulated");
  t.state = ThreadState::AtBarrier;
  t.barrierSite = site;
  yield(t);
}

/// PTX ISA, shfl.sync: the source lane of `lane` and whether it is in
/// range (else the lane reads its own value).
uint32_t sourceLane(uint32_t mode, uint32_t lane, uint32_t b, uint32_t c,
                    uint32_t *inRange) {
  int32_t bval = int32_t(b & 31), cval = int32_t(c & 31);
  int32_t segmask = int32_t((c >> 8) & 31);
  int32_t l = int32_t(lane);
  int32_t maxLane = (l & segmask) | (cval & ~segmask);
  int32_t minLane = l & segmask;
  int32_t j = l;
  bool p = false;
  switch (mode) {
  case VMAPC_EMU_SHFL_UP:
    j = l - bval;
    p = j >= maxLane;
    break;
  case VMAPC_EMU_SHFL_DOWN:
    j = l + bval;
    p = j <= maxLane;
    break;
  case VMAPC_EMU_SHFL_BFLY:
    j = l ^ bval;
    p = j <= maxLane;
    break;
  default:
    j = minLane | (bval & ~segmask);
    p = j <= maxLane;
    break;
  }
  *inRange = p;
  return p ? uint32_t(j) : lane;
}

uint32_t emuShuffle(uint32_t mode, uint32_t mask, uint32_t value, uint32_t b,
                    uint32_t c, uint32_t *valid) {
  Block &block = *current;
  Thread &t = *block.running;
  uint32_t lane = t.linear % kWarpSize, w = t.linear / kWarpSize;
  unsigned lanes = std::min(kWarpSize, block.count - w * kWarpSize);
  uint32_t present = lanes == kWarpSize ? ~0u : (1u << lanes) - 1;
  if (mode > VMAPC_EMU_SHFL_IDX)
    fail(t, "shuffle mode " + std::to_string(mode) + " is not one of PTX's");
  if (!(mask >> lane & 1))
    fail(t, "lane " + std::to_string(lane) +
                " calls a shuffle whose member mask " + hex(mask) +
                " leaves it out");
  if (mask & ~present)
    fail(t, "shuffle member mask " + hex(mask) + " names lanes warp " +
                std::to_string(w) +
                " does not have (its lanes: " + hex(present) + ")");
  Warp &warp = block.warps[w];
  if (warp.arrived == 0)
    warp.mask = mask;
  else if (warp.mask != mask)
    fail(t, "lanes of warp " + std::to_string(w) +
                " wait at shuffles with member masks " + hex(warp.mask) +
                " and " + hex(mask));
  t.mode = mode, t.value = value, t.b = b, t.c = c;
  t.state = ThreadState::AtShuffle;
  warp.arrived |= 1u << lane;
  if (warp.arrived == warp.mask) {
    // Everyone's value is in: each lane reads its source's.
    Thread *lanesOf = &block.threads[w * kWarpSize];
    for (uint32_t l = 0; l < kWarpSize; ++l) {
      if (!(mask >> l & 1))
        continue;
      Thread &u = lanesOf[l];
      uint32_t inRange = 0;
      uint32_t j = sourceLane(u.mode, l, u.b, u.c, &inRange);
      if (!(mask >> j & 1))
        fail(t, "lane " + std::to_string(l) + " of warp " + std::to_string(w) +
                    " reads lane " + std::to_string(j) +
                    ", outside the shuffle's member mask " + hex(mask));
      u.result = lanesOf[j].value;
      u.valid = inRange;
      u.state = ThreadState::Ready;
    }
    warp.arrived = 0;
  } else {
    yield(t);
  }
  if (valid)
    *valid = t.valid;
  return t.result;
}

void resume(Block &block, Thread &t) {
  block.running = &t;
  block.launch->library->runtime->current = &t.ids;
  vmapc_fake_cuda_switch(&block.schedulerSp, t.sp);
}

const char *stateName(ThreadState s) {
  switch (s) {
  case ThreadState::Ready:
    return "ready";
  case ThreadState::AtBarrier:
    return "at a barrier";
  case ThreadState::AtShuffle:
    return "at a shuffle";
  case ThreadState::Done:
    return "ended";
  }
  return "?";
}

/// Why no thread of `block` can go on (not all ended, not all at one
/// barrier).
std::string stuck(Block &block) {
  unsigned done = 0, atBarrier = 0, atShuffle = 0;
  for (unsigned i = 0; i < block.count; ++i) {
    ThreadState s = block.threads[i].state;
    done += s == ThreadState::Done;
    atBarrier += s == ThreadState::AtBarrier;
    atShuffle += s == ThreadState::AtShuffle;
  }
  std::string why = "deadlock: " + std::to_string(atBarrier) +
                    " thread(s) at a barrier, " + std::to_string(atShuffle) +
                    " at a shuffle, " + std::to_string(done) + " ended of " +
                    std::to_string(block.count);
  // The first thread in each state, to start from.
  for (ThreadState s :
       {ThreadState::AtBarrier, ThreadState::AtShuffle, ThreadState::Done})
    for (unsigned i = 0; i < block.count; ++i)
      if (block.threads[i].state == s) {
        why += "; thread " + std::to_string(i) + " " + stateName(s);
        if (s == ThreadState::AtShuffle)
          why += " (warp " + std::to_string(i / kWarpSize) + ": lanes " +
                 hex(block.warps[i / kWarpSize].arrived) + " of " +
                 hex(block.warps[i / kWarpSize].mask) + " arrived)";
        break;
      }
  return why;
}

/// Runs the threads of `block` to their end; an error text if they cannot.
std::string runBlock(Block &block, bool reverse) {
  unsigned warps = (block.count + kWarpSize - 1) / kWarpSize;
  for (;;) {
    // Warp by warp: each runs until all its lanes wait or ended, before the
    // next starts (so that a warp that reads what a later warp writes,
    // without a barrier between, reads it unwritten); within a warp, lane
    // by lane.
    for (bool ran = true; ran;) {
      ran = false;
      for (unsigned wi = 0; wi < warps; ++wi) {
        unsigned w = reverse ? warps - 1 - wi : wi;
        unsigned first = w * kWarpSize;
        unsigned lanes = std::min(kWarpSize, block.count - first);
        for (bool warpRan = true; warpRan;) {
          warpRan = false;
          for (unsigned k = 0; k < lanes; ++k) {
            Thread &t = block.threads[first + (reverse ? lanes - 1 - k : k)];
            if (t.state != ThreadState::Ready)
              continue;
            resume(block, t);
            if (!block.error.empty())
              return block.error;
            ran = warpRan = true;
          }
        }
      }
    }
    unsigned done = 0, atBarrier = 0;
    for (unsigned i = 0; i < block.count; ++i) {
      done += block.threads[i].state == ThreadState::Done;
      atBarrier += block.threads[i].state == ThreadState::AtBarrier;
    }
    if (done == block.count)
      return "";
    if (atBarrier != block.count)
      return stuck(block);
    for (unsigned i = 1; i < block.count; ++i)
      if (block.threads[i].barrierSite != block.threads[0].barrierSite)
        return "threads wait at different barriers: thread 0 at barrier #" +
               std::to_string(block.threads[0].barrierSite) + ", thread " +
               std::to_string(i) + " at barrier #" +
               std::to_string(block.threads[i].barrierSite);
    for (unsigned i = 0; i < block.count; ++i)
      block.threads[i].state = ThreadState::Ready;
  }
}

bool reverseOrder() {
  const char *order = std::getenv("VMAPC_FAKE_CUDA_THREAD_ORDER");
  return order && std::strcmp(order, "reverse") == 0;
}

} // namespace

const vmapc_emu_kernel *EmulatedLibrary::find(const std::string &name) const {
  for (const vmapc_emu_kernel *k = kernels; k->name; ++k)
    if (name == k->name)
      return k;
  return nullptr;
}

const std::vector<EmulatedLibrary> &emulatedLibraries(std::string *error) {
  static std::vector<EmulatedLibrary> libraries;
  static std::string loadError;
  static bool loaded = false;
  if (!loaded) {
    loaded = true;
    const char *list = std::getenv("VMAPC_FAKE_CUDA_KERNELS");
    std::string paths = list ? list : "";
    for (size_t start = 0; start < paths.size();) {
      size_t end = paths.find(':', start);
      if (end == std::string::npos)
        end = paths.size();
      std::string path = paths.substr(start, end - start);
      start = end + 1;
      if (path.empty())
        continue;
      EmulatedLibrary lib;
      lib.path = path;
      lib.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!lib.handle) {
        loadError += path + ": " + dlerror() + "; ";
        continue;
      }
      auto symbol = [&](const char *name) {
        void *p = dlsym(lib.handle, name);
        if (!p)
          loadError += path + ": no symbol " + name + "; ";
        return p;
      };
      lib.runtime = static_cast<vmapc_emu_runtime *>(symbol(VMAPC_EMU_RUNTIME));
      lib.shared = static_cast<unsigned char *>(symbol(VMAPC_EMU_SHARED));
      auto *sharedBytes =
          static_cast<const uint64_t *>(symbol(VMAPC_EMU_SHARED_BYTES));
      lib.kernels =
          static_cast<const vmapc_emu_kernel *>(symbol(VMAPC_EMU_KERNELS));
      auto *hash = static_cast<const uint64_t *>(symbol(VMAPC_EMU_PTX_HASH));
      auto *bytes = static_cast<const uint64_t *>(symbol(VMAPC_EMU_PTX_BYTES));
      if (!lib.runtime || !lib.shared || !sharedBytes || !lib.kernels ||
          !hash || !bytes)
        continue;
      lib.sharedBytes = *sharedBytes;
      lib.ptxHash = *hash;
      lib.ptxBytes = *bytes;
      lib.runtime->barrier = emuBarrier;
      lib.runtime->shuffle = emuShuffle;
      libraries.push_back(lib);
    }
  }
  if (error)
    *error = loadError;
  return libraries;
}

const EmulatedLibrary *libraryForPtx(const char *text, size_t bytes) {
  uint64_t hash = vmapc_emu_fnv1a(text, bytes);
  for (const EmulatedLibrary &lib : emulatedLibraries(nullptr))
    if (lib.ptxHash == hash && lib.ptxBytes == bytes)
      return &lib;
  return nullptr;
}

std::string runEmulatedLaunch(const EmulatedLaunch &launch) {
  static Block block; // 1024 threads' state: not on the caller's stack
  unsigned count = launch.block[0] * launch.block[1] * launch.block[2];
  if (count == 0 || count > kMaxThreads)
    return "a block of " + std::to_string(count) + " threads";
  if (uint64_t(launch.sharedBytes) + kCanaryBytes > launch.library->sharedBytes)
    return "the launch's " + std::to_string(launch.sharedBytes) +
           " bytes of shared memory do not fit the emulated library's " +
           std::to_string(launch.library->sharedBytes);
  if (!makeStacks(count))
    return "cannot map the threads' stacks";
  bool reverse = reverseOrder();
  unsigned char *shared = launch.library->shared;
  for (unsigned z = 0; z < launch.grid[2]; ++z)
    for (unsigned y = 0; y < launch.grid[1]; ++y)
      for (unsigned x = 0; x < launch.grid[0]; ++x) {
        std::string where = "block (" + std::to_string(x) + ", " +
                            std::to_string(y) + ", " + std::to_string(z) +
                            "): ";
        std::memset(shared, kPoison, launch.sharedBytes + kCanaryBytes);
        block.launch = &launch;
        block.count = count;
        block.error.clear();
        for (Warp &w : block.warps)
          w = Warp();
        for (unsigned i = 0; i < count; ++i) {
          Thread &t = block.threads[i];
          t = Thread();
          t.linear = i;
          t.ids.tid[0] = i % launch.block[0];
          t.ids.tid[1] = i / launch.block[0] % launch.block[1];
          t.ids.tid[2] = i / (launch.block[0] * launch.block[1]);
          t.ids.ctaid[0] = x, t.ids.ctaid[1] = y, t.ids.ctaid[2] = z;
          for (int d = 0; d < 3; ++d) {
            t.ids.ntid[d] = launch.block[d];
            t.ids.nctaid[d] = launch.grid[d];
          }
          t.sp = newFrame(stacks[i]);
        }
        current = &block;
        std::string error = runBlock(block, reverse);
        current = nullptr;
        if (!error.empty())
          return where + error;
        for (size_t i = 0; i < kCanaryBytes; ++i)
          if (shared[launch.sharedBytes + i] != kPoison)
            return where + "wrote byte " +
                   std::to_string(launch.sharedBytes + i) +
                   " of shared memory, past the launch's " +
                   std::to_string(launch.sharedBytes) + " bytes";
      }
  return "";
}

} // namespace vmapc::fakecuda
