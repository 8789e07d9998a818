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
#include "vmapc/ArtifactReader.h"
#include "vmapc/ArtifactWriter.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

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

bool sameKernel(const KernelInfo &a, const KernelInfo &b) {
  return a.name == b.name && a.numBindings == b.numBindings &&
         a.numScalars == b.numScalars &&
         std::equal(std::begin(a.workgroupCount), std::end(a.workgroupCount),
                    std::begin(b.workgroupCount)) &&
         a.scratchBytes == b.scratchBytes && a.bindingBytes == b.bindingBytes;
}

bool sameCommand(const Command &a, const Command &b) {
  if (a.kind != b.kind)
    return false;
  if (a.kind == Command::Kind::Loop)
    return a.tripCount == b.tripCount && a.bodySize == b.bodySize;
  if (a.kernel != b.kernel || a.bindings.size() != b.bindings.size() ||
      a.scalars.size() != b.scalars.size())
    return false;
  for (size_t i = 0; i < a.bindings.size(); ++i)
    if (a.bindings[i].kind != b.bindings[i].kind ||
        a.bindings[i].index != b.bindings[i].index ||
        a.bindings[i].offset != b.bindings[i].offset)
      return false;
  for (size_t i = 0; i < a.scalars.size(); ++i)
    if (a.scalars[i].kind != b.scalars[i].kind ||
        a.scalars[i].loop != b.scalars[i].loop)
      return false;
  return true;
}

/// Equal kernels, entries (schedules included) and code objects.
bool sameArtifact(const Artifact &a, const Artifact &b) {
  if (a.kernels.size() != b.kernels.size() ||
      a.entries.size() != b.entries.size() ||
      a.codeObjects.size() != b.codeObjects.size())
    return false;
  for (size_t i = 0; i < a.kernels.size(); ++i)
    if (!sameKernel(a.kernels[i], b.kernels[i]))
      return false;
  for (size_t i = 0; i < a.entries.size(); ++i) {
    const EntryInfo &x = a.entries[i], &y = b.entries[i];
    if (x.name != y.name || x.batchSize != y.batchSize ||
        x.padsPartialChunks != y.padsPartialChunks ||
        x.arenaBytes != y.arenaBytes ||
        x.lowerBoundBytes != y.lowerBoundBytes ||
        x.naiveSumBytes != y.naiveSumBytes ||
        x.inPlaceCount != y.inPlaceCount || !sameArgs(x.inputs, y.inputs) ||
        !sameArgs(x.outputs, y.outputs) ||
        x.schedule.size() != y.schedule.size())
      return false;
    for (size_t j = 0; j < x.schedule.size(); ++j)
      if (!sameCommand(x.schedule[j], y.schedule[j]))
        return false;
  }
  for (size_t i = 0; i < a.codeObjects.size(); ++i) {
    const CodeObject &x = a.codeObjects[i], &y = b.codeObjects[i];
    if (x.kind != y.kind || x.level != y.level ||
        x.cpuFeatures != y.cpuFeatures || x.bytes != y.bytes)
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
  std::vector<std::string_view> code;
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
  if (code.size() != inPlace.codeObjects.size())
    fail("parseArtifactInPlace did not give one view per code object");
  for (size_t i = 0; i < code.size(); ++i) {
    if (!inPlace.codeObjects[i].bytes.empty())
      fail("parseArtifactInPlace copied a code object");
    inPlace.codeObjects[i].bytes.assign(code[i].data(), code[i].size());
  }
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
