//===- HostData.cpp - Random inputs and poisoned outputs ------------------===//

#include "HostData.h"

#include <cstring>

namespace vmapc::gpuhost {

std::optional<DataKind> parseDataKind(const std::string &name) {
  if (name == "uniform")
    return DataKind::Uniform;
  if (name == "int")
    return DataKind::Int;
  if (name == "positive")
    return DataKind::Positive;
  if (name == "small")
    return DataKind::Small;
  return std::nullopt;
}

const char *dataKindName(DataKind kind) {
  switch (kind) {
  case DataKind::Uniform:
    return "uniform";
  case DataKind::Int:
    return "int";
  case DataKind::Positive:
    return "positive";
  case DataKind::Small:
    return "small";
  }
  return "?";
}

uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

namespace {

/// 24 random bits as a float in [0, 1) (exact: a multiple of 2^-24).
float unit(uint64_t r) {
  return static_cast<float>(r >> 40) * (1.0f / 16777216.0f);
}

float randomF32(uint64_t r, DataKind kind) {
  switch (kind) {
  case DataKind::Uniform:
    return unit(r) * 2.0f - 1.0f;
  case DataKind::Int:
    return static_cast<float>(static_cast<int>(r % 17) - 8);
  case DataKind::Positive:
    return 0.25f + unit(r) * 3.75f;
  case DataKind::Small:
    return unit(r) * 0.25f - 0.125f;
  }
  return 0;
}

int32_t randomI32(uint64_t r, DataKind kind) {
  switch (kind) {
  case DataKind::Uniform:
    return static_cast<int32_t>(r % 2001) - 1000;
  case DataKind::Int:
  case DataKind::Small:
    return static_cast<int32_t>(r % 17) - 8;
  case DataKind::Positive:
    return 1 + static_cast<int32_t>(r % 1000);
  }
  return 0;
}

} // namespace

void fillRandom(void *data, DType dtype, size_t count, DataKind kind,
                uint64_t seed) {
  uint64_t state = seed;
  auto *bytes = static_cast<unsigned char *>(data);
  for (size_t i = 0; i < count; ++i) {
    uint64_t r = splitmix64(&state);
    switch (dtype) {
    case DType::F32: {
      float x = randomF32(r, kind);
      std::memcpy(bytes + 4 * i, &x, 4);
      break;
    }
    case DType::I32: {
      int32_t x = randomI32(r, kind);
      std::memcpy(bytes + 4 * i, &x, 4);
      break;
    }
    case DType::Bool:
      bytes[i] = static_cast<unsigned char>(r & 1);
      break;
    }
  }
}

} // namespace vmapc::gpuhost
