//===- artifact_reader_fuzzer.cpp - libFuzzer: the .vmapc reader ----------===//
//
// Input: the bytes of a .vmapc file. They are read as they are (header, size
// and checksum checks), then as a copy whose file-size field and checksum are
// set to match the bytes, so that mutations reach the manifest decoder and
// the validator instead of stopping at the checksum. Each is read three
// ways: `parseArtifact`, `parseArtifactInPlace`, and `readArtifactFile` (the
// header first, then the declared size, from a file) + `parseArtifact`.
//
// Checked: no crash or sanitizer report; the three ways accept or reject
// alike and agree on what they accept; every artifact accepted serializes
// (the writer's validator agrees with the reader's) and reads back to an
// equal artifact.
//
//===----------------------------------------------------------------------===//

#include "FuzzFile.h"
#include "vmapc/ArtifactFormat.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace vmapc;

namespace {

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "artifact_reader_fuzzer: %s\n", what);
  std::abort();
}

bool sameArg(const ArgInfo &a, const ArgInfo &b) {
  return a.name == b.name && a.dtype == b.dtype && a.shape == b.shape &&
         a.mappedAxis == b.mappedAxis && a.stagingOffset == b.stagingOffset;
}

bool sameArgs(const std::vector<ArgInfo> &a, const std::vector<ArgInfo> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!sameArg(a[i], b[i]))
      return false;
  return true;
}

bool sameArtifact(const Artifact &a, const Artifact &b) {
  if (a.target != b.target || a.cpuFeatures != b.cpuFeatures ||
      a.code != b.code || a.entries.size() != b.entries.size())
    return false;
  for (size_t i = 0; i < a.entries.size(); ++i) {
    const EntryInfo &x = a.entries[i], &y = b.entries[i];
    if (x.name != y.name || x.symbol != y.symbol ||
        x.batchSize != y.batchSize || x.arenaBytes != y.arenaBytes ||
        x.lowerBoundBytes != y.lowerBoundBytes ||
        x.naiveSumBytes != y.naiveSumBytes ||
        x.inPlaceCount != y.inPlaceCount || !sameArgs(x.inputs, y.inputs) ||
        !sameArgs(x.outputs, y.outputs))
      return false;
  }
  return true;
}

void putU64(std::string &s, size_t offset, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    s[offset + i] = char((v >> (8 * i)) & 0xff);
}

void parseAndCheck(const void *data, size_t size) {
  static vmapc_fuzz::FuzzFile file;
  Artifact artifact, inPlace, fromFile;
  std::string_view code;
  HostBuffer bytesRead;
  bool parsed = parseArtifact(data, size, &artifact).ok();
  bool parsedInPlace = parseArtifactInPlace(data, size, &inPlace, &code).ok();
  bool read = readArtifactFile(file.write(data, size), &bytesRead).ok() &&
              parseArtifact(bytesRead.data(), bytesRead.size(), &fromFile).ok();
  if (parsed != parsedInPlace || parsed != read)
    fail("parseArtifact, parseArtifactInPlace and readArtifactFile disagree "
         "on whether the artifact is valid");
  if (!parsed)
    return;
  inPlace.code.assign(code.data(), code.size());
  if (!sameArtifact(artifact, inPlace) || !sameArtifact(artifact, fromFile))
    fail("parseArtifact, parseArtifactInPlace and readArtifactFile read "
         "different artifacts");
  std::string bytes;
  if (!serializeArtifact(artifact, &bytes).ok())
    fail("an artifact the reader accepts does not serialize");
  Artifact again;
  if (!parseArtifact(bytes.data(), bytes.size(), &again).ok())
    fail("a serialized artifact does not parse");
  if (!sameArtifact(artifact, again))
    fail("an artifact changed through serialize + parse");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  parseAndCheck(data, size);
  // File-size field at offset 48, checksum in the last 8 bytes.
  if (size < kHeaderBytes + kChecksumBytes)
    return 0;
  std::string fixed(reinterpret_cast<const char *>(data), size);
  putU64(fixed, 48, size);
  putU64(fixed, size - kChecksumBytes,
         fnv1a64(fixed.data(), size - kChecksumBytes));
  parseAndCheck(fixed.data(), fixed.size());
  return 0;
}
