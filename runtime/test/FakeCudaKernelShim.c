/*===- FakeCudaKernelShim.c - the GPU side of an emulated kernel library --===*
 *
 * Compiled into every emulated kernel library (FakeCudaEmulation.h) with
 * the kernels' host code (test/gpu/emulate/build-emulated-kernels.py): the
 * symbols the fake driver looks up, the special registers and the
 * synchronizing instructions that the kernels' NVVM intrinsics were
 * renamed to, and libdevice's math functions as the C library's. The
 * C library's float functions are within 1 ulp (glibc's manual, "Errors in
 * Math Functions", x86_64) where libdevice's are within 1 to 4 (docs/gpu.md):
 * the emulated results are not libdevice's bit for bit, but within the
 * tolerances the GPU tests allow for both.
 *
 *===----------------------------------------------------------------------===*/

/* exp10, exp10f: GNU extensions of the C library. */
#define _GNU_SOURCE 1

#include "FakeCudaEmulation.h"

#include <math.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT vmapc_emu_runtime vmapc_emu;

/* sm_90's largest dynamic shared memory per block (cuDeviceGetAttribute's
 * MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), and the 4 KiB that the fake checks
 * after a launch's own bytes. */
#define VMAPC_EMU_SHARED_CAPACITY (232448 + 4096)
EXPORT unsigned char vmapc_emu_shared[VMAPC_EMU_SHARED_CAPACITY]
    __attribute__((aligned(256)));
EXPORT const uint64_t vmapc_emu_shared_bytes = VMAPC_EMU_SHARED_CAPACITY;

/* %tid, %ntid, %ctaid, %nctaid: llvm.nvvm.read.ptx.sreg.*. */
#define SREG(name, field, d)                                                   \
  EXPORT uint32_t vmapc_emu_##name(void) { return vmapc_emu.current->field[d]; }
SREG(tid_x, tid, 0)
SREG(tid_y, tid, 1)
SREG(tid_z, tid, 2)
SREG(ntid_x, ntid, 0)
SREG(ntid_y, ntid, 1)
SREG(ntid_z, ntid, 2)
SREG(ctaid_x, ctaid, 0)
SREG(ctaid_y, ctaid, 1)
SREG(ctaid_z, ctaid, 2)
SREG(nctaid_x, nctaid, 0)
SREG(nctaid_y, nctaid, 1)
SREG(nctaid_z, nctaid, 2)

EXPORT uint32_t vmapc_emu_laneid(void) {
  const vmapc_emu_thread *t = vmapc_emu.current;
  return (t->tid[0] + t->ntid[0] * (t->tid[1] + t->ntid[1] * t->tid[2])) % 32;
}

EXPORT uint32_t vmapc_emu_warpsize(void) { return 32; }

/* bar.sync: `site` numbers the call sites, so that threads waiting at two
 * different barriers are told apart. */
EXPORT void vmapc_emu_barrier(uint32_t id, uint32_t site) {
  vmapc_emu.barrier(id, site);
}

EXPORT uint32_t vmapc_emu_shfl(uint32_t mode, uint32_t mask, uint32_t value,
                               uint32_t b, uint32_t c, uint32_t *valid) {
  return vmapc_emu.shuffle(mode, mask, value, b, c, valid);
}

/* libdevice (CUDA's nvvm/libdevice/libdevice.10.bc), float and double. */
#define UNARY(name)                                                            \
  EXPORT float __nv_##name##f(float x) { return name##f(x); }                  \
  EXPORT double __nv_##name(double x) { return name(x); }
#define BINARY(name)                                                           \
  EXPORT float __nv_##name##f(float x, float y) { return name##f(x, y); }      \
  EXPORT double __nv_##name(double x, double y) { return name(x, y); }
UNARY(acos)
UNARY(acosh)
UNARY(asin)
UNARY(asinh)
UNARY(atan)
UNARY(atanh)
UNARY(cbrt)
UNARY(ceil)
UNARY(cos)
UNARY(cosh)
UNARY(erf)
UNARY(erfc)
UNARY(exp)
UNARY(exp10)
UNARY(exp2)
UNARY(expm1)
UNARY(fabs)
UNARY(floor)
UNARY(lgamma)
UNARY(log)
UNARY(log10)
UNARY(log1p)
UNARY(log2)
UNARY(nearbyint)
UNARY(rint)
UNARY(round)
UNARY(sin)
UNARY(sinh)
UNARY(sqrt)
UNARY(tan)
UNARY(tanh)
UNARY(tgamma)
UNARY(trunc)
BINARY(atan2)
BINARY(copysign)
BINARY(fdim)
BINARY(fmax)
BINARY(fmin)
BINARY(fmod)
BINARY(hypot)
BINARY(pow)
BINARY(remainder)
EXPORT float __nv_fmaf(float x, float y, float z) { return fmaf(x, y, z); }
EXPORT double __nv_fma(double x, double y, double z) { return fma(x, y, z); }
EXPORT float __nv_rsqrtf(float x) { return 1.0f / sqrtf(x); }
EXPORT double __nv_rsqrt(double x) { return 1.0 / sqrt(x); }
EXPORT float __nv_powif(float x, int n) { return powf(x, (float)n); }
EXPORT double __nv_powi(double x, int n) { return pow(x, (double)n); }
EXPORT float __nv_fast_expf(float x) { return expf(x); }
EXPORT float __nv_fast_logf(float x) { return logf(x); }
EXPORT float __nv_fast_powf(float x, float y) { return powf(x, y); }
EXPORT float __nv_fast_tanf(float x) { return tanf(x); }
EXPORT float __nv_fast_sinf(float x) { return sinf(x); }
EXPORT float __nv_fast_cosf(float x) { return cosf(x); }
EXPORT int __nv_isnanf(float x) { return isnan(x); }
EXPORT int __nv_isinff(float x) { return isinf(x); }
EXPORT int __nv_finitef(float x) { return isfinite(x); }
EXPORT int __nv_signbitf(float x) { return signbit(x) != 0; }
