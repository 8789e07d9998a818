//===- HostData.h - Random inputs and poisoned outputs ----------*- C++ -*-===//
//
// What the GPU test host puts into an entry's arrays. Inputs get fresh random
// data of one `DataKind` (docs/gpu.md, "Tests"):
//
//   uniform   f32 uniform in [-1, 1) on a 2^-23 grid, i32 uniform in
//             [-1000, 1000], bool 0/1
//   int       f32 and i32 integers in [-8, 8] (every sum of up to 2^20 of
//             them is exact in f32, so any summation order gives the same
//             bits, and argmin/argmax meet many ties), bool 0/1
//   positive  f32 uniform in [0.25, 4) (log, sqrt, pow), i32 in [1, 1000],
//             bool 0/1
//   small     f32 uniform in [-1/8, 1/8) (weights: a sum of 64 products of
//             them stays O(1), so tanh layers neither saturate nor amplify
//             rounding), i32 in [-8, 8], bool 0/1
//
// Outputs are poisoned before every run, with a different pattern on each
// side of a comparison, so that an element one side never writes differs
// whatever the other side does: the device under test gets 0xFF bytes (an
// f32 NaN, i32 -1, bool 255), the reference device 0x7F bytes (f32
// 3.39e38, i32 0x7f7f7f7f, bool 127).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_GPU_HOST_HOSTDATA_H
#define VMAPC_GPU_HOST_HOSTDATA_H

#include "vmapc/ArtifactFormat.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace vmapc::gpuhost {

enum class DataKind { Uniform, Int, Positive, Small };

/// "uniform", "int", "positive", "small"; nullopt for another name.
std::optional<DataKind> parseDataKind(const std::string &name);
const char *dataKindName(DataKind kind);

/// Fills `count` elements of `dtype` at `data` with random values of `kind`
/// from a splitmix64 stream seeded with `seed`.
void fillRandom(void *data, DType dtype, size_t count, DataKind kind,
                uint64_t seed);

/// The byte the device under test's outputs are poisoned with.
inline constexpr unsigned char kDevicePoison = 0xFF;
/// The byte the reference device's outputs are poisoned with.
inline constexpr unsigned char kReferencePoison = 0x7F;

/// splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
/// generators", 2014): the next value of the stream `*state`.
uint64_t splitmix64(uint64_t *state);

} // namespace vmapc::gpuhost

#endif // VMAPC_GPU_HOST_HOSTDATA_H
