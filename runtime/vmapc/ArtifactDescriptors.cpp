//===- ArtifactDescriptors.cpp - the code's descriptors, checked ----------===//

#include "vmapc/ArtifactDescriptors.h"

#include <cstring>
#include <string>

namespace vmapc {

static Status dataLoss(std::string message) {
  return Status::error(StatusCode::kDataLoss, std::move(message));
}

uint64_t scheduleDigest(const EntryInfo &entry,
                        const std::vector<KernelInfo> &kernels) {
  // Words, not raw structs: no padding bytes, the same on every host.
  std::string bytes;
  auto word = [&](uint64_t w) {
    for (int i = 0; i < 8; ++i)
      bytes.push_back(char(w >> (8 * i)));
  };
  auto text = [&](const std::string &s) {
    word(s.size());
    bytes += s;
  };
  word(entry.batchSize);
  word(entry.padsPartialChunks);
  word(entry.arenaBytes);
  for (const auto *list : {&entry.inputs, &entry.outputs}) {
    word(list->size());
    for (const ArgInfo &a : *list) {
      word(uint64_t(a.dtype));
      word(a.shape.size());
      for (int64_t d : a.shape)
        word(uint64_t(d));
      word(uint64_t(int64_t(a.mappedAxis)));
      word(a.stagingOffset);
      word(uint64_t(int64_t(a.donatedFrom)));
    }
  }
  word(entry.schedule.size());
  for (const Command &c : entry.schedule) {
    word(uint64_t(c.kind) | uint64_t(c.oncePerCall) << 8);
    if (c.kind == Command::Kind::Loop) {
      word(c.tripCount);
      word(c.bodySize);
      continue;
    }
    text(c.kernel < kernels.size() ? kernels[c.kernel].name : std::string());
    word(c.bindings.size());
    for (const Binding &b : c.bindings) {
      word(uint64_t(b.kind));
      word(b.index);
      word(b.offset);
    }
    word(c.scalars.size());
    for (const ScalarSource &s : c.scalars) {
      word(uint64_t(s.kind));
      word(s.loop);
    }
  }
  return fnv1a64(bytes.data(), bytes.size());
}

Status checkKernelDescriptor(const KernelInfo &kernel, const void *data,
                             size_t size,
                             std::vector<BindingAccess> *codeAccess,
                             const GpuLaunch &launch) {
  if (codeAccess)
    codeAccess->assign(kernel.numBindings, BindingAccess::Read);
  std::string where = "kernel '" + kernel.name + "': ";
  constexpr size_t headerBytes = offsetof(KernelDescriptor, bindings);
  const auto *bytes = static_cast<const unsigned char *>(data);
  auto tooSmall = [&](size_t expected) {
    return dataLoss(where + "the code's descriptor is " + std::to_string(size) +
                    " bytes, fewer than the " + std::to_string(expected) +
                    " its header needs");
  };
  if (!bytes || size < headerBytes)
    return tooSmall(headerBytes);
  uint32_t header[4];
  std::memcpy(header, bytes, sizeof(header));
  int64_t grid[3];
  uint64_t scratch;
  std::memcpy(grid, bytes + offsetof(KernelDescriptor, workgroupCount),
              sizeof(grid));
  std::memcpy(&scratch, bytes + offsetof(KernelDescriptor, scratchBytes),
              sizeof(scratch));
  uint32_t codeLaunch[4];
  std::memcpy(codeLaunch, bytes + offsetof(KernelDescriptor, block),
              sizeof(codeLaunch));
  if (header[0] != kKernelDescriptorMagic)
    return dataLoss(where + "the code's descriptor has a bad magic");
  auto mismatch = [&](const std::string &field, uint64_t manifest,
                      uint64_t code) {
    return dataLoss(where + "the manifest disagrees with the code: " + field +
                    ": " + std::to_string(manifest) + " in the manifest, " +
                    std::to_string(code) + " in the code");
  };
  if (header[1] != kernel.numBindings)
    return mismatch("binding count", kernel.numBindings, header[1]);
  if (header[2] != kernel.numScalars)
    return mismatch("scalar count", kernel.numScalars, header[2]);
  for (int d = 0; d < 3; ++d)
    if (grid[d] != kernel.workgroupCount[d])
      return dataLoss(
          where +
          "the manifest disagrees with the code: "
          "workgroup count along dimension " +
          std::to_string(d) + ": " + std::to_string(kernel.workgroupCount[d]) +
          " in the manifest, " + std::to_string(grid[d]) + " in the code");
  if (codeLaunch[0] != launch.block[0] || codeLaunch[1] != launch.block[1] ||
      codeLaunch[2] != launch.block[2] || codeLaunch[3] != launch.sharedBytes)
    return dataLoss(
        where + "the manifest disagrees with the code: launch: block " +
        std::to_string(launch.block[0]) + " x " +
        std::to_string(launch.block[1]) + " x " +
        std::to_string(launch.block[2]) + " with " +
        std::to_string(launch.sharedBytes) + " shared bytes in the manifest, " +
        std::to_string(codeLaunch[0]) + " x " + std::to_string(codeLaunch[1]) +
        " x " + std::to_string(codeLaunch[2]) + " with " +
        std::to_string(codeLaunch[3]) + " in the code");
  if (scratch > kernel.scratchBytes)
    return dataLoss(
        where + "the manifest gives " + std::to_string(kernel.scratchBytes) +
        " bytes of scratch, the code needs " + std::to_string(scratch));
  // The counts agree with the validated manifest (<= kMaxBindings): no
  // overflow.
  size_t expected = headerBytes + 2 * kernel.numBindings * sizeof(uint64_t);
  if (size < expected)
    return tooSmall(expected);
  auto word = [&](size_t i) {
    uint64_t w;
    std::memcpy(&w, bytes + headerBytes + i * sizeof(uint64_t), sizeof(w));
    return w;
  };
  for (uint32_t i = 0; i < kernel.numBindings; ++i) {
    if (word(i) != kernel.bindingBytes[i])
      return mismatch("bytes of binding " + std::to_string(i),
                      kernel.bindingBytes[i], word(i));
    // The manifest's access is every code object's together: this one's
    // may do less, not more.
    uint64_t access = word(kernel.numBindings + i);
    if (access < 1 || access > 3 ||
        (access & ~uint64_t(kernel.bindingAccess[i])) != 0)
      return dataLoss(where +
                      "the manifest disagrees with the code: access "
                      "of binding " +
                      std::to_string(i) + " (1 read, 2 write, 3 read-write): " +
                      std::to_string(unsigned(kernel.bindingAccess[i])) +
                      " in the manifest, " + std::to_string(access) +
                      " in the code, which does more");
    if (codeAccess)
      (*codeAccess)[i] = BindingAccess(access);
  }
  return Status();
}

Status checkEntryDescriptor(const EntryInfo &entry,
                            const std::vector<KernelInfo> &kernels,
                            const void *data, size_t size) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  EntryDescriptorHeader h;
  if (!bytes || size < sizeof(h))
    return dataLoss("the code's descriptor is " + std::to_string(size) +
                    " bytes, too small for its header");
  std::memcpy(&h, bytes, sizeof(h));
  if (h.magic != kEntryDescriptorMagic)
    return dataLoss("the code's descriptor has a bad magic");
  if (h.version != kEntryDescriptorVersion)
    return dataLoss("the code's descriptor has version " +
                    std::to_string(h.version) + " (this runtime reads " +
                    std::to_string(kEntryDescriptorVersion) + ")");
  auto mismatch = [](const std::string &field, int64_t manifest, int64_t code) {
    return dataLoss("the manifest disagrees with the code: " + field + ": " +
                    std::to_string(manifest) + " in the manifest, " +
                    std::to_string(code) + " in the code");
  };
  if (h.batchSize != entry.batchSize)
    return mismatch("batch size", entry.batchSize, int64_t(h.batchSize));
  if (h.arenaBytes != entry.arenaBytes)
    return mismatch("arena bytes", int64_t(entry.arenaBytes),
                    int64_t(h.arenaBytes));
  if (h.numInputs != entry.inputs.size())
    return mismatch("input count", int64_t(entry.inputs.size()),
                    int64_t(h.numInputs));
  if (h.numOutputs != entry.outputs.size())
    return mismatch("output count", int64_t(entry.outputs.size()),
                    int64_t(h.numOutputs));
  // The counts agree with the validated manifest (<= kMaxArgs each), so the
  // expected size cannot overflow.
  size_t expected = sizeof(h) + (entry.inputs.size() + entry.outputs.size()) *
                                    sizeof(ArgDescriptor);
  // At least: a toolchain may pad a global (AddressSanitizer adds a redzone
  // to its symbol's size).
  if (size < expected)
    return dataLoss("the code's descriptor is " + std::to_string(size) +
                    " bytes, fewer than the " + std::to_string(expected) +
                    " its counts need");
  const unsigned char *p = bytes + sizeof(h);
  for (auto [list, kind] : {std::pair{&entry.inputs, "input"},
                            std::pair{&entry.outputs, "output"}}) {
    for (const ArgInfo &arg : *list) {
      ArgDescriptor a;
      std::memcpy(&a, p, sizeof(a));
      p += sizeof(a);
      std::string name = std::string(kind) + " '" + arg.name + "'";
      if (a.exampleBytes != uint64_t(exampleBytes(arg)))
        return mismatch("bytes per example of " + name, exampleBytes(arg),
                        int64_t(a.exampleBytes));
      if (a.mappedAxis != arg.mappedAxis)
        return mismatch("mapped axis of " + name, arg.mappedAxis, a.mappedAxis);
    }
  }
  // Last: the fields above name what differs; this catches the rest.
  uint64_t digest = scheduleDigest(entry, kernels);
  if (h.scheduleDigest != digest) {
    char text[80];
    std::snprintf(text, sizeof(text),
                  " (digest %016llx of the manifest, %016llx in the code)",
                  (unsigned long long)digest,
                  (unsigned long long)h.scheduleDigest);
    return dataLoss("the manifest's schedule, arguments or arena are not "
                    "those the code was compiled for" +
                    std::string(text));
  }
  return Status();
}

} // namespace vmapc
