# `vmapc compile` + `vmapc run` of tuples, loops, slices and concat, on
# known numbers: a tuple return with per-output out_axes (one of them none),
# the same value returned twice, a concat of a mapped and a shared piece
# (its pieces are written in place into the output, no memrefCopy call), and
# a loop carry initialised from an input, over several launches (N = 5 at
# B = 2: the input must not be updated in place between launches).
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: vmapc compile %s -o %t/prog.vmapc
# RUN: %python %S/make_npy.py %t/x.npy f4 5,2  1 2  3 4  5 6  7 8  9 10
# RUN: %python %S/make_npy.py %t/w.npy f4 2  0.5 -1
#
# twice(x) = (2x, 2x, w + w): outputs stacked on axes 0, 1 and none.
# RUN: vmapc run %t/prog.vmapc --entry twice_e --input %t/x.npy --input %t/w.npy --output %t/a.npy --output %t/b.npy --output %t/c.npy
# RUN: %python %S/dump_npy.py %t/a.npy | FileCheck %s --check-prefix=A
# A: dtype <f4 shape [5, 2]
# A-NEXT: [2, 4]
# A-NEXT: [6, 8]
# A-NEXT: [10, 12]
# A-NEXT: [14, 16]
# A-NEXT: [18, 20]
# RUN: %python %S/dump_npy.py %t/b.npy | FileCheck %s --check-prefix=B
# B: dtype <f4 shape [2, 5]
# B-NEXT: [2, 6, 10, 14, 18]
# B-NEXT: [4, 8, 12, 16, 20]
# RUN: %python %S/dump_npy.py %t/c.npy | FileCheck %s --check-prefix=C
# C: dtype <f4 shape [2]
# C-NEXT: [1, -2]
#
# glue(x) = concat((x[::-1], w)): [x1, x0, 0.5, -1].
# RUN: vmapc run %t/prog.vmapc --entry glue_e --input %t/x.npy --input %t/w.npy --output %t/g.npy
# RUN: %python %S/dump_npy.py %t/g.npy | FileCheck %s --check-prefix=G
# G: dtype <f4 shape [5, 4]
# G-NEXT: [2, 1, 0.5, -1]
# G-NEXT: [4, 3, 0.5, -1]
# G-NEXT: [6, 5, 0.5, -1]
# G-NEXT: [8, 7, 0.5, -1]
# G-NEXT: [10, 9, 0.5, -1]
#
# grow(x) doubles w three times (a carry that depends on no mapped input,
# initialised from the shared w) and adds x: w * 8 + x, the same in every
# launch.
# RUN: vmapc run %t/prog.vmapc --entry grow_e --input %t/x.npy --input %t/w.npy --output %t/r.npy
# RUN: %python %S/dump_npy.py %t/r.npy | FileCheck %s --check-prefix=R
# R: dtype <f4 shape [5, 2]
# R-NEXT: [5, -6]
# R-NEXT: [7, -4]
# R-NEXT: [9, -2]
# R-NEXT: [11, 0]
# R-NEXT: [13, 2]
#
# N = 0: empty mapped outputs of the right shapes, the unmapped one whole.
# RUN: %python %S/make_npy.py %t/x0.npy f4 0,2
# RUN: vmapc run %t/prog.vmapc --entry twice_e --input %t/x0.npy --input %t/w.npy --output %t/a0.npy --output %t/b0.npy --output %t/c0.npy
# RUN: %python %S/dump_npy.py %t/b0.npy | FileCheck %s --check-prefix=B0
# B0: dtype <f4 shape [2, 0]
# RUN: %python %S/dump_npy.py %t/c0.npy | FileCheck %s --check-prefix=C

fn twice(x: f32[2], w: f32[2]) -> (f32[2], f32[2], f32[2]) {
  let y = x * 2.0;
  return (y, y, w + w);
}
fn glue(x: f32[2], w: f32[2]) -> f32[4] {
  return concat((x[::-1], w));
}
fn grow(x: f32[2], w: f32[2]) -> f32[2] {
  for i in range(3) carry (acc = w) {
    yield acc * 2.0;
  }
  return acc + x;
}
export twice_e = vmap(twice, in_axes=(0, none), out_axes=(0, 1, none), batch=2);
export glue_e = vmap(glue, in_axes=(0, none), batch=2);
export grow_e = vmap(grow, in_axes=(0, none), batch=2);
