//===- CApi.cpp - The C API, a thin layer over the C++ runtime ------------===//

#include "vmapc/vmapc_runtime.h"

#include "vmapc/Runtime.h"

#include <algorithm>
#include <new>
#include <string>

struct vmapc_status_s {
  std::string message;
};

struct vmapc_device_s {
  vmapc::Device device;
};

struct vmapc_executable_s {
  std::unique_ptr<vmapc::Executable> exe;
  /// Scratch views for vmapc_run, sized at load: no allocation per call.
  std::vector<vmapc::HostArray> inputs;
  std::vector<vmapc::MutableHostArray> outputs;
};

namespace {
vmapc_status toC(const vmapc::Status &s) {
  if (s.ok())
    return nullptr;
  return new (std::nothrow) vmapc_status_s{s.message()};
}
vmapc_status errorC(const std::string &message) {
  return new (std::nothrow) vmapc_status_s{message};
}

vmapc_status wrap(vmapc::Status s, std::unique_ptr<vmapc::Executable> exe,
                  vmapc_executable **out) {
  if (!s.ok())
    return toC(s);
  auto *w = new (std::nothrow) vmapc_executable_s();
  if (!w)
    return errorC("out of memory");
  size_t maxIn = 0, maxOut = 0;
  for (size_t i = 0; i < exe->numEntries(); ++i) {
    maxIn = std::max(maxIn, exe->entry(i).numInputs());
    maxOut = std::max(maxOut, exe->entry(i).numOutputs());
  }
  w->inputs.resize(maxIn);
  w->outputs.resize(maxOut);
  w->exe = std::move(exe);
  *out = w;
  return nullptr;
}

const vmapc::Entry *entryAt(const vmapc_executable *exe, size_t entry) {
  if (!exe || entry >= exe->exe->numEntries())
    return nullptr;
  return &exe->exe->entry(entry);
}
} // namespace

extern "C" {

const char *vmapc_status_message(vmapc_status status) {
  return status ? status->message.c_str() : "ok";
}

void vmapc_status_free(vmapc_status status) { delete status; }

vmapc_status vmapc_device_open(const char *name, vmapc_device **out) {
  if (!name || !out)
    return errorC("vmapc_device_open: null argument");
  vmapc::Device d;
  if (vmapc_status s = toC(vmapc::Device::open(name, &d)))
    return s;
  *out = new (std::nothrow) vmapc_device_s{d};
  return *out ? nullptr : errorC("out of memory");
}

void vmapc_device_release(vmapc_device *device) { delete device; }

vmapc_status vmapc_executable_load_bytes(const vmapc_device *device,
                                         const void *data, size_t size,
                                         vmapc_executable **out) {
  if (!device || !out)
    return errorC("vmapc_executable_load_bytes: null argument");
  std::unique_ptr<vmapc::Executable> exe;
  vmapc::Status s =
      vmapc::Executable::loadBytes(device->device, data, size, &exe);
  return wrap(std::move(s), std::move(exe), out);
}

vmapc_status vmapc_executable_load_file(const vmapc_device *device,
                                        const char *path,
                                        vmapc_executable **out) {
  if (!device || !path || !out)
    return errorC("vmapc_executable_load_file: null argument");
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
    return errorC("vmapc_find_entry: null argument");
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
    return errorC("vmapc_entry_arg: bad executable or entry index");
  const auto &args = is_output ? e->info().outputs : e->info().inputs;
  if (index >= args.size())
    return errorC("entry '" + e->name() + "' has no " +
                  (is_output ? "output" : "input") + " #" +
                  std::to_string(index));
  const vmapc::ArgInfo &a = args[index];
  out->name = a.name.c_str();
  out->dtype = int(a.dtype);
  out->rank = a.shape.size();
  out->dims = a.shape.data();
  out->mapped_axis = a.mappedAxis;
  return nullptr;
}

vmapc_status vmapc_run(vmapc_executable *exe, size_t entry,
                       const vmapc_host_array *inputs, size_t num_inputs,
                       const vmapc_mutable_host_array *outputs,
                       size_t num_outputs) {
  const vmapc::Entry *e = entryAt(exe, entry);
  if (!e)
    return errorC("vmapc_run: bad executable or entry index");
  if (num_inputs != e->numInputs() || num_outputs != e->numOutputs())
    return errorC(
        "entry '" + e->name() + "' takes " + std::to_string(e->numInputs()) +
        " inputs and " + std::to_string(e->numOutputs()) + " outputs, got " +
        std::to_string(num_inputs) + " and " + std::to_string(num_outputs));
  if ((num_inputs && !inputs) || (num_outputs && !outputs))
    return errorC("vmapc_run: null argument array");
  for (size_t i = 0; i < num_inputs; ++i) {
    const vmapc_host_array &a = inputs[i];
    if (a.rank && !a.shape)
      return errorC("input #" + std::to_string(i) + ": shape is null");
    exe->inputs[i] = {a.data, vmapc::DType(a.dtype),
                      vmapc::Shape(a.shape, a.rank)};
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    const vmapc_mutable_host_array &a = outputs[i];
    if (a.rank && !a.shape)
      return errorC("output #" + std::to_string(i) + ": shape is null");
    exe->outputs[i] = {a.data, vmapc::DType(a.dtype),
                       vmapc::Shape(a.shape, a.rank)};
  }
  return toC(exe->exe->run(
      *e, vmapc::Span<vmapc::HostArray>(exe->inputs.data(), num_inputs),
      vmapc::Span<vmapc::MutableHostArray>(exe->outputs.data(), num_outputs)));
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
}

} // extern "C"
