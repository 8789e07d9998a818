//===- Checks.h - The GPU test table and its tolerances ---------*- C++ -*-===//
//
// test/gpu/checks.txt lists the GPU tests, one per line (`#` starts a
// comment):
//
//   PROGRAM  ENTRY  N  DATA  TOLERANCE
//
//   PROGRAM    the .arr file, relative to the repository; its artifact is
//              ARTIFACTS/NAME.vmapc, NAME its file name without .arr
//              (test/gpu/prepare.sh; a CPU device takes
//              ARTIFACTS/cpu/NAME.vmapc where that exists)
//   ENTRY      the exported entry
//   N          examples per run (>= 0)
//   DATA       the inputs' data kind (HostData.h: uniform, int, positive,
//              small), one for every input or one per input separated by
//              commas
//   TOLERANCE  one for every f32 output, or one per output separated by
//              commas:
//                exact     equal values (NaN equals NaN; -0 equals +0)
//                A/R       |device - reference| <= A + R |reference|
//                sum:L     a sum of L terms of magnitude <= 1 in any order:
//                          A = R = L * 2^-20 (docs/gpu.md says why)
//              i32 and bool outputs are always compared exactly (in a
//              list, their item must say `exact`).
//
// `compareOutput` measures one output of the device against the reference.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_GPU_HOST_CHECKS_H
#define VMAPC_GPU_HOST_CHECKS_H

#include "HostData.h"

#include "vmapc/ArtifactFormat.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vmapc::gpuhost {

struct Tolerance {
  bool exact = true;
  double absolute = 0;        ///< A (not used when exact)
  double relative = 0;        ///< R (not used when exact)
  std::string text = "exact"; ///< As written: "1e-6/1e-6", "sum:8193".
};

struct Check {
  std::string program; ///< As written in the table.
  std::string name;    ///< Its file name without .arr: the artifact's name.
  std::string entry;
  int64_t numExamples = 0;
  /// One for all inputs, or one per input.
  std::vector<DataKind> data;
  std::string dataText; ///< As written.
  /// One for all outputs, or one per output.
  std::vector<Tolerance> tolerances;
  int line = 0; ///< In the table, for messages.

  /// The data kind of input `i`.
  DataKind dataKind(size_t i) const {
    return data.size() == 1 ? data[0] : data[i];
  }
  /// The tolerance of output `i`, of dtype `dtype`.
  Tolerance tolerance(size_t i, DType dtype) const;
};

/// Parses one TOLERANCE item; false with `error` set for a malformed one.
bool parseTolerance(const std::string &text, Tolerance *out,
                    std::string *error);

/// Reads the table at `path`. False with `error` = "PATH:LINE: what is
/// wrong" on the first bad line (wrong field count, a bad N, data kind or
/// tolerance), or when the file cannot be read or holds no check.
bool readChecks(const std::string &path, std::vector<Check> *out,
                std::string *error);

/// The artifact of program `name` for `device`: DIR/cpu/NAME.vmapc for a
/// CPU device ("cpu", "cpu:...") where that file exists, else
/// DIR/NAME.vmapc.
std::string artifactPath(const std::string &dir, const std::string &name,
                         const std::string &device);

/// How one output of the device compares with the reference.
struct Comparison {
  bool ok = true;
  /// f32: the largest |device - reference| (NaN when some element is NaN on
  /// one side only); i32/bool: the number of elements that differ.
  double maxError = 0;
  /// f32 with A/R or sum:L: the largest |device - reference| / (A + R
  /// |reference|), the fraction of the allowed error used.
  double worstRatio = 0;
  /// The first element that fails: its flat index and both values as text.
  int64_t badIndex = -1;
  std::string deviceValue, referenceValue;
};

/// Compares `count` elements of `dtype`. Errors in the tolerance's use (A/R
/// on an i32 output) are reported by `checkTolerances`, not here.
Comparison compareOutput(const void *device, const void *reference, DType dtype,
                         int64_t count, const Tolerance &tol);

/// Checks that `check`'s data kinds fit `inputs` (one, or one per input)
/// and its tolerances fit `outputs` (one, or one per output with `exact`
/// for i32/bool outputs). False with `error` set otherwise.
bool checkEntry(const Check &check, const EntryInfo &entry, std::string *error);

} // namespace vmapc::gpuhost

#endif // VMAPC_GPU_HOST_CHECKS_H
