# A concat of 40 pieces, more than the 32 that one buffer receives in place:
# the pieces are joined in groups first (buffers of their own, each copied
# into the result once; passes/ArrToLinalg/Shape.cpp). The values are the
# same: per example [a, b], the row [a + 0, b + 0, a + 1, b + 1, ...].
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: vmapc-opt %s --arr-to-linalg-pipeline | FileCheck %s --check-prefix=IR
# IR-COUNT-20: bufferization.alloc_tensor() : tensor<2x4xf32>
# IR-NOT: bufferization.alloc_tensor
# RUN: %python %S/make_npy.py %t/x.npy f4 3,2  0 100  1 200  2 300
# RUN: vmapc run %s --input %t/x.npy --output %t/y.npy
# RUN: %python %S/dump_npy.py %t/y.npy > %t/y.txt
# RUN: %python -c "print('dtype <f4 shape [3, 80]'); [print('[' + ', '.join(str(x + k) for k in range(40) for x in row) + ']') for row in ([0, 100], [1, 200], [2, 300])]" > %t/expected.txt
# RUN: diff %t/expected.txt %t/y.txt
fn f(x: f32[2]) -> f32[80] {
  return concat((x + 0.0, x + 1.0, x + 2.0, x + 3.0, x + 4.0, x + 5.0, x + 6.0, x + 7.0, x + 8.0, x + 9.0, x + 10.0, x + 11.0, x + 12.0, x + 13.0, x + 14.0, x + 15.0, x + 16.0, x + 17.0, x + 18.0, x + 19.0, x + 20.0, x + 21.0, x + 22.0, x + 23.0, x + 24.0, x + 25.0, x + 26.0, x + 27.0, x + 28.0, x + 29.0, x + 30.0, x + 31.0, x + 32.0, x + 33.0, x + 34.0, x + 35.0, x + 36.0, x + 37.0, x + 38.0, x + 39.0), axis=0);
}
export e = vmap(f, in_axes=0, batch=2);
