// RUN: vmapc-opt %s --arr-expand-math -split-input-file | FileCheck %s
// RUN: vmapc-opt %s --arr-expand-math=fused-multiply-add=true \
// RUN:   -split-input-file | FileCheck %s --check-prefix=FUSED
// RUN: vmapc-opt %s --arr-expand-math --convert-vector-to-llvm \
// RUN:   --convert-math-to-llvm --convert-arith-to-llvm --convert-func-to-llvm \
// RUN:   --reconcile-unrealized-casts -split-input-file \
// RUN:   | FileCheck %s --check-prefix=LLVM
// The same lowering to x86-64 assembly, for SSE2 (which has neither FMA nor
// a rounding instruction: LLVM would call fmaf/floorf) and for AVX2 + FMA:
// packed instructions, no call.
// RUN: vmapc-opt %s --arr-expand-math --convert-vector-to-llvm \
// RUN:   --convert-math-to-llvm --convert-arith-to-llvm --convert-func-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN:   | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O2 -mtriple=x86_64-unknown-linux-gnu -mcpu=x86-64 \
// RUN:   | FileCheck %s --check-prefix=SSE2
// RUN: vmapc-opt %s --arr-expand-math --convert-vector-to-llvm \
// RUN:   --convert-math-to-llvm --convert-arith-to-llvm --convert-func-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN:   | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O2 -mtriple=x86_64-unknown-linux-gnu -mcpu=x86-64-v3 \
// RUN:   | FileCheck %s --check-prefix=AVX2

// exp: clamp (by compares that are false for a NaN, so a NaN passes),
// round x log2(e) with the 1.5 * 2^23 shift (one multiply-add), Cody-Waite
// reduction and polynomial as contractible multiply-adds, k from the bits of
// the shifted sum (no fptosi), 2^k from bits; the NaN comes out of the
// arithmetic, with no select on x at the end (for AVX2 one vmaxps and one
// vminps, no blend).
// CHECK-LABEL: func.func @exp_vector(
// CHECK-SAME:    %[[X:.+]]: vector<16xf32>
// CHECK-NOT:     {{math\.|call}}
// CHECK-DAG:     %[[LO:.+]] = arith.constant dense<-1.040000e+02> : vector<16xf32>
// CHECK-DAG:     %[[SHIFT:.+]] = arith.constant dense<0x4B400000> : vector<16xf32>
// CHECK-DAG:     %[[SHIFT_BITS:.+]] = arith.constant dense<1262485504> : vector<16xi32>
// CHECK:         arith.cmpf olt, %[[X]], %[[LO]] : vector<16xf32>
// CHECK:         %[[S:.+]] = arith.addf %{{.+}}, %[[SHIFT]] fastmath<contract> : vector<16xf32>
// CHECK:         %[[K:.+]] = arith.subf %[[S]], %[[SHIFT]] : vector<16xf32>
// CHECK:         arith.mulf %[[K]], %{{.+}} fastmath<contract> : vector<16xf32>
// CHECK:         %[[BITS:.+]] = arith.bitcast %[[S]] : vector<16xf32> to vector<16xi32>
// CHECK:         arith.subi %[[BITS]], %[[SHIFT_BITS]] : vector<16xi32>
// CHECK:         arith.shli %{{.+}} : vector<16xi32>
// CHECK-NOT:     {{math\.|call|arith.select|arith.cmpf}}
// CHECK:         %[[SCALED:.+]] = arith.mulf %{{.+}}, %{{.+}} : vector<16xf32>
// CHECK-NEXT:    %[[R:.+]] = arith.mulf %[[SCALED]], %{{.+}} : vector<16xf32>
// CHECK-NEXT:    return %[[R]]

// With FMA, e^r is 1 + r (1 + r S(r)): S's four Horner steps, then two
// multiply-adds onto 1, and no Fast2Sum (no 1 - (1 + r)).
// FUSED-LABEL: func.func @exp_vector(
// FUSED-DAG:     %[[HALF:.+]] = arith.constant dense<0.49999994> : vector<16xf32>
// FUSED-DAG:     %[[ONE:.+]] = arith.constant dense<1.000000e+00> : vector<16xf32>
// FUSED:         %[[S:.+]] = arith.addf %{{.+}}, %[[HALF]] fastmath<contract> : vector<16xf32>
// FUSED-NEXT:    %[[RS:.+]] = arith.mulf %[[R:.+]], %[[S]] fastmath<contract> : vector<16xf32>
// FUSED-NEXT:    %[[Q:.+]] = arith.addf %[[RS]], %[[ONE]] fastmath<contract> : vector<16xf32>
// FUSED-NEXT:    %[[RQ:.+]] = arith.mulf %[[R]], %[[Q]] fastmath<contract> : vector<16xf32>
// FUSED-NEXT:    %[[EXPR:.+]] = arith.addf %[[RQ]], %[[ONE]] fastmath<contract> : vector<16xf32>
// FUSED-NOT:     arith.subf
// FUSED:         %[[SCALED:.+]] = arith.mulf %[[EXPR]], %{{.+}} : vector<16xf32>
// FUSED-NEXT:    %[[RES:.+]] = arith.mulf %[[SCALED]], %{{.+}} : vector<16xf32>
// FUSED-NEXT:    return %[[RES]]

// LLVM-LABEL: llvm.func @exp_vector(
// LLVM-NOT:     {{llvm.call|llvm.intr.(exp|floor|fma)}}
// LLVM:         llvm.fmul %{{.+}}, %{{.+}} {fastmathFlags = #llvm.fastmath<contract>} : vector<16xf32>
// LLVM-NOT:     {{llvm.call|llvm.intr.(exp|floor|fma)}}
// LLVM:         llvm.return

// SSE2-LABEL: exp_vector:
// SSE2-NOT:     call
// SSE2:         mulps
// SSE2-NOT:     call
// SSE2:         ret

// AVX2-LABEL: exp_vector:
// AVX2-NOT:     {{call|vblendvps|vcmpunordps}}
// AVX2:         vfmadd{{.*}}ymm
// AVX2-NOT:     {{call|vblendvps|vcmpunordps}}
// AVX2:         ret
func.func @exp_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.exp %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// log: x < 2^-126 scaled by 2^23 (and 23 taken from its exponent), frexp
// from the bits, Cephes' polynomial as contractible multiply-adds, e ln 2
// added, then -inf for 0, NaN below 0 (and for NaN), inf for inf.
// CHECK-LABEL: func.func @log_vector(
// CHECK-SAME:    %[[X:.+]]: vector<16xf32>
// CHECK-NOT:     {{math\.|call}}
// CHECK-DAG:     %[[NEGINF:.+]] = arith.constant dense<0xFF800000> : vector<16xf32>
// CHECK-DAG:     %[[NAN:.+]] = arith.constant dense<0x7FC00000> : vector<16xf32>
// CHECK-DAG:     %[[LN2:.+]] = arith.constant dense<0.693147182> : vector<16xf32>
// CHECK-DAG:     %[[EBIAS_TINY:.+]] = arith.constant dense<1.490000e+02> : vector<16xf32>
// CHECK-DAG:     %[[EBIAS:.+]] = arith.constant dense<1.260000e+02> : vector<16xf32>
// CHECK-DAG:     %[[MIN:.+]] = arith.constant dense<1.17549435E-38> : vector<16xf32>
// CHECK-DAG:     %[[TWO23:.+]] = arith.constant dense<0x4B000000> : vector<16xf32>
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK:         %[[TINY:.+]] = arith.cmpf olt, %[[X]], %[[MIN]]
// CHECK:         %[[SCALED:.+]] = arith.mulf %[[X]], %[[TWO23]]
// CHECK:         arith.select %[[TINY]], %[[SCALED]], %[[X]]
// The exponent's bias and the exponent bits, in either order (the pass
// builds them as the two arguments of one call: g++ and clang order those
// differently).
// CHECK-DAG:     arith.select %[[TINY]], %[[EBIAS_TINY]], %[[EBIAS]]
// CHECK-DAG:     arith.shrui
// CHECK:         arith.mulf %{{.+}}, %{{.+}} fastmath<contract> : vector<16xf32>
// CHECK:         %[[E:.+]] = arith.mulf %{{.+}}, %[[LN2]] fastmath<contract> : vector<16xf32>
// CHECK:         %[[LOG:.+]] = arith.addf %[[E]], %{{.+}} fastmath<contract> : vector<16xf32>
// CHECK-DAG:     %[[ISZERO:.+]] = arith.cmpf oeq, %[[X]], %[[ZERO]]
// CHECK-DAG:     %[[INVALID:.+]] = arith.cmpf ult, %[[X]], %[[ZERO]]
// CHECK:         %[[R1:.+]] = arith.select %{{.+}}, %{{.+}}, %[[LOG]]
// CHECK:         %[[R2:.+]] = arith.select %[[INVALID]], %[[NAN]], %[[R1]]
// CHECK:         %[[R:.+]] = arith.select %[[ISZERO]], %[[NEGINF]], %[[R2]]
// CHECK-NOT:     {{math\.|call}}
// CHECK:         return %[[R]]

// LLVM-LABEL: llvm.func @log_vector(
// LLVM-NOT:     {{llvm.call|llvm.intr.(log|floor|fma)}}
// LLVM:         llvm.fmul %{{.+}}, %{{.+}} {fastmathFlags = #llvm.fastmath<contract>} : vector<16xf32>
// LLVM-NOT:     {{llvm.call|llvm.intr.(log|floor|fma)}}
// LLVM:         llvm.return

// SSE2-LABEL: log_vector:
// SSE2-NOT:     call
// SSE2:         mulps
// SSE2-NOT:     call
// SSE2:         ret

// AVX2-LABEL: log_vector:
// AVX2-NOT:     call
// AVX2:         vfmadd{{.*}}ymm
// AVX2-NOT:     call
// AVX2:         ret
func.func @log_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.log %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// tanh: (1 - t) / (1 + t) with t = e^-2|x| = 2^k (1 + p), |x| clamped to 9.5
// first (a NaN kept: the select's order is minps'); p = e^r - 1 from r, and
// 2^k from the bits of k + 1.5 * 2^23 (no fptosi); 1 - t and 1 + t one
// multiply-add each from 2^k - 1 and 2^k + 1; one formula for every x (no
// select after the division), the sign of x on the quotient.
// CHECK-LABEL: func.func @tanh_vector(
// CHECK-SAME:    %[[X:.+]]: vector<16xf32>
// CHECK-NOT:     {{math\.(tanh|exp|fma)|call}}
// CHECK-DAG:     %[[BOUND:.+]] = arith.constant dense<9.500000e+00> : vector<16xf32>
// CHECK-DAG:     %[[MINUS_TWO:.+]] = arith.constant dense<-2.000000e+00> : vector<16xf32>
// CHECK-DAG:     %[[SHIFT_BITS:.+]] = arith.constant dense<1262485504> : vector<16xi32>
// CHECK-DAG:     %[[ONE:.+]] = arith.constant dense<1.000000e+00> : vector<16xf32>
// CHECK:         %[[AX:.+]] = math.absf %[[X]] : vector<16xf32>
// CHECK:         %[[ABOVE:.+]] = arith.cmpf ogt, %[[AX]], %[[BOUND]] : vector<16xf32>
// CHECK:         %[[CLAMPED:.+]] = arith.select %[[ABOVE]], %[[BOUND]], %[[AX]]
// CHECK:         arith.mulf %[[CLAMPED]], %[[MINUS_TWO]] : vector<16xf32>
// CHECK-NOT:     arith.fptosi
// CHECK:         arith.subi %{{.+}}, %[[SHIFT_BITS]] : vector<16xi32>
// CHECK-NOT:     arith.fptosi
// CHECK:         %[[SCALE:.+]] = arith.bitcast %{{.+}} : vector<16xi32> to vector<16xf32>
// CHECK:         arith.subf %[[SCALE]], %[[ONE]] : vector<16xf32>
// CHECK:         arith.addf %[[SCALE]], %[[ONE]] : vector<16xf32>
// CHECK:         %[[Q:.+]] = arith.divf
// CHECK-NOT:     arith.select
// CHECK:         %[[R:.+]] = math.copysign %[[Q]], %[[X]] : vector<16xf32>
// CHECK-NOT:     {{math\.(tanh|exp|fma)|call}}
// CHECK:         return %[[R]]

// LLVM-LABEL: llvm.func @tanh_vector(
// LLVM-NOT:     {{llvm.call|llvm.intr.(tanh|exp|floor|fma)}}
// LLVM:         llvm.intr.copysign(%{{.+}}, %{{.+}}) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// LLVM-NOT:     {{llvm.call|llvm.intr.(tanh|exp|floor|fma)}}
// LLVM:         llvm.return

// SSE2-LABEL: tanh_vector:
// SSE2-NOT:     call
// SSE2:         divps
// SSE2-NOT:     call
// SSE2:         ret

// AVX2-LABEL: tanh_vector:
// AVX2-NOT:     call
// AVX2:         vdivps{{.*}}ymm
// AVX2-NOT:     call
// AVX2:         ret
func.func @tanh_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.tanh %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// powf: y * log2|x| and its exp2 in f64, rounded once to f32; then the sign,
// NaN and one of C's special cases by selects.
// CHECK-LABEL: func.func @powf_vector(
// CHECK-SAME:    %[[X:.+]]: vector<16xf32>, %[[Y:.+]]: vector<16xf32>
// CHECK-NOT:     {{math\.(powf|exp|log|fma)|call}}
// CHECK-DAG:     %[[SHIFT:.+]] = arith.constant dense<0x4338000000000000> : vector<16xf64>
// CHECK-DAG:     %[[ONE:.+]] = arith.constant dense<1.000000e+00> : vector<16xf32>
// CHECK:         arith.extf %{{.+}} : vector<16xf32> to vector<16xf64>
// CHECK:         arith.divf %{{.+}}, %{{.+}} : vector<16xf64>
// CHECK:         %[[T:.+]] = arith.mulf %{{.+}}, %{{.+}} : vector<16xf64>
// CHECK:         arith.addf %{{.+}}, %[[SHIFT]] : vector<16xf64>
// CHECK:         arith.shli %{{.+}}, %{{.+}} : vector<16xi64>
// CHECK:         arith.truncf %{{.+}} : vector<16xf64> to vector<16xf32>
// CHECK:         arith.cmpf uno, %[[X]], %[[Y]] : vector<16xf32>
// CHECK:         %[[R:.+]] = arith.select %{{.+}}, %[[ONE]], %{{.+}} : vector<16xi1>, vector<16xf32>
// CHECK-NOT:     {{math\.(powf|exp|log|fma)|call}}
// CHECK:         return %[[R]]

// LLVM-LABEL: llvm.func @powf_vector(
// LLVM-NOT:     {{llvm.call|llvm.intr.(pow|exp|log|floor|fma)}}
// LLVM:         llvm.fpext %{{.+}} : vector<16xf32> to vector<16xf64>
// LLVM-NOT:     {{llvm.call|llvm.intr.(pow|exp|log|floor|fma)}}
// LLVM:         llvm.return

// SSE2-LABEL: powf_vector:
// SSE2-NOT:     call
// SSE2:         cvtps2pd
// SSE2-NOT:     call
// SSE2:         ret

// AVX2-LABEL: powf_vector:
// AVX2-NOT:     call
// AVX2:         vfmadd{{.*}}ymm
// AVX2-NOT:     call
// AVX2:         ret
func.func @powf_vector(%x: vector<16xf32>, %y: vector<16xf32>) -> vector<16xf32> {
  %0 = math.powf %x, %y : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// Scalars (the scalar loops of today's CPU pipeline) and n-D vectors take
// the same expansions.
// CHECK-LABEL: func.func @scalar_and_2d(
// CHECK-NOT:     {{math\.(exp|log|tanh|powf|fma)|call}}
// CHECK:         arith.bitcast %{{.+}} : f32 to i32
// CHECK:         arith.shrui %{{.+}}, %{{.+}} : i32
// CHECK:         math.copysign %{{.+}}, %{{.+}} : f32
// CHECK:         arith.extf %{{.+}} : vector<4x8xf32> to vector<4x8xf64>
// CHECK-NOT:     {{math\.(exp|log|tanh|powf|fma)|call}}
// CHECK:         return
func.func @scalar_and_2d(%x: f32, %v: vector<4x8xf32>) -> (f32, f32, f32, vector<4x8xf32>) {
  %0 = math.exp %x : f32
  %1 = math.log %x : f32
  %2 = math.tanh %x : f32
  %3 = math.powf %v, %v : vector<4x8xf32>
  return %0, %1, %2, %3 : f32, f32, f32, vector<4x8xf32>
}

// -----

// sqrt is left as math.sqrt: LLVM lowers it to the square-root instruction
// (sqrtps, correctly rounded). Other element types and other math ops (fma
// included) are left alone.
// CHECK-LABEL: func.func @left_alone(
// CHECK:         math.sqrt %{{.+}} : vector<16xf32>
// CHECK:         math.exp %{{.+}} : f64
// CHECK:         math.tanh %{{.+}} : vector<4xf64>
// CHECK:         math.log %{{.+}} : vector<4xf16>
// CHECK:         math.fma %{{.+}}, %{{.+}}, %{{.+}} : vector<16xf32>

// LLVM-LABEL: llvm.func @left_alone(
// LLVM:         llvm.intr.sqrt(%{{.+}}) : (vector<16xf32>) -> vector<16xf32>

// SSE2-LABEL: left_alone:
// SSE2:         sqrtps

// AVX2-LABEL: left_alone:
// AVX2:         vsqrtps{{.*}}ymm
func.func @left_alone(%q: vector<16xf32>, %x: f64, %v: vector<4xf64>, %h: vector<4xf16>)
    -> (vector<16xf32>, f64, vector<4xf64>, vector<4xf16>, vector<16xf32>) {
  %0 = math.sqrt %q : vector<16xf32>
  %1 = math.exp %x : f64
  %2 = math.tanh %v : vector<4xf64>
  %3 = math.log %h : vector<4xf16>
  %4 = math.fma %q, %q, %q : vector<16xf32>
  return %0, %1, %2, %3, %4 : vector<16xf32>, f64, vector<4xf64>, vector<4xf16>, vector<16xf32>
}

// -----

// sin: in f64, k = round(x 2/pi) by the 1.5 * 2^52 shift, r = x - k pi/2 by
// three contractible multiply-adds (Cody-Waite), r clamped to [-0.79, 0.79],
// both Taylor series, the quadrant from the shifted value's low bits, one
// rounding to f32.
// CHECK-LABEL: func.func @sin_vector(
// CHECK-SAME:    %[[X:.+]]: vector<16xf32>
// CHECK-NOT:     {{math\.|call}}
// CHECK-DAG:     %[[SHIFT:.+]] = arith.constant dense<0x4338000000000000> : vector<16xf64>
// CHECK-DAG:     %[[TWO_OVER_PI:.+]] = arith.constant dense<0.63661977236758138> : vector<16xf64>
// CHECK-DAG:     %[[P1:.+]] = arith.constant dense<-1.5707962512969971> : vector<16xf64>
// CHECK-DAG:     %[[P2:.+]] = arith.constant dense<-7.5497894158615964E-8> : vector<16xf64>
// CHECK-DAG:     %[[P3:.+]] = arith.constant dense<-5.390302858158119E-15> : vector<16xf64>
// CHECK-DAG:     %[[BOUND:.+]] = arith.constant dense<7.900000e-01> : vector<16xf64>
// CHECK:         %[[X64:.+]] = arith.extf %[[X]] : vector<16xf32> to vector<16xf64>
// CHECK:         %[[Q:.+]] = arith.mulf %[[X64]], %[[TWO_OVER_PI]] fastmath<contract> : vector<16xf64>
// CHECK:         %[[S:.+]] = arith.addf %[[Q]], %[[SHIFT]] fastmath<contract> : vector<16xf64>
// CHECK:         %[[K:.+]] = arith.subf %[[S]], %[[SHIFT]] : vector<16xf64>
// CHECK:         arith.mulf %[[K]], %[[P1]] fastmath<contract> : vector<16xf64>
// CHECK:         arith.mulf %[[K]], %[[P2]] fastmath<contract> : vector<16xf64>
// CHECK:         arith.mulf %[[K]], %[[P3]] fastmath<contract> : vector<16xf64>
// CHECK:         arith.cmpf ogt, %{{.+}}, %[[BOUND]] : vector<16xf64>
// CHECK:         %[[BITS:.+]] = arith.bitcast %[[S]] : vector<16xf64> to vector<16xi64>
// CHECK:         arith.trunci %[[BITS]] : vector<16xi64> to vector<16xi32>
// CHECK:         %[[R:.+]] = arith.truncf %{{.+}} : vector<16xf64> to vector<16xf32>
// CHECK-NOT:     {{math\.|call}}
// CHECK:         return %[[R]]

// cos: the same, with the quadrant one further.
// CHECK-LABEL: func.func @cos_vector(
// CHECK-NOT:     {{math\.|call}}
// CHECK:         %[[BITS:.+]] = arith.bitcast %{{.+}} : vector<16xf64> to vector<16xi64>
// CHECK:         %[[Q:.+]] = arith.trunci %[[BITS]] : vector<16xi64> to vector<16xi32>
// CHECK:         arith.addi %[[Q]], %{{.+}} : vector<16xi32>
// CHECK-NOT:     {{math\.|call}}
// CHECK:         return

// LLVM-LABEL: llvm.func @sin_vector(
// LLVM-NOT:     {{llvm.call|llvm.intr.(sin|cos|floor|fma)}}
// LLVM:         llvm.fpext %{{.+}} : vector<16xf32> to vector<16xf64>
// LLVM-NOT:     {{llvm.call|llvm.intr.(sin|cos|floor|fma)}}
// LLVM:         llvm.return
// LLVM-LABEL: llvm.func @cos_vector(
// LLVM-NOT:     {{llvm.call|llvm.intr.(sin|cos|floor|fma)}}
// LLVM:         llvm.return

// SSE2-LABEL: sin_vector:
// SSE2-NOT:     call
// SSE2:         cvtps2pd
// SSE2-NOT:     call
// SSE2:         cvtpd2ps
// SSE2-NOT:     call
// SSE2:         ret
// SSE2-LABEL: cos_vector:
// SSE2-NOT:     call
// SSE2:         ret

// AVX2-LABEL: sin_vector:
// AVX2-NOT:     call
// AVX2:         vfmadd{{.*}}ymm
// AVX2-NOT:     call
// AVX2:         ret
// AVX2-LABEL: cos_vector:
// AVX2-NOT:     call
// AVX2:         ret
func.func @sin_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.sin %x : vector<16xf32>
  return %0 : vector<16xf32>
}
func.func @cos_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.cos %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// log1p: log(1 + x) in f64 (1 + x exact there), frexp from the i64 bits,
// 2 atanh((m - 1) / (m + 1)), then x itself below 2^-29, inf, -inf at -1 and
// NaN below -1 (and for NaN) by selects.
// CHECK-LABEL: func.func @log1p_vector(
// CHECK-SAME:    %[[X:.+]]: vector<16xf32>
// CHECK-NOT:     {{math\.(log1p|log|fma)|call}}
// CHECK-DAG:     %[[ONE:.+]] = arith.constant dense<1.000000e+00> : vector<16xf64>
// CHECK-DAG:     %[[TINY:.+]] = arith.constant dense<1.86264515E-9> : vector<16xf32>
// CHECK-DAG:     %[[MINUS_ONE:.+]] = arith.constant dense<-1.000000e+00> : vector<16xf32>
// CHECK-DAG:     %[[NAN:.+]] = arith.constant dense<0x7FC00000> : vector<16xf32>
// CHECK:         %[[X64:.+]] = arith.extf %[[X]] : vector<16xf32> to vector<16xf64>
// CHECK:         %[[U:.+]] = arith.addf %[[X64]], %[[ONE]] : vector<16xf64>
// CHECK:         %[[BITS:.+]] = arith.bitcast %[[U]] : vector<16xf64> to vector<16xi64>
// CHECK:         arith.shrui %[[BITS]], %{{.+}} : vector<16xi64>
// CHECK:         arith.divf %{{.+}}, %{{.+}} : vector<16xf64>
// CHECK:         arith.sitofp %{{.+}} : vector<16xi32> to vector<16xf64>
// CHECK:         %[[LOG:.+]] = arith.truncf %{{.+}} : vector<16xf64> to vector<16xf32>
// CHECK:         %[[AX:.+]] = math.absf %[[X]] : vector<16xf32>
// CHECK:         %[[SMALL:.+]] = arith.cmpf olt, %[[AX]], %[[TINY]] : vector<16xf32>
// CHECK:         arith.select %[[SMALL]], %[[X]], %[[LOG]]
// CHECK:         %[[INVALID:.+]] = arith.cmpf ult, %[[X]], %[[MINUS_ONE]] : vector<16xf32>
// CHECK:         %[[R:.+]] = arith.select %[[INVALID]], %[[NAN]], %{{.+}}
// CHECK-NOT:     {{math\.(log1p|log|fma)|call}}
// CHECK:         return %[[R]]

// LLVM-LABEL: llvm.func @log1p_vector(
// LLVM-NOT:     {{llvm.call|llvm.intr.(log|floor|fma)}}
// LLVM:         llvm.fdiv %{{.+}}, %{{.+}} : vector<16xf64>
// LLVM-NOT:     {{llvm.call|llvm.intr.(log|floor|fma)}}
// LLVM:         llvm.return

// SSE2-LABEL: log1p_vector:
// SSE2-NOT:     call
// SSE2:         divpd
// SSE2-NOT:     call
// SSE2:         ret

// AVX2-LABEL: log1p_vector:
// AVX2-NOT:     call
// AVX2:         vdivpd{{.*}}ymm
// AVX2-NOT:     call
// AVX2:         ret
func.func @log1p_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.log1p %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// expm1: in f64, x clamped to [-104, 89], n = round(x / ln 2) by the shift,
// r = x - n ln 2 in two parts, r P(r), 2^n from the shifted value's bits,
// 2^n expm1(r) + (2^n - 1) rounded once; x's sign, NaN passed through.
// CHECK-LABEL: func.func @expm1_vector(
// CHECK-SAME:    %[[X:.+]]: vector<16xf32>
// CHECK-NOT:     {{math\.(expm1|exp|fma)|call}}
// CHECK-DAG:     %[[LO:.+]] = arith.constant dense<-1.040000e+02> : vector<16xf64>
// CHECK-DAG:     %[[HI:.+]] = arith.constant dense<8.900000e+01> : vector<16xf64>
// CHECK-DAG:     %[[SHIFT:.+]] = arith.constant dense<0x4338000000000000> : vector<16xf64>
// CHECK-DAG:     %[[ONE:.+]] = arith.constant dense<1.000000e+00> : vector<16xf64>
// CHECK:         %[[X64:.+]] = arith.extf %[[X]] : vector<16xf32> to vector<16xf64>
// CHECK:         arith.cmpf oge, %[[X64]], %[[LO]] : vector<16xf64>
// CHECK:         arith.cmpf ole, %{{.+}}, %[[HI]] : vector<16xf64>
// CHECK:         %[[S:.+]] = arith.addf %{{.+}}, %[[SHIFT]] fastmath<contract> : vector<16xf64>
// CHECK:         %[[BITS:.+]] = arith.bitcast %[[S]] : vector<16xf64> to vector<16xi64>
// CHECK:         arith.shli %{{.+}}, %{{.+}} : vector<16xi64>
// CHECK:         %[[P2:.+]] = arith.bitcast %{{.+}} : vector<16xi64> to vector<16xf64>
// CHECK:         arith.subf %[[P2]], %[[ONE]] : vector<16xf64>
// CHECK:         %[[T:.+]] = arith.truncf %{{.+}} : vector<16xf64> to vector<16xf32>
// CHECK:         %[[SIGNED:.+]] = math.copysign %[[T]], %[[X]] : vector<16xf32>
// CHECK:         %[[ISNAN:.+]] = arith.cmpf uno, %[[X]], %[[X]] : vector<16xf32>
// CHECK:         %[[R:.+]] = arith.select %[[ISNAN]], %[[X]], %[[SIGNED]]
// CHECK-NOT:     {{math\.(expm1|exp|fma)|call}}
// CHECK:         return %[[R]]

// LLVM-LABEL: llvm.func @expm1_vector(
// LLVM-NOT:     {{llvm.call|llvm.intr.(exp|floor|fma)}}
// LLVM:         llvm.shl %{{.+}}, %{{.+}} : vector<16xi64>
// LLVM-NOT:     {{llvm.call|llvm.intr.(exp|floor|fma)}}
// LLVM:         llvm.return

// SSE2-LABEL: expm1_vector:
// SSE2-NOT:     call
// SSE2:         psllq
// SSE2-NOT:     call
// SSE2:         ret

// AVX2-LABEL: expm1_vector:
// AVX2-NOT:     call
// AVX2:         vfmadd{{.*}}ymm
// AVX2-NOT:     call
// AVX2:         ret
func.func @expm1_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.expm1 %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// erf: in f64, x P(x^2) below 2, Q((|x| - 2.96875) / 0.96875) with x's sign
// up to 3.9375 and ±1 beyond, rounded once; NaN passed through.
// CHECK-LABEL: func.func @erf_vector(
// CHECK-SAME:    %[[X:.+]]: vector<16xf32>
// CHECK-NOT:     {{math\.(erf|exp|fma)|call}}
// CHECK-DAG:     %[[TWO:.+]] = arith.constant dense<2.000000e+00> : vector<16xf64>
// CHECK-DAG:     %[[END:.+]] = arith.constant dense<3.937500e+00> : vector<16xf64>
// CHECK-DAG:     %[[CENTER:.+]] = arith.constant dense<2.968750e+00> : vector<16xf64>
// CHECK:         %[[X64:.+]] = arith.extf %[[X]] : vector<16xf32> to vector<16xf64>
// CHECK:         %[[AX:.+]] = math.absf %[[X64]] : vector<16xf64>
// CHECK:         %[[T:.+]] = arith.mulf %[[X64]], %[[X64]] : vector<16xf64>
// CHECK:         %[[SMALL:.+]] = arith.mulf %[[X64]], %{{.+}} : vector<16xf64>
// CHECK:         arith.subf %[[AX]], %[[CENTER]] : vector<16xf64>
// CHECK:         arith.cmpf olt, %[[AX]], %[[END]] : vector<16xf64>
// CHECK:         %[[LARGE:.+]] = math.copysign %{{.+}}, %[[X64]] : vector<16xf64>
// CHECK:         %[[BELOW2:.+]] = arith.cmpf olt, %[[AX]], %[[TWO]] : vector<16xf64>
// CHECK:         %[[V:.+]] = arith.select %[[BELOW2]], %[[SMALL]], %[[LARGE]]
// CHECK:         arith.truncf %[[V]] : vector<16xf64> to vector<16xf32>
// CHECK-NOT:     {{math\.(erf|exp|fma)|call}}
// CHECK:         return

// LLVM-LABEL: llvm.func @erf_vector(
// LLVM-NOT:     {{llvm.call|llvm.intr.(erf|exp|floor|fma)}}
// LLVM:         llvm.fptrunc %{{.+}} : vector<16xf64> to vector<16xf32>
// LLVM-NOT:     {{llvm.call|llvm.intr.(erf|exp|floor|fma)}}
// LLVM:         llvm.return

// SSE2-LABEL: erf_vector:
// SSE2-NOT:     call
// SSE2:         mulpd
// SSE2-NOT:     call
// SSE2:         ret

// AVX2-LABEL: erf_vector:
// AVX2-NOT:     call
// AVX2:         vfmadd{{.*}}ymm
// AVX2-NOT:     call
// AVX2:         ret
func.func @erf_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.erf %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// floor, ceil and roundeven without SSE4.1's roundps: |x| + 2^23 - 2^23
// with x's sign, x itself from 2^23 on (and for inf, NaN); floor takes 1
// where that is above x, ceil adds 1 where it is below, and both put x's
// sign back.
// CHECK-LABEL: func.func @roundings(
// CHECK-SAME:    %[[X:.+]]: vector<16xf32>
// CHECK-NOT:     {{math\.(floor|ceil|roundeven|round)|call}}
// CHECK-DAG:     %[[SHIFT:.+]] = arith.constant dense<0x4B000000> : vector<16xf32>
// CHECK-DAG:     %[[MINUS_ONE:.+]] = arith.constant dense<-1.000000e+00> : vector<16xf32>
// CHECK-DAG:     %[[ONE:.+]] = arith.constant dense<1.000000e+00> : vector<16xf32>
// The floor.
// CHECK:         %[[AX:.+]] = math.absf %[[X]] : vector<16xf32>
// CHECK:         %[[UP:.+]] = arith.addf %[[AX]], %[[SHIFT]] : vector<16xf32>
// CHECK:         %[[INT:.+]] = arith.subf %[[UP]], %[[SHIFT]] : vector<16xf32>
// CHECK:         %[[SIGNED:.+]] = math.copysign %[[INT]], %[[X]] : vector<16xf32>
// CHECK:         %[[SMALL:.+]] = arith.cmpf olt, %[[AX]], %[[SHIFT]] : vector<16xf32>
// CHECK:         %[[NEAREST:.+]] = arith.select %[[SMALL]], %[[SIGNED]], %[[X]]
// CHECK:         %[[ABOVE:.+]] = arith.cmpf ogt, %[[NEAREST]], %[[X]] : vector<16xf32>
// CHECK:         %[[DOWN:.+]] = arith.addf %[[NEAREST]], %[[MINUS_ONE]] : vector<16xf32>
// CHECK:         %[[F:.+]] = arith.select %[[ABOVE]], %[[DOWN]], %[[NEAREST]]
// CHECK:         %[[FLOOR:.+]] = math.copysign %[[F]], %[[X]] : vector<16xf32>
// The ceil.
// CHECK:         %[[CN:.+]] = arith.select %{{.+}}, %{{.+}}, %[[X]]
// CHECK:         %[[BELOW:.+]] = arith.cmpf olt, %[[CN]], %[[X]] : vector<16xf32>
// CHECK:         arith.addf %[[CN]], %[[ONE]] : vector<16xf32>
// CHECK:         %[[CEIL:.+]] = math.copysign %{{.+}}, %[[X]] : vector<16xf32>
// The round: nearest alone.
// CHECK:         %[[ROUND:.+]] = arith.select %{{.+}}, %{{.+}}, %[[X]]
// CHECK-NOT:     {{math\.(floor|ceil|roundeven|round)|call}}
// CHECK:         return %[[FLOOR]], %[[CEIL]], %[[ROUND]]

// LLVM-LABEL: llvm.func @roundings(
// LLVM-NOT:     {{llvm.call|llvm.intr.(floor|ceil|roundeven|round|rint|nearbyint)}}
// LLVM:         llvm.intr.copysign
// LLVM-NOT:     {{llvm.call|llvm.intr.(floor|ceil|roundeven|round|rint|nearbyint)}}
// LLVM:         llvm.return

// SSE2-LABEL: roundings:
// SSE2-NOT:     call
// SSE2:         addps
// SSE2-NOT:     call
// SSE2:         ret

// AVX2-LABEL: roundings:
// AVX2-NOT:     call
// AVX2:         ret
func.func @roundings(%x: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>) {
  %0 = math.floor %x : vector<16xf32>
  %1 = math.ceil %x : vector<16xf32>
  %2 = math.roundeven %x : vector<16xf32>
  return %0, %1, %2 : vector<16xf32>, vector<16xf32>, vector<16xf32>
}

// -----

// The new expansions on scalars; f64 and math.round (half away from zero,
// not an arr op) are left alone.
// CHECK-LABEL: func.func @more_scalars(
// CHECK-NOT:     {{math\.(sin|cos|log1p|expm1|erf|floor|ceil|roundeven)|call}}
// CHECK:         arith.extf %{{.+}} : f32 to f64
// CHECK:         arith.truncf %{{.+}} : f64 to f32
// CHECK-NOT:     {{math\.(sin|cos|log1p|expm1|erf|floor|ceil|roundeven)|call}}
// CHECK:         math.sin %{{.+}} : f64
// CHECK:         math.floor %{{.+}} : vector<4xf64>
// CHECK:         math.round %{{.+}} : f32
// CHECK:         return
func.func @more_scalars(%x: f32, %d: f64, %v: vector<4xf64>)
    -> (f32, f32, f32, f32, f32, f32, f32, f32, f64, vector<4xf64>, f32) {
  %0 = math.sin %x : f32
  %1 = math.cos %x : f32
  %2 = math.log1p %x : f32
  %3 = math.expm1 %x : f32
  %4 = math.erf %x : f32
  %5 = math.floor %x : f32
  %6 = math.ceil %x : f32
  %7 = math.roundeven %x : f32
  %8 = math.sin %d : f64
  %9 = math.floor %v : vector<4xf64>
  %10 = math.round %x : f32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10
      : f32, f32, f32, f32, f32, f32, f32, f32, f64, vector<4xf64>, f32
}
