//===- ArtifactValidatorTest.cpp - the validator and code checks ----------===//
//
// Tests of the validator (ArtifactValidator.h) and the code checks it asks
// of the backends (CodeObjectCheck.h): every rule of manifests, kernels,
// schedules and code objects, sizes that would overflow, slots, grids and
// accesses.
//
//===----------------------------------------------------------------------===//

#include "ArtifactTestUtil.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace vmapc;
using namespace vmapc_test;

namespace {

TEST_F(ArtifactTest, ValidatorRejectsBadManifests) {
  struct Case {
    const char *expected;
    StatusCode code;
    void (*edit)(Artifact &);
  };
  constexpr StatusCode kInvalid = StatusCode::kInvalidArgument;
  const Case cases[] = {
      {"entry 'affine': batch size must be >= 1", kInvalid,
       [](Artifact &a) { a.entries[0].batchSize = 0; }},
      {"entry 'affine' input 'x': rank 17 exceeds the maximum 16",
       StatusCode::kOutOfRange,
       [](Artifact &a) { a.entries[0].inputs[0].shape.assign(17, 1); }},
      // Rank 16 per example: unmapped it is passed as is; mapped, the
      // batched array would have 17 dims.
      {"entry 'affine' input 'x': mapped, its batched array has 17 dims, more "
       "than the maximum 16",
       StatusCode::kOutOfRange,
       [](Artifact &a) { a.entries[0].inputs[0].shape.assign(16, 1); }},
      {"entry 'affine' input 'c': negative dimension in shape [-4]", kInvalid,
       [](Artifact &a) { a.entries[0].inputs[1].shape = {-4}; }},
      {"entry 'affine' input 'x': mapped axis 2 out of range [0, 1] (or -1 "
       "for none)",
       kInvalid, [](Artifact &a) { a.entries[0].inputs[0].mappedAxis = 2; }},
      {"entry 'affine' input 'c': mapped axis -3 out of range [0, 1] (or -1 "
       "for none)",
       kInvalid, [](Artifact &a) { a.entries[0].inputs[1].mappedAxis = -3; }},
      {"entry 'affine' input 'x': mapped argument has no staging slot",
       kInvalid,
       [](Artifact &a) { a.entries[0].inputs[0].stagingOffset = kNoStaging; }},
      {"entry 'affine' output 'y': staging slot [500, +64) exceeds the arena "
       "of 512 bytes",
       kInvalid,
       [](Artifact &a) { a.entries[0].outputs[0].stagingOffset = 500; }},
      {"entry 'affine': staging slots overlap at arena offsets 0 and 32",
       kInvalid,
       [](Artifact &a) { a.entries[0].inputs[1].stagingOffset = 32; }},
      {"entry 'affine' input 'x': invalid dtype 7", kInvalid,
       [](Artifact &a) { a.entries[0].inputs[0].dtype = DType(7); }},
      {"entry 'affine' input 'x': duplicate name", kInvalid,
       [](Artifact &a) { a.entries[0].inputs[1].name = "x"; }},
      {"entry 'affine' output #0 name is empty", kInvalid,
       [](Artifact &a) { a.entries[0].outputs[0].name = ""; }},
      {"entry 'affine' output #0 name is longer than 4096 bytes",
       StatusCode::kOutOfRange,
       [](Artifact &a) { a.entries[0].outputs[0].name.assign(4097, 'y'); }},
      {"entry 'affine' input 'x': an input has no donor (donor 1)", kInvalid,
       [](Artifact &a) { a.entries[0].inputs[0].donatedFrom = 1; }},
      {"entry 'donate' output 'y': donor input #2 does not exist", kInvalid,
       [](Artifact &a) {
         a.entries[entryIndex(a, "donate")].outputs[0].donatedFrom = 2;
       }},
      {"entry 'donate' output 'y' takes the bytes of input 'c', which "
       "differs from it in dtype, per-example shape, mapped axis or staging "
       "slot (or is not mapped)",
       kInvalid,
       [](Artifact &a) {
         a.entries[entryIndex(a, "donate")].outputs[0].donatedFrom = 1;
       }},
      {"entry 'donate' output 'y' takes the bytes of input 'x', which "
       "differs from it in dtype, per-example shape, mapped axis or staging "
       "slot (or is not mapped)",
       kInvalid,
       [](Artifact &a) {
         a.entries[entryIndex(a, "donate")].outputs[0].stagingOffset = 256;
       }},
      {"entry 'donate' schedule command 0 binding 2: kernel 'affine' writes "
       "this binding, which is bound to input #0 (inputs are the caller's, "
       "read only, unless donated)",
       kInvalid,
       [](Artifact &a) {
         EntryInfo &e = a.entries[entryIndex(a, "donate")];
         e.outputs[0].donatedFrom = kNotDonated;
         e.outputs[0].stagingOffset = 256;
       }},
      {"entry 'twostep': arena alignment 48 is not a power of two from 1 to "
       "4096",
       kInvalid,
       [](Artifact &a) {
         a.entries[entryIndex(a, "twostep")].arenaAlignment = 48;
       }},
      {"entry 'twostep': arena alignment 0 is not a power of two from 1 to "
       "4096",
       kInvalid,
       [](Artifact &a) {
         a.entries[entryIndex(a, "twostep")].arenaAlignment = 0;
       }},
      {"entry 'twostep': arena alignment 8192 is not a power of two from 1 "
       "to 4096",
       kInvalid,
       [](Artifact &a) {
         a.entries[entryIndex(a, "twostep")].arenaAlignment = 8192;
       }},
      {"entry 'twostep' output 'y': staging offset 32 is not a multiple of "
       "the arena alignment 64",
       kInvalid,
       [](Artifact &a) {
         a.entries[entryIndex(a, "twostep")].outputs[0].stagingOffset = 32;
       }},
      {"entry 'twostep' schedule command 0 binding 1: arena offset 96 is not "
       "a multiple of the arena alignment 64",
       kInvalid,
       [](Artifact &a) {
         a.entries[entryIndex(a, "twostep")].schedule[0].bindings[1].offset =
             96;
       }},
      {"duplicate entry name 'affine'", kInvalid,
       [](Artifact &a) { a.entries[1].name = "affine"; }},
      {"entry #0 name contains a NUL byte", kInvalid,
       [](Artifact &a) { a.entries[0].name = std::string("af\0x", 4); }},
      {"artifact has no entries", kInvalid,
       [](Artifact &a) { a.entries.clear(); }},
      {"entry 'affine' has more than 4096 inputs", StatusCode::kOutOfRange,
       [](Artifact &a) {
         a.entries[0].inputs.resize(4097, a.entries[0].inputs[1]);
       }},
      {"code object #0 (x86-64) is not an ELF object", kInvalid,
       [](Artifact &a) { a.codeObjects[0].bytes = "hello"; }},
      {"code object #1 (x86-64-v3) is not an ELF shared object (ET_DYN)",
       kInvalid,
       [](Artifact &a) {
         a.codeObjects[1].bytes[16] = 1; /* ET_REL */
       }},
      {"code object #2 (x86-64-v4) is not an x86-64 ELF object", kInvalid,
       [](Artifact &a) {
         a.codeObjects[2].bytes[18] = char(183); /* EM_AARCH64 */
       }},
      {"code object #1 CPU feature name is empty", kInvalid,
       [](Artifact &a) { a.codeObjects[1].cpuFeatures.push_back(""); }},
      {"artifact has no code objects", kInvalid,
       [](Artifact &a) { a.codeObjects.clear(); }},
  };
  for (const Case &c : cases) {
    Artifact a = artifact;
    c.edit(a);
    Status s = serializeError(a);
    EXPECT_EQ(s.message(), c.expected);
    EXPECT_EQ(s.code(), c.code) << c.expected;
    EXPECT_EQ(validateArtifact(a).message(), c.expected);
  }
  // Rank 16 is allowed for an unmapped argument.
  Artifact a = artifact;
  a.entries[0].inputs[1].shape.assign(16, 1);
  a.entries[0].inputs[1].shape.back() = 4;
  EXPECT_TRUE(validateArtifact(a).ok()) << validateArtifact(a).message();
}

// Every rule of kernels, schedules and code objects (ArtifactFormat.h,
// "Semantic rules"), each broken once on an otherwise valid artifact.
TEST_F(ArtifactTest, ValidatorRejectsBadKernelsSchedulesAndCodeObjects) {
  struct Case {
    const char *expected;
    StatusCode code;
    void (*edit)(Artifact &);
  };
  constexpr StatusCode kInvalid = StatusCode::kInvalidArgument;
  constexpr StatusCode kOutOfRange = StatusCode::kOutOfRange;
  const size_t twostep = entryIndex(makeTestArtifact({}), "twostep");
  ASSERT_EQ(twostep, 4u) << "the cases below edit entry #4";
  const Case cases[] = {
      // Kernels.
      {"artifact has no kernels", kInvalid,
       [](Artifact &a) { a.kernels.clear(); }},
      {"duplicate kernel name 'affine'", kInvalid,
       [](Artifact &a) { a.kernels[kAxis1].name = "affine"; }},
      {"kernel name is empty", kInvalid,
       [](Artifact &a) { a.kernels[kAxis1].name = ""; }},
      {"kernel 'a-b': a kernel name is letters, digits and _ only", kInvalid,
       [](Artifact &a) { a.kernels[kAxis1].name = "a-b"; }},
      {"kernel 'affine': 1025 bindings and 1 scalars (at most 1024 and 64)",
       kOutOfRange,
       [](Artifact &a) {
         a.kernels[kAffine].numBindings = 1025;
         a.kernels[kAffine].bindingBytes.resize(1025, 4);
       }},
      {"kernel 'affine': 3 bindings and 65 scalars (at most 1024 and 64)",
       kOutOfRange, [](Artifact &a) { a.kernels[kAffine].numScalars = 65; }},
      {"kernel 'affine': 2 binding sizes for 3 bindings", kInvalid,
       [](Artifact &a) { a.kernels[kAffine].bindingBytes.pop_back(); }},
      {"kernel 'affine': a binding of 2^62 bytes or more", kOutOfRange,
       [](Artifact &a) {
         a.kernels[kAffine].bindingBytes[1] = kMaxArrayBytes;
       }},
      {"kernel 'affine': workgroup count 0 along dimension 2 (a constant in "
       "[1, 2^31], or -T for ceil(n / T))",
       kInvalid, [](Artifact &a) { a.kernels[kAffine].workgroupCount[2] = 0; }},
      {"kernel 'axis1': workgroup count 2147483649 along dimension 1 (a "
       "constant in [1, 2^31], or -T for ceil(n / T))",
       kInvalid,
       [](Artifact &a) {
         a.kernels[kAxis1].workgroupCount[1] = kMaxWorkgroups + 1;
       }},
      {"kernel 'axis1': workgroup count -2147483649 along dimension 0 (a "
       "constant in [1, 2^31], or -T for ceil(n / T))",
       kInvalid,
       [](Artifact &a) {
         a.kernels[kAxis1].workgroupCount[0] = -kMaxWorkgroups - 1;
       }},
      {"entry 'axis1' schedule command 0: kernel 'axis1' has a tile of 5 "
       "examples along dimension 0, more than the batch size 4",
       kInvalid, [](Artifact &a) { a.kernels[kAxis1].workgroupCount[0] = -5; }},
      {"kernel 'probe': 67108865 bytes of scratch, more than 67108864",
       kOutOfRange,
       [](Artifact &a) {
         a.kernels[kProbe].scratchBytes = kMaxScratchBytes + 1;
       }},
      // Schedules.
      {"entry 'affine' schedule command 0: kernel #13 does not exist (13 "
       "kernels)",
       kInvalid, [](Artifact &a) { a.entries[0].schedule[0].kernel = 13; }},
      {"entry 'affine' schedule command 0: kernel 'affine' takes 3 bindings "
       "and 1 scalars, the dispatch gives 2 and 1",
       kInvalid,
       [](Artifact &a) { a.entries[0].schedule[0].bindings.pop_back(); }},
      {"entry 'affine' schedule command 0: kernel 'affine' takes 3 bindings "
       "and 1 scalars, the dispatch gives 3 and 0",
       kInvalid, [](Artifact &a) { a.entries[0].schedule[0].scalars.clear(); }},
      {"entry 'affine' schedule command 0: unknown command kind 9", kInvalid,
       [](Artifact &a) { a.entries[0].schedule[0].kind = Command::Kind(9); }},
      {"entry 'affine' schedule command 0 binding 1: input #2 does not exist",
       kInvalid,
       [](Artifact &a) { a.entries[0].schedule[0].bindings[1].index = 2; }},
      {"entry 'affine' schedule command 0 binding 2: output #1 does not "
       "exist",
       kInvalid,
       [](Artifact &a) { a.entries[0].schedule[0].bindings[2].index = 1; }},
      {"entry 'affine' schedule command 0 binding 0: unknown binding kind 4",
       kInvalid,
       [](Artifact &a) {
         a.entries[0].schedule[0].bindings[0].kind = Binding::Kind(4);
       }},
      // The kernel accesses 64 bytes of `c`, which has 16.
      {"entry 'affine' schedule command 0 binding 1: kernel 'affine' "
       "accesses 64 bytes, the argument has 16",
       kInvalid, [](Artifact &a) { a.kernels[kAffine].bindingBytes[1] = 64; }},
      // The arena binding of twostep, out of the arena and wrapping.
      {"entry 'twostep' schedule command 0 binding 1: arena bytes [224, +64) "
       "exceed the arena of 256 bytes",
       kInvalid,
       [](Artifact &a) { a.entries[4].schedule[0].bindings[1].offset = 224; }},
      {"entry 'twostep' schedule command 0 binding 1: arena bytes "
       "[18446744073709551600, +64) exceed the arena of 256 bytes",
       kInvalid,
       [](Artifact &a) {
         a.entries[4].schedule[0].bindings[1].offset = ~uint64_t(0) - 15;
       }},
      {"entry 'twostep' schedule command 3 scalar 1: unknown scalar kind 3",
       kInvalid,
       [](Artifact &a) {
         a.entries[4].schedule[3].scalars[1].kind = ScalarSource::Kind(3);
       }},
      {"entry 'twostep' schedule command 3 scalar 2: loop 2 does not enclose "
       "it",
       kInvalid,
       [](Artifact &a) { a.entries[4].schedule[3].scalars[2].loop = 2; }},
      // The square dispatch reads a loop index outside any loop.
      {"entry 'twostep' schedule command 0 scalar 0: loop 0 does not enclose "
       "it",
       kInvalid,
       [](Artifact &a) { a.entries[4].schedule[0].scalars[0] = loopIndex(0); }},
      // A dispatch run once per call (in the first chunk only) must read
      // and write the same bytes in every chunk.
      {"entry 'twostep' schedule command 3: a dispatch run once per call is "
       "inside a loop, which differ between its runs",
       kInvalid,
       [](Artifact &a) { a.entries[4].schedule[3].oncePerCall = true; }},
      {"entry 'reduce' schedule command 0: a dispatch run once per call is "
       "given scalars, which differ between its runs",
       kInvalid,
       [](Artifact &a) {
         a.entries[entryIndex(a, "reduce")].schedule[0].oncePerCall = true;
       }},
      {"entry 'reduce' schedule command 1 binding 0: a dispatch run once per "
       "call binds input #0, which differs between chunks",
       kInvalid,
       [](Artifact &a) {
         Command &c = a.entries[entryIndex(a, "reduce")].schedule[1];
         c.oncePerCall = true;
         c.bindings[0] = inputBinding(0); // x, mapped
       }},
      {"entry 'reduce' schedule command 1 binding 1: a dispatch run once per "
       "call binds output #2, which differs between chunks",
       kInvalid,
       [](Artifact &a) {
         a.entries[entryIndex(a, "reduce")].schedule[1].oncePerCall = true;
       }},
      // The inner loop's body of 2 leaves the outer loop's body of 2.
      {"entry 'twostep' schedule command 2: a loop body of 2 commands leaves "
       "its enclosing body",
       kInvalid, [](Artifact &a) { a.entries[4].schedule[2].bodySize = 2; }},
      {"entry 'twostep' schedule command 2: nested loops repeat more than "
       "2^32 times",
       kOutOfRange,
       [](Artifact &a) {
         a.entries[4].schedule[1].tripCount = uint64_t(1) << 16;
         a.entries[4].schedule[2].tripCount = (uint64_t(1) << 16) + 1;
       }},
      {"entry 'twostep' schedule command 1: nested loops repeat more than "
       "2^32 times",
       kOutOfRange,
       [](Artifact &a) {
         a.entries[4].schedule[1].tripCount = kMaxTripCount + 1;
       }},
      {"entry 'twostep' schedule command 65: loops nest deeper than 64",
       kOutOfRange,
       [](Artifact &a) {
         std::vector<Command> &s = a.entries[4].schedule;
         s.erase(s.begin() + 1, s.begin() + 3); // the two loops
         for (uint32_t depth = 0; depth < 65; ++depth)
           s.insert(s.begin() + 1, loop(1, depth + 1));
       }},
      {"entry 'twostep' schedule: more than 1048576 commands", kOutOfRange,
       [](Artifact &a) {
         a.entries[4].schedule.resize(kMaxCommands + 1, loop(0, 0));
       }},
      // Code objects.
      {"code object #1: unsupported kind 7 (this runtime supports 1 = x86-64 "
       "ELF, 2 = CUDA cubin, 3 = CUDA PTX)",
       StatusCode::kUnimplemented,
       [](Artifact &a) { a.codeObjects[1].kind = CodeKind(7); }},
      {"code object #1: unknown ISA level 'x86-64-v2' (x86-64, x86-64-v3, "
       "x86-64-v4)",
       StatusCode::kUnimplemented,
       [](Artifact &a) { a.codeObjects[1].level = "x86-64-v2"; }},
      {"code object #2: a second object for level 'x86-64-v3'", kInvalid,
       [](Artifact &a) { a.codeObjects[2].level = "x86-64-v3"; }},
      {"code object #0: more than 256 CPU features", kOutOfRange,
       [](Artifact &a) { a.codeObjects[0].cpuFeatures.resize(257, "sse2"); }},
      {"more than 16 code objects", kOutOfRange,
       [](Artifact &a) { a.codeObjects.resize(17, a.codeObjects[0]); }},
  };
  for (const Case &c : cases) {
    Artifact a = artifact;
    c.edit(a);
    Status s = validateArtifact(a);
    EXPECT_EQ(s.message(), c.expected);
    EXPECT_EQ(s.code(), c.code) << c.expected;
  }
  // The loop depth limit itself is allowed: 64 loops around a dispatch.
  Artifact a = artifact;
  std::vector<Command> &s = a.entries[twostep].schedule;
  s.erase(s.begin() + 1, s.begin() + 3);
  for (uint32_t depth = 0; depth < 64; ++depth)
    s.insert(s.begin() + 1, loop(1, depth + 1));
  s.back().scalars[2] = loopIndex(63);
  EXPECT_TRUE(validateArtifact(a).ok()) << validateArtifact(a).message();
}

// Every way a size in a manifest could overflow 64 bits or pass the 2^62
// limit is an error naming the field, never a wrapped-around size.
TEST_F(ArtifactTest, SizesThatWouldOverflowAreOutOfRange) {
  struct Case {
    const char *expected;
    StatusCode code;
    void (*edit)(Artifact &);
  };
  const Case cases[] = {
      // The product of the dims alone overflows 64 bits.
      {"entry 'affine' input 'c': array of shape [4294967296, 4294967296] "
       "takes 2^62 bytes or more",
       StatusCode::kOutOfRange,
       [](Artifact &a) {
         a.entries[0].inputs[1].shape = {int64_t(1) << 32, int64_t(1) << 32};
       }},
      // Dims x dtype size passes 2^62.
      {"entry 'affine' input 'c': array of shape [1152921504606846976] takes "
       "2^62 bytes or more",
       StatusCode::kOutOfRange,
       [](Artifact &a) { a.entries[0].inputs[1].shape = {int64_t(1) << 60}; }},
      // One example fits, B examples do not.
      {"entry 'affine' input 'x': array of shape [288230376151711744] x batch "
       "4 takes 2^62 bytes or more",
       StatusCode::kOutOfRange,
       [](Artifact &a) { a.entries[0].inputs[0].shape = {int64_t(1) << 58}; }},
      // offset + bytes of a staging slot wraps around 2^64.
      {"entry 'affine' input 'x': staging slot [18446744073709551600, +64) "
       "exceeds the arena of 512 bytes",
       StatusCode::kInvalidArgument,
       [](Artifact &a) {
         a.entries[0].inputs[0].stagingOffset = ~uint64_t(0) - 15;
       }},
      // An empty array whose other dims would be 2^62 bytes or more.
      {"entry 'affine' input 'c': array of shape [0, 1152921504606846976] "
       "takes 2^62 bytes or more",
       StatusCode::kOutOfRange,
       [](Artifact &a) {
         a.entries[0].inputs[1].shape = {0, int64_t(1) << 60};
       }},
      // The arena itself.
      {"entry 'affine': arena of 4611686018427387904 bytes is too large (the "
       "limit is 2^62 bytes)",
       StatusCode::kOutOfRange,
       [](Artifact &a) { a.entries[0].arenaBytes = uint64_t(1) << 62; }},
      // A binding's bytes.
      {"kernel 'affine': a binding of 2^62 bytes or more",
       StatusCode::kOutOfRange,
       [](Artifact &a) { a.kernels[kAffine].bindingBytes[0] = ~uint64_t(0); }},
  };
  for (const Case &c : cases) {
    Artifact a = artifact;
    c.edit(a);
    Status s = validateArtifact(a);
    EXPECT_EQ(s.message(), c.expected);
    EXPECT_EQ(s.code(), c.code) << c.expected;
  }
}

TEST_F(ArtifactTest, OverlappingSlotsAreFoundInAnyOrder) {
  // Outputs in decreasing offset order; the first and last overlap.
  EntryInfo e;
  e.name = "many";
  e.batchSize = 1;
  e.arenaBytes = 4096;
  e.inputs = {arg("x", DType::F32, {}, 0, 0)};
  for (int i = 0; i < 10; ++i)
    e.outputs.push_back(
        arg("y" + std::to_string(i), DType::F32, {4}, 0, 1000 - 16 * i));
  e.outputs.push_back(arg("z", DType::F32, {4}, 0, 1000 - 16 * 9 + 8));
  // Every output written (reduce_total writes 4 of its bytes).
  for (uint32_t i = 0; i < e.outputs.size(); ++i)
    e.schedule.push_back(
        dispatch(kReduceTotal, {inputBinding(0), outputBinding(i)}));
  artifact.entries.push_back(e);
  Status s = validateArtifact(artifact);
  EXPECT_EQ(s.message(),
            "entry 'many': staging slots overlap at arena offsets 856 and 864");
  artifact.entries.back().outputs.pop_back();
  artifact.entries.back().schedule.pop_back();
  EXPECT_TRUE(validateArtifact(artifact).ok());
}

// A code object is checked as an ELF object before dlopen sees it: its
// header tables, every segment's file bytes and every section's lie inside
// the bytes the manifest gives it (a size shortened below what its program
// headers say once made dlopen fault).
TEST_F(ArtifactTest, CodeObjectsAreCheckedAsElfObjects) {
  const std::string &so = artifact.codeObjects[0].bytes;
  uint64_t phoff = u64At(so, 32), shoff = u64At(so, 40);
  uint32_t shnum = uint32_t(u64At(so, 60) & 0xffff);
  auto refused = [&](std::string bytes) {
    Artifact a = artifact;
    a.codeObjects[0].bytes = std::move(bytes);
    Status s = validateArtifact(a);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
    return s.message();
  };
  // Shortened below its section header table.
  EXPECT_EQ(refused(so.substr(0, 4096)),
            "code object #0 (x86-64): its " + std::to_string(shnum) +
                " section headers (at " + std::to_string(shoff) +
                ") are not 64-byte entries inside its 4096 bytes");
  // A loadable segment's file bytes past the object.
  std::string b = so;
  putU64(b, phoff + 32, so.size()); // p_filesz of the first segment
  putU64(b, phoff + 8, 4096);       // p_offset
  EXPECT_EQ(refused(b).rfind("code object #0 (x86-64): segment 0 (type ", 0),
            0u);
  // A section's bytes past the object.
  b = so;
  putU64(b, shoff + 64 + 32, so.size()); // sh_size of section 1
  EXPECT_EQ(refused(b).rfind("code object #0 (x86-64): section 1 (type ", 0),
            0u);
  // The section name table's index past the table.
  b = so;
  b[62] = char(shnum & 0xff), b[63] = char(shnum >> 8);
  EXPECT_EQ(refused(b), "code object #0 (x86-64): section name table index " +
                            std::to_string(shnum) + " of " +
                            std::to_string(shnum) + " sections");
  // A program header table that wraps around 64 bits.
  b = so;
  putU64(b, 32, ~uint64_t(0) - 8);
  EXPECT_NE(refused(b).find("program headers (at 18446744073709551607) are "
                            "not 56-byte entries inside"),
            std::string::npos);
  // Big-endian or 32-bit.
  b = so;
  b[5] = 2;
  EXPECT_EQ(refused(b), "code object #0 (x86-64) is not an x86-64 ELF object");
}

// Every count derived from a grid is bounded, in checked arithmetic: a
// grid of (2^31, 2^31, 4) workgroups once wrapped to 0 and ran nothing.
TEST_F(ArtifactTest, WorkgroupsPerDispatchAndPerChunkAreBounded) {
  auto refused = [&](auto edit) {
    Artifact a = artifact;
    edit(a);
    Status s = validateArtifact(a);
    EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << s.message();
    return s.message();
  };
  EXPECT_EQ(refused([](Artifact &a) {
              a.kernels[kReduceTotal].workgroupCount[0] = kMaxWorkgroups;
              a.kernels[kReduceTotal].workgroupCount[1] = kMaxWorkgroups;
              a.kernels[kReduceTotal].workgroupCount[2] = 4;
            }),
            "entry 'reduce' schedule command 1: kernel 'reduce_total' runs "
            "more than 2^32 workgroups per dispatch");
  // 2^31 workgroups at most per dispatch, 2^20 times: past 2^40 per chunk.
  EXPECT_EQ(refused([](Artifact &a) {
              a.kernels[kReduceTotal].workgroupCount[0] = kMaxWorkgroups;
              EntryInfo &e = a.entries[entryIndex(a, "reduce")];
              e.schedule.insert(e.schedule.begin() + 1,
                                loop(uint64_t(1) << 20, 1));
            }),
            "entry 'reduce' schedule command 2: the schedule runs more than "
            "2^40 workgroups per chunk");
  // At the limits themselves: taken.
  Artifact a = artifact;
  a.kernels[kReduceTotal].workgroupCount[0] = kMaxWorkgroups;
  a.kernels[kReduceTotal].workgroupCount[1] = 2;
  EXPECT_TRUE(validateArtifact(a).ok());
  // A loop of no trips: its dispatches count for nothing, and write
  // nothing.
  a = artifact;
  EntryInfo &e = a.entries[entryIndex(a, "reduce")];
  e.schedule.insert(e.schedule.begin() + 1, loop(0, 1));
  EXPECT_EQ(validateArtifact(a).message(),
            "entry 'reduce' schedule: no dispatch writes output #2 'total'");
}

// The schedule's access rules: an input bound where the kernel writes, an
// output no dispatch writes.
TEST_F(ArtifactTest, InputsAreNeverWrittenAndOutputsAlways) {
  Artifact a = artifact;
  // reduce_total writes its binding 1, here the input s.
  a.entries[entryIndex(a, "reduce")].schedule[1].bindings[1] = inputBinding(1);
  a.entries[entryIndex(a, "reduce")].outputs.pop_back();
  EXPECT_EQ(validateArtifact(a).message(),
            "entry 'reduce' schedule command 1 binding 1: kernel "
            "'reduce_total' writes this binding, which is bound to input #1 "
            "(inputs are the caller's, read only, unless donated)");
  a = artifact;
  a.entries[entryIndex(a, "reduce")].schedule[1].bindings[1] =
      arenaBinding(192);
  EXPECT_EQ(validateArtifact(a).message(),
            "entry 'reduce' schedule: no dispatch writes output #2 'total'");
  a = artifact;
  a.kernels[kReduceTotal].bindingAccess[1] = BindingAccess(4);
  EXPECT_EQ(validateArtifact(a).message(),
            "kernel 'reduce_total' binding 1: unknown access 4 (1 read, 2 "
            "write, 3 read-write)");
}

} // namespace
