//===- GenMain.cpp - print one generated property program -----------------===//
//
// vmapc-property-gen SEED [COUNT] [--jax]: the .arr text (or the JAX text) of
// the programs of seeds SEED .. SEED + COUNT - 1, as the property tests
// generate them (same VMAPC_PROPERTY_DISABLE/_ENABLE switches).
//
//===----------------------------------------------------------------------===//

#include "test/property/Generator.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: vmapc-property-gen SEED [COUNT] [--jax]\n");
    return 2;
  }
  bool jax = false;
  long long count = 1;
  unsigned long long seed = std::strtoull(argv[1], nullptr, 10);
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--jax"))
      jax = true;
    else
      count = std::strtoll(argv[i], nullptr, 10);
  }
  auto features = vmapc::property::Features::fromEnvironment();
  if (jax)
    std::fputs(vmapc::property::jaxPrelude().c_str(), stdout);
  for (long long i = 0; i < count; ++i) {
    auto p = vmapc::property::generateProgram(
        seed + i, "p" + std::to_string(seed + i) + "_", features);
    std::fputs((jax ? p.jax : p.arr).c_str(), stdout);
  }
  return 0;
}
