//===- CApi.cpp - The C API, a thin layer over the C++ runtime ------------===//

#include "vmapc/vmapc_runtime.h"

#include "vmapc/Runtime.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

/// An error status: its code and message, allocated with malloc in one
/// block (the message right after the struct), or one of `kFallback`.
struct vmapc_status_s {
  vmapc_code code;
  const char *message;
};

struct vmapc_device_s {
  vmapc::Device device;
  /// Device::describe(), made at open for vmapc_device_description.
  std::string description;
};

struct vmapc_executable_s {
  std::unique_ptr<vmapc::Executable> exe;
  /// Scratch views for vmapc_run, sized at load: no allocation per call.
  std::unique_ptr<vmapc::HostArray[]> inputs;
  std::unique_ptr<vmapc::MutableHostArray[]> outputs;
};

namespace {
static_assert(int(vmapc::StatusCode::kDataLoss) == VMAPC_STATUS_DATA_LOSS &&
                  int(vmapc::StatusCode::kInvalidArgument) ==
                      VMAPC_STATUS_INVALID_ARGUMENT &&
                  int(vmapc::StatusCode::kUnavailable) ==
                      VMAPC_STATUS_UNAVAILABLE,
              "vmapc_code mirrors vmapc::StatusCode");
static_assert(vmapc::kNotDonated == VMAPC_NOT_DONATED &&
                  vmapc::kNoAxis == VMAPC_NO_AXIS,
              "vmapc_arg_info mirrors vmapc::ArgInfo");

constexpr const char kNoMemoryMessage[] =
    "out of memory while reporting an error";
constexpr int kNumCodes = VMAPC_STATUS_DATA_LOSS + 1;

/// One preallocated status per code, returned when a status cannot be
/// allocated: the caller still sees the error and its code.
vmapc_status_s kFallback[kNumCodes] = {
#define VMAPC_FALLBACK(i)                                                      \
  { vmapc_code(i), kNoMemoryMessage }
    VMAPC_FALLBACK(0),  VMAPC_FALLBACK(1),  VMAPC_FALLBACK(2),
    VMAPC_FALLBACK(3),  VMAPC_FALLBACK(4),  VMAPC_FALLBACK(5),
    VMAPC_FALLBACK(6),  VMAPC_FALLBACK(7),  VMAPC_FALLBACK(8),
    VMAPC_FALLBACK(9),  VMAPC_FALLBACK(10), VMAPC_FALLBACK(11),
    VMAPC_FALLBACK(12), VMAPC_FALLBACK(13), VMAPC_FALLBACK(14),
    VMAPC_FALLBACK(15),
#undef VMAPC_FALLBACK
};

bool isFallback(vmapc_status status) {
  for (vmapc_status_s &s : kFallback)
    if (status == &s)
      return true;
  return false;
}

/// An error status with `code` (never VMAPC_STATUS_OK) and `message`. Never
/// null and never throws: without memory, the code's fallback status.
vmapc_status makeStatus(vmapc::StatusCode code, const char *message,
                        size_t length) noexcept {
  int c = int(code);
  if (c <= 0 || c >= kNumCodes)
    c = VMAPC_STATUS_INTERNAL;
  void *block = std::malloc(sizeof(vmapc_status_s) + length + 1);
  if (!block)
    return &kFallback[c];
  auto *status = static_cast<vmapc_status_s *>(block);
  char *text = reinterpret_cast<char *>(status + 1);
  std::memcpy(text, message, length);
  text[length] = '\0';
  status->code = vmapc_code(c);
  status->message = text;
  return status;
}

vmapc_status toC(const vmapc::Status &s) {
  if (s.ok())
    return nullptr;
  return makeStatus(s.code(), s.message().data(), s.message().size());
}
vmapc_status errorC(vmapc::StatusCode code, const std::string &message) {
  return makeStatus(code, message.data(), message.size());
}
vmapc_status nullArgument(const char *function) {
  return errorC(vmapc::StatusCode::kInvalidArgument,
                std::string(function) + ": null argument");
}
vmapc_status outOfMemory(const char *what) {
  return errorC(vmapc::StatusCode::kResourceExhausted,
                std::string("out of memory allocating ") + what);
}

vmapc_status wrap(vmapc::Status s, std::unique_ptr<vmapc::Executable> exe,
                  vmapc_executable **out) {
  if (!s.ok())
    return toC(s);
  std::unique_ptr<vmapc_executable_s> w(new (std::nothrow)
                                            vmapc_executable_s());
  if (!w)
    return outOfMemory("the executable handle");
  size_t maxIn = 0, maxOut = 0;
  for (size_t i = 0; i < exe->numEntries(); ++i) {
    maxIn = std::max(maxIn, exe->entry(i).numInputs());
    maxOut = std::max(maxOut, exe->entry(i).numOutputs());
  }
  w->inputs.reset(new (std::nothrow)
                      vmapc::HostArray[std::max<size_t>(maxIn, 1)]);
  w->outputs.reset(new (std::nothrow)
                       vmapc::MutableHostArray[std::max<size_t>(maxOut, 1)]);
  if (!w->inputs || !w->outputs)
    return outOfMemory("the argument views");
  w->exe = std::move(exe);
  *out = w.release();
  return nullptr;
}

const vmapc::Entry *entryAt(const vmapc_executable *exe, size_t entry) {
  if (!exe || entry >= exe->exe->numEntries())
    return nullptr;
  return &exe->exe->entry(entry);
}
} // namespace

extern "C" {

const char *vmapc_version(void) { return VMAPC_VERSION_STRING; }

vmapc_code vmapc_status_code(vmapc_status status) {
  return status ? status->code : VMAPC_STATUS_OK;
}

const char *vmapc_code_name(vmapc_code code) {
  return vmapc::statusCodeName(vmapc::StatusCode(code));
}

const char *vmapc_status_message(vmapc_status status) {
  return status ? status->message : "ok";
}

void vmapc_status_free(vmapc_status status) {
  if (!isFallback(status))
    std::free(status);
}

vmapc_status vmapc_device_open(const char *name, vmapc_device **out) {
  if (!name || !out)
    return nullArgument("vmapc_device_open");
  vmapc::Device d;
  if (vmapc_status s = toC(vmapc::Device::open(name, &d)))
    return s;
  try {
    *out = new vmapc_device_s{d, d.describe()};
  } catch (const std::bad_alloc &) {
    *out = nullptr;
    return outOfMemory("the device handle");
  }
  return nullptr;
}

void vmapc_device_release(vmapc_device *device) { delete device; }

vmapc_status vmapc_executable_load_bytes(const vmapc_device *device,
                                         const void *data, size_t size,
                                         vmapc_executable **out) {
  if (!device || !out)
    return nullArgument("vmapc_executable_load_bytes");
  std::unique_ptr<vmapc::Executable> exe;
  vmapc::Status s =
      vmapc::Executable::loadBytes(device->device, data, size, &exe);
  return wrap(std::move(s), std::move(exe), out);
}

vmapc_status vmapc_executable_load_file(const vmapc_device *device,
                                        const char *path,
                                        vmapc_executable **out) {
  if (!device || !path || !out)
    return nullArgument("vmapc_executable_load_file");
  std::unique_ptr<vmapc::Executable> exe;
  vmapc::Status s = vmapc::Executable::loadFile(device->device, path, &exe);
  return wrap(std::move(s), std::move(exe), out);
}

void vmapc_executable_release(vmapc_executable *exe) { delete exe; }

size_t vmapc_entry_count(const vmapc_executable *exe) {
  return exe ? exe->exe->numEntries() : 0;
}

vmapc_status vmapc_find_entry(const vmapc_executable *exe, const char *name,
                              size_t *index) {
  if (!exe || !name || !index)
    return nullArgument("vmapc_find_entry");
  const vmapc::Entry *e = nullptr;
  if (vmapc_status s = toC(exe->exe->findEntry(name, &e)))
    return s;
  for (size_t i = 0; i < exe->exe->numEntries(); ++i)
    if (&exe->exe->entry(i) == e)
      *index = i;
  return nullptr;
}

const char *vmapc_entry_name(const vmapc_executable *exe, size_t entry) {
  const vmapc::Entry *e = entryAt(exe, entry);
  return e ? e->name().c_str() : nullptr;
}

uint32_t vmapc_entry_batch_size(const vmapc_executable *exe, size_t entry) {
  const vmapc::Entry *e = entryAt(exe, entry);
  return e ? e->batchSize() : 0;
}

size_t vmapc_entry_num_inputs(const vmapc_executable *exe, size_t entry) {
  const vmapc::Entry *e = entryAt(exe, entry);
  return e ? e->numInputs() : 0;
}

size_t vmapc_entry_num_outputs(const vmapc_executable *exe, size_t entry) {
  const vmapc::Entry *e = entryAt(exe, entry);
  return e ? e->numOutputs() : 0;
}

vmapc_status vmapc_entry_arg(const vmapc_executable *exe, size_t entry,
                             int is_output, size_t index, vmapc_arg_info *out) {
  const vmapc::Entry *e = entryAt(exe, entry);
  if (!e || !out)
    return errorC(vmapc::StatusCode::kInvalidArgument,
                  "vmapc_entry_arg: bad executable or entry index");
  const auto &args = is_output ? e->info().outputs : e->info().inputs;
  if (index >= args.size())
    return errorC(vmapc::StatusCode::kOutOfRange,
                  "entry '" + e->name() + "' has no " +
                      (is_output ? "output" : "input") + " #" +
                      std::to_string(index));
  const vmapc::ArgInfo &a = args[index];
  out->name = a.name.c_str();
  out->dtype = int(a.dtype);
  out->rank = a.shape.size();
  out->dims = a.shape.data();
  out->mapped_axis = a.mappedAxis;
  out->donated_from = a.donatedFrom;
  return nullptr;
}

vmapc_status vmapc_run(vmapc_executable *exe, size_t entry,
                       const vmapc_host_array *inputs, size_t num_inputs,
                       const vmapc_mutable_host_array *outputs,
                       size_t num_outputs) {
  return vmapc_run_with_options(exe, entry, inputs, num_inputs, outputs,
                                num_outputs, nullptr);
}

vmapc_status vmapc_run_with_options(vmapc_executable *exe, size_t entry,
                                    const vmapc_host_array *inputs,
                                    size_t num_inputs,
                                    const vmapc_mutable_host_array *outputs,
                                    size_t num_outputs,
                                    const vmapc_run_options *options) {
  const vmapc::Entry *e = entryAt(exe, entry);
  if (!e)
    return errorC(vmapc::StatusCode::kInvalidArgument,
                  "vmapc_run: bad executable or entry index");
  if (num_inputs != e->numInputs() || num_outputs != e->numOutputs())
    return errorC(vmapc::StatusCode::kInvalidArgument,
                  "entry '" + e->name() + "' takes " +
                      std::to_string(e->numInputs()) + " inputs and " +
                      std::to_string(e->numOutputs()) + " outputs, got " +
                      std::to_string(num_inputs) + " and " +
                      std::to_string(num_outputs));
  if ((num_inputs && !inputs) || (num_outputs && !outputs))
    return nullArgument("vmapc_run");
  for (size_t i = 0; i < num_inputs; ++i) {
    const vmapc_host_array &a = inputs[i];
    if (a.rank && !a.shape)
      return errorC(vmapc::StatusCode::kInvalidArgument,
                    "input #" + std::to_string(i) + ": shape is null");
    exe->inputs[i] = {a.data, vmapc::DType(a.dtype),
                      vmapc::Shape(a.shape, a.rank)};
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    const vmapc_mutable_host_array &a = outputs[i];
    if (a.rank && !a.shape)
      return errorC(vmapc::StatusCode::kInvalidArgument,
                    "output #" + std::to_string(i) + ": shape is null");
    exe->outputs[i] = {a.data, vmapc::DType(a.dtype),
                       vmapc::Shape(a.shape, a.rank)};
  }
  vmapc::RunOptions runOptions;
  if (options) {
    runOptions.deviceArrays = options->device_arrays != 0;
    runOptions.stream = options->stream;
  }
  return toC(exe->exe->run(
      *e, vmapc::Span<vmapc::HostArray>(exe->inputs.get(), num_inputs),
      vmapc::Span<vmapc::MutableHostArray>(exe->outputs.get(), num_outputs),
      runOptions));
}

void vmapc_executable_stats(const vmapc_executable *exe, vmapc_stats *out) {
  if (!out)
    return;
  vmapc::Stats s = exe ? exe->exe->stats() : vmapc::Stats();
  out->arena_bytes = s.arenaBytes;
  out->allocations = s.allocations;
  out->calls = s.calls;
  out->launches = s.launches;
  out->examples = s.examples;
  out->device_allocations = s.deviceAllocations;
  out->bytes_to_device = s.bytesToDevice;
  out->bytes_from_device = s.bytesFromDevice;
  out->batched_chunks = s.batchedChunks;
}

const char *vmapc_executable_code_level(const vmapc_executable *exe) {
  return exe ? exe->exe->codeLevel().c_str() : "";
}

const char *vmapc_device_description(const vmapc_device *device) {
  return device ? device->description.c_str() : "";
}

} // extern "C"
