#!/usr/bin/env python3
"""Writes the .npy seeds of npy_reader_fuzzer with numpy's own writer.

Usage: make_npy_seeds.py OUTDIR   (needs numpy; the seeds are checked in, in
fuzz/corpus/npy_reader_fuzzer, so this runs only to remake them)

Every dtype the runtime reads (<f4, <i4, |b1) at ranks 0-5, empty arrays,
format versions 1.0 and 2.0; and valid .npy files the reader must refuse
with an error: other dtypes, big-endian, Fortran order, version 3.0.
"""
import os
import sys

import numpy as np
from numpy.lib import format as npy_format


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    def save(name, array, version=None):
        with open(os.path.join(out, name), 'wb') as f:
            npy_format.write_array(f, array, version=version,
                                   allow_pickle=False)

    rng = np.random.default_rng(7)
    save('f32_scalar.npy', np.array(1.5, dtype='<f4'))
    save('f32_vec.npy', np.arange(5, dtype='<f4') - 2.5)
    save('f32_2x3.npy', rng.standard_normal((2, 3)).astype('<f4'))
    save('f32_2x0x3.npy', np.zeros((2, 0, 3), dtype='<f4'))
    save('f32_v2.npy', np.arange(4, dtype='<f4').reshape(2, 2), version=(2, 0))
    save('f32_rank5.npy', np.ones((1, 2, 1, 2, 1), dtype='<f4'))
    save('i32_vec.npy', np.array([-2**31, -1, 0, 1, 2**31 - 1], dtype='<i4'))
    save('i32_3x2x2.npy', np.arange(12, dtype='<i4').reshape(3, 2, 2))
    save('i32_empty.npy', np.zeros((0,), dtype='<i4'))
    save('i32_v2.npy', np.arange(3, dtype='<i4'), version=(2, 0))
    save('bool_vec.npy', np.array([True, False, True]))
    save('bool_2x2.npy', np.array([[True, False], [False, True]]))
    save('bool_scalar.npy', np.array(False))
    # Valid .npy files that the reader must refuse with an error.
    save('f64_vec.npy', np.arange(3, dtype='<f8'))
    save('f32_bigendian.npy', np.arange(3, dtype='>f4'))
    save('f32_fortran.npy',
         np.asfortranarray(np.arange(6, dtype='<f4').reshape(2, 3)))
    save('i64_vec.npy', np.arange(3, dtype='<i8'))
    save('u8_vec.npy', np.arange(3, dtype='|u1'))
    save('f32_v3.npy', np.arange(2, dtype='<f4'), version=(3, 0))


if __name__ == '__main__':
    main()
