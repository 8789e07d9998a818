// RUN: vmapc-opt %s --arr-expand-math -split-input-file | FileCheck %s
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

// exp: clamp, round x log2(e) with the 1.5 * 2^23 shift, Cody-Waite
// reduction and polynomial as contractible multiply-adds, 2^k from bits,
// NaN passed through.
// CHECK-LABEL: func.func @exp_vector(
// CHECK-SAME:    %[[X:.+]]: vector<16xf32>
// CHECK-NOT:     {{math\.|call}}
// CHECK-DAG:     %[[LO:.+]] = arith.constant dense<-1.040000e+02> : vector<16xf32>
// CHECK-DAG:     %[[SHIFT:.+]] = arith.constant dense<0x4B400000> : vector<16xf32>
// CHECK:         arith.cmpf oge, %[[X]], %[[LO]] : vector<16xf32>
// CHECK:         %[[S:.+]] = arith.addf %{{.+}}, %[[SHIFT]] : vector<16xf32>
// CHECK:         %[[K:.+]] = arith.subf %[[S]], %[[SHIFT]] : vector<16xf32>
// CHECK:         arith.mulf %[[K]], %{{.+}} fastmath<contract> : vector<16xf32>
// CHECK:         arith.fptosi %[[K]] : vector<16xf32> to vector<16xi32>
// CHECK:         arith.shli %{{.+}} : vector<16xi32>
// CHECK:         %[[NAN:.+]] = arith.cmpf uno, %[[X]], %[[X]] : vector<16xf32>
// CHECK:         %[[R:.+]] = arith.select %[[NAN]], %[[X]], %{{.+}} : vector<16xi1>, vector<16xf32>
// CHECK-NOT:     {{math\.|call}}
// CHECK:         return %[[R]]

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
// AVX2-NOT:     call
// AVX2:         vfmadd{{.*}}ymm
// AVX2-NOT:     call
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

// tanh: the odd polynomial below 0.55, 1 - 2 / (exp(2|x|) + 1) above (its
// exp expanded too), the sign of x on the result.
// CHECK-LABEL: func.func @tanh_vector(
// CHECK-SAME:    %[[X:.+]]: vector<16xf32>
// CHECK-NOT:     {{math\.(tanh|exp|fma)|call}}
// CHECK-DAG:     %[[SWITCH:.+]] = arith.constant dense<5.500000e-01> : vector<16xf32>
// CHECK:         %[[AX:.+]] = math.absf %[[X]] : vector<16xf32>
// CHECK:         arith.addf %[[AX]], %[[AX]] : vector<16xf32>
// CHECK:         arith.divf
// CHECK:         %[[SMALL:.+]] = arith.cmpf olt, %[[AX]], %[[SWITCH]] : vector<16xf32>
// CHECK:         %[[SEL:.+]] = arith.select %[[SMALL]]
// CHECK:         %[[R:.+]] = math.copysign %[[SEL]], %[[X]] : vector<16xf32>
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
// CHECK:         arith.fptosi %{{.+}} : f32 to i32
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
