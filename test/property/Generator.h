//===- Generator.h - random well-typed .arr programs and their JAX twins -===//
//
// Property tests of vmap. `generateProgram(seed, prefix, features)`
// writes one random, well-typed `.arr` program, deterministic in `seed`: a
// per-example function (and the helpers it calls, vmaps, loops over) and an
// `export <prefix>e = vmap(<prefix>f, in_axes=..., out_axes=..., batch=B)`.
// Every top-level name starts with `prefix`, so many programs can share one
// module. The same program is written as Python over jax.numpy/lax
// (`jax.vmap` with the same in/out axes), the second oracle.
//
// Numerics. Every value carries a bound on its magnitude and an estimate of
// its absolute f32 rounding error against exact arithmetic (0 = computed
// exactly by every implementation). Discrete ops (comparisons, sign,
// argmin/argmax, casts to i32) only take exact operands, so no near-tie can
// flip them; f32 domains are kept safe (log(abs(x) + 1), exp of bounded
// values, division by abs(y) + 1, pow of a base >= 1); an f32 output whose
// error estimate exceeds 2.5e-7 is scaled by a power of two until it does not,
// so f32 outputs must agree within 1e-5 relative / 1e-6 absolute.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TEST_PROPERTY_GENERATOR_H
#define VMAPC_TEST_PROPERTY_GENERATOR_H

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace vmapc::property {

/// Which generator features (tags, see `allFeatures`) are switched off.
struct Features {
  std::set<std::string> disabled;
  bool on(const std::string &name) const { return !disabled.count(name); }
  /// The built-in defaults (features the compiler does not support yet),
  /// then VMAPC_PROPERTY_DISABLE (comma-separated tags switched off) and
  /// VMAPC_PROPERTY_ENABLE (tags switched back on).
  static Features fromEnvironment();
};

/// Every tag the generator can record: ops and syntax (switchable) and
/// axis/size kinds (`in_pos`, `out_none`, `depth3`, `B1`, ...). A tag that is
/// on must be generated at least once by a property run.
const std::vector<std::string> &allFeatures();
/// The tags that cannot be switched off on their own (axis and size kinds).
bool isStructuralTag(const std::string &tag);

struct Program {
  uint64_t seed = 0;
  std::string prefix;
  /// The program as .arr text (functions, named maps, the export).
  std::string arr;
  /// The same program as Python (needs `jax`, `jnp`, `lax`, `_idiv` from
  /// `jaxPrelude()`); defines `<prefix>e`, the vmapped export.
  std::string jax;
  std::string exportName;
  int64_t batch = 1;
  /// Occurrences of each tag.
  std::map<std::string, int> tags;
};

/// A random program; deterministic in `seed` (independent of `prefix`).
Program generateProgram(uint64_t seed, const std::string &prefix,
                        const Features &features);

/// The Python lines every generated JAX program needs first.
std::string jaxPrelude();

} // namespace vmapc::property

#endif // VMAPC_TEST_PROPERTY_GENERATOR_H
