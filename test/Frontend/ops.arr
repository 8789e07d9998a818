# RUN: vmapc-opt %s -split-input-file | FileCheck %s
# The arr IR of the operators and builtins.

# and / or / not on bool; `not` binds more loosely than comparisons and
# `and` more tightly than `or` (Python).
# CHECK-LABEL: func.func private @logic(
# CHECK-SAME: %[[I:.+]]: tensor<3xi32>, %[[B:.+]]: tensor<3xi1>)
# CHECK: %[[Z:.+]] = arr.constant dense<0> : tensor<3xi32>
# CHECK: %[[C:.+]] = arr.cmp gt, %[[I]], %[[Z]] : tensor<3xi32> -> tensor<3xi1>
# CHECK: %[[N:.+]] = arr.not %[[C]] : tensor<3xi1>
# CHECK: %[[A:.+]] = arr.and %[[N]], %[[B]] : tensor<3xi1>
# CHECK: %[[O:.+]] = arr.or %[[B]], %[[A]] : tensor<3xi1>
# CHECK: return %[[O]]
fn logic(i: i32[3], b: bool[3]) -> bool[3] {
  return b or not i > 0 and b;
}

# -----

# `**` is arr.pow: it binds tighter than a unary minus on its left and is
# right-associative; a weak literal takes the other side's type and shape.
# CHECK-LABEL: func.func private @power(
# CHECK-SAME: %[[X:.+]]: tensor<3xf32>)
# CHECK: %[[T:.+]] = arr.constant dense<2.000000e+00> : tensor<3xf32>
# CHECK: %[[P:.+]] = arr.pow %[[X]], %[[T]] : tensor<3xf32>
# CHECK: %[[N:.+]] = arr.neg %[[P]] : tensor<3xf32>
# CHECK: %[[XX:.+]] = arr.pow %[[X]], %[[X]] : tensor<3xf32>
# CHECK: %[[R:.+]] = arr.pow %[[X]], %[[XX]] : tensor<3xf32>
# CHECK: %[[E:.+]] = arr.constant dense<8.000000e+00> : tensor<3xf32>
# CHECK: arr.pow %{{.+}}, %[[E]] : tensor<3xf32>
fn power(x: f32[3]) -> f32[3] {
  let a = -x ** 2;
  let b = x ** x ** x;
  return (a + b) ** 2 ** 3;
}

# -----

# abs, sign, maximum, minimum, pow and where broadcast like the operators.
# CHECK-LABEL: func.func private @elementwise(
# CHECK-SAME: %[[X:.+]]: tensor<2x3xf32>, %[[Y:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<2x1xi1>, %[[I:.+]]: tensor<3xi32>)
# CHECK: arr.abs %[[X]] : tensor<2x3xf32>
# CHECK: arr.sign %[[I]] : tensor<3xi32>
# CHECK: %[[BY:.+]] = arr.broadcast_in_dim %[[Y]], dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
# CHECK: arr.maximum %[[X]], %[[BY]] : tensor<2x3xf32>
# CHECK: %[[Z:.+]] = arr.constant dense<0> : tensor<3xi32>
# CHECK: arr.minimum %[[I]], %[[Z]] : tensor<3xi32>
# CHECK: %[[TWO:.+]] = arr.constant dense<2.000000e+00> : tensor<3xf32>
# CHECK: arr.pow %[[TWO]], %[[Y]] : tensor<3xf32>
# CHECK: %[[BC:.+]] = arr.broadcast_in_dim %[[C]], dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x3xi1>
# CHECK: %[[BY2:.+]] = arr.broadcast_in_dim %[[Y]], dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
# CHECK: %[[ZF:.+]] = arr.constant dense<0.000000e+00> : tensor<2x3xf32>
# CHECK: arr.select %[[BC]], %[[BY2]], %[[ZF]] : tensor<2x3xi1>, tensor<2x3xf32>
fn elementwise(x: f32[2, 3], y: f32[3], c: bool[2, 1], i: i32[3]) -> f32[2, 3] {
  let a = abs(x);
  let s = sign(i);
  let m = maximum(x, y);
  let n = minimum(i, 0);
  let p = pow(2, y);
  let w = where(c, y, 0.0);
  return a + m + p + w;
}

# -----

# Casts are arr.convert; bool is accepted; a cast to the same dtype is
# nothing.
# CHECK-LABEL: func.func private @casts(
# CHECK-SAME: %[[X:.+]]: tensor<3xf32>, %[[I:.+]]: tensor<3xi32>, %[[B:.+]]: tensor<3xi1>)
# CHECK: %[[XI:.+]] = arr.convert %[[X]] : tensor<3xf32> -> tensor<3xi32>
# CHECK: %[[BI:.+]] = arr.convert %[[B]] : tensor<3xi1> -> tensor<3xi32>
# CHECK: arr.add %[[XI]], %[[BI]] : tensor<3xi32>
# CHECK: %[[S:.+]] = arr.add %{{.+}}, %[[I]] : tensor<3xi32>
# CHECK: %[[F:.+]] = arr.convert %[[S]] : tensor<3xi32> -> tensor<3xf32>
# CHECK: %[[SEVEN:.+]] = arr.constant dense<7.000000e+00> : tensor<f32>
# CHECK: %[[BS:.+]] = arr.broadcast_in_dim %[[SEVEN]], dims = []
# CHECK: arr.add %[[F]], %[[BS]] : tensor<3xf32>
fn casts(x: f32[3], i: i32[3], b: bool[3]) -> f32[3] {
  let j = i32(x) + i32(b) + i32(i);
  return f32(j) + f32(7);
}

# -----

# mean is a sum divided by a splat of the count; axis= as for sum.
# CHECK-LABEL: func.func private @means(
# CHECK-SAME: %[[X:.+]]: tensor<4x6xf32>)
# CHECK: %[[S:.+]] = arr.reduce_sum %[[X]], dims = [1] : (tensor<4x6xf32>) -> tensor<4xf32>
# CHECK: %[[N:.+]] = arr.constant dense<6.000000e+00> : tensor<4xf32>
# CHECK: arr.div %[[S]], %[[N]] : tensor<4xf32>
# CHECK: %[[T:.+]] = arr.reduce_sum %[[X]], dims = [0, 1] : (tensor<4x6xf32>) -> tensor<f32>
# CHECK: %[[M:.+]] = arr.constant dense<2.400000e+01> : tensor<f32>
# CHECK: arr.div %[[T]], %[[M]] : tensor<f32>
fn means(x: f32[4, 6]) -> f32[4] {
  return mean(x, axis=-1) - mean(x);
}

# -----

# transpose (reversed axes by default, or perm=), x.T, reshape with one -1,
# broadcast_to (numpy rules, an arr.broadcast_in_dim).
# CHECK-LABEL: func.func private @shapes(
# CHECK-SAME: %[[X:.+]]: tensor<2x3x4xf32>, %[[V:.+]]: tensor<3x1xf32>)
# CHECK: arr.transpose %[[X]], perm = [2, 1, 0] : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
# CHECK: arr.transpose %[[X]], perm = [1, 0, 2] : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
# CHECK: arr.transpose %[[X]], perm = [2, 1, 0] : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
# CHECK: arr.reshape %[[X]] : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
# CHECK: arr.broadcast_in_dim %[[V]], dims = [1, 2] : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
fn shapes(x: f32[2, 3, 4], v: f32[3, 1]) -> f32[6, 4] {
  let a = transpose(x);
  let b = transpose(x, perm=(1, 0, -1));
  let c = x.T;
  let d = reshape(x, (-1, 4));
  let e = broadcast_to(v, (2, 3, 4));
  return d;
}

# -----

# concat: default axis 0, negative axes count from the end.
# CHECK-LABEL: func.func private @concats(
# CHECK-SAME: %[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x4xf32>)
# CHECK: arr.concat %[[A]], %[[B]]{{,?}} dim = 1 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x7xf32>
# CHECK: arr.concat %[[A]], %[[A]], %[[A]]{{,?}} dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>
fn concats(a: f32[2, 3], b: f32[2, 4]) -> f32[2, 7] {
  let c = concat((a, b), axis=-1);
  let d = concat((a, a, a));
  return c;
}

# -----

# iota, zeros and ones (f32 unless dtype=), literal arrays (weak: i32 for
# integers unless next to f32; f32 with any float).
# CHECK-LABEL: func.func private @constants(
# CHECK-SAME: %[[X:.+]]: tensor<2x2xf32>)
# CHECK: arr.iota dim = 0 : tensor<5xi32>
# CHECK: arr.constant dense<0.000000e+00> : tensor<2x3xf32>
# CHECK: arr.constant dense<1> : tensor<4xi32>
# CHECK: arr.constant dense<true> : tensor<2xi1>
# CHECK: arr.constant dense<0.000000e+00> : tensor<f32>
# CHECK: %[[L:.+]] = arr.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, -4.000000e+00]]> : tensor<2x2xf32>
# CHECK: arr.add %[[X]], %[[L]] : tensor<2x2xf32>
# CHECK: %[[R:.+]] = arr.constant dense<[1, -2]> : tensor<2xi32>
# CHECK: return %[[R]] : tensor<2xi32>
fn constants(x: f32[2, 2]) -> i32[2] {
  let i = iota(5);
  let z = zeros((2, 3));
  let o = ones(4, dtype=i32);
  let t = ones((2,), dtype=bool);
  let s = zeros(());
  let y = x + [[1, 2], [3, -4]];
  return [1, -2];
}

# -----

# Static slices: numpy's basic slicing, an int index drops its dimension
# (arr.slice, then arr.reshape); a full slice is nothing.
# CHECK-LABEL: func.func private @slices(
# CHECK-SAME: %[[X:.+]]: tensor<8x6xf32>)
# CHECK: arr.slice %[[X]], start = [1, 0], stride = [1, 1] : (tensor<8x6xf32>) -> tensor<4x6xf32>
# CHECK: %[[C:.+]] = arr.slice %[[X]], start = [0, 2], stride = [1, 1] : (tensor<8x6xf32>) -> tensor<8x1xf32>
# CHECK: arr.reshape %[[C]] : (tensor<8x1xf32>) -> tensor<8xf32>
# CHECK: arr.slice %[[X]], start = [0, 0], stride = [2, 1] : (tensor<8x6xf32>) -> tensor<4x6xf32>
# CHECK: arr.slice %[[X]], start = [7, 0], stride = [-1, 1] : (tensor<8x6xf32>) -> tensor<8x6xf32>
# CHECK: %[[L:.+]] = arr.slice %[[X]], start = [7, 5], stride = [1, 1] : (tensor<8x6xf32>) -> tensor<1x1xf32>
# CHECK: arr.reshape %[[L]] : (tensor<1x1xf32>) -> tensor<f32>
# CHECK: arr.slice %[[X]], start = [6, 5], stride = [-2, -3] : (tensor<8x6xf32>) -> tensor<3x2xf32>
# CHECK: return %[[X]]
fn slices(x: f32[8, 6]) -> f32[8, 6] {
  let a = x[1:5];
  let b = x[:, 2];
  let c = x[::2];
  let d = x[::-1];
  let e = x[-1, -1];
  let f = x[-2:0:-2, ::-3];
  return x[:, :];
}
