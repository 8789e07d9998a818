//===- Binding.cpp - vmapc._vmapc: the Python binding (nanobind) ----------===//
//
// The extension module behind the `vmapc` package (python/vmapc/): a loaded
// executable (`Executable`), its entries as callables (`Entry`), and the
// compiler (`compile_bytes`, `plans`). The Python layer (vmapc/__init__.py)
// chooses options and names; this file owns the call path:
//
//   inputs   an array in the entry's dtype and C order (buffer protocol:
//            numpy, JAX CPU arrays, ...; else DLPack: PyTorch CPU tensors,
//            ...) is passed to the runtime by pointer; any other is converted
//            once with numpy when numpy's same_kind casting allows it, and
//            refused with a TypeError naming it otherwise;
//   outputs  numpy arrays made with numpy.empty and returned as they are, or
//            the caller's `out=` arrays (writable, C order, exact dtype and
//            shape);
//   run      with the GIL released, under the executable's lock: the
//            runtime's rule is one call at a time per executable.
//
//===----------------------------------------------------------------------===//

#include "Compiler.h"

#include "vmapc/ArtifactFormat.h"
#include "vmapc/ArtifactReader.h"
#include "vmapc/HostBuffer.h"
#include "vmapc/Runtime.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace {

//===----------------------------------------------------------------------===//
// Python objects used on the call path, looked up once.
//===----------------------------------------------------------------------===//

/// numpy's functions and the three dtypes, and the package's error class;
/// imported on first use and kept for the life of the process.
struct PyRefs {
  nb::object empty, asarray, ascontiguousarray, canCast;
  nb::object dtypes[4]; // indexed by vmapc::DType
  nb::object errorClass;
};

const PyRefs &pyRefs() {
  static PyRefs *refs = [] {
    auto *r = new PyRefs;
    nb::module_ np = nb::module_::import_("numpy");
    r->empty = np.attr("empty");
    r->asarray = np.attr("asarray");
    r->ascontiguousarray = np.attr("ascontiguousarray");
    r->canCast = np.attr("can_cast");
    r->dtypes[static_cast<int>(vmapc::DType::F32)] =
        np.attr("dtype")("float32");
    r->dtypes[static_cast<int>(vmapc::DType::I32)] = np.attr("dtype")("int32");
    r->dtypes[static_cast<int>(vmapc::DType::Bool)] = np.attr("dtype")("bool");
    r->errorClass = nb::module_::import_("vmapc._errors").attr("Error");
    return r;
  }();
  return *refs;
}

/// numpy's name of `dtype`: "float32", "int32", "bool".
const char *numpyName(vmapc::DType dtype) {
  switch (dtype) {
  case vmapc::DType::F32:
    return "float32";
  case vmapc::DType::I32:
    return "int32";
  case vmapc::DType::Bool:
    return "bool";
  }
  return "?";
}

/// A new tuple of ints.
nb::tuple intTuple(const std::vector<int64_t> &values) {
  PyObject *t = PyTuple_New(static_cast<Py_ssize_t>(values.size()));
  if (!t)
    throw nb::python_error();
  for (size_t i = 0; i < values.size(); ++i)
    PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(values[i]));
  return nb::steal<nb::tuple>(t);
}

/// tuple(obj) for any sequence.
nb::tuple asTuple(nb::handle obj) {
  PyObject *t = PySequence_Tuple(obj.ptr());
  if (!t)
    throw nb::python_error();
  return nb::steal<nb::tuple>(t);
}

/// Raises vmapc.Error(message, code, code_name) for a runtime status.
[[noreturn]] void raiseStatus(const vmapc::Status &status) {
  const PyRefs &refs = pyRefs();
  nb::object error =
      refs.errorClass(status.message(), static_cast<int>(status.code()),
                      vmapc::statusCodeName(status.code()));
  PyErr_SetObject(refs.errorClass.ptr(), error.ptr());
  throw nb::python_error();
}

/// The expected batched shape of `arg` with N written as "N".
std::string expectedShapeText(const vmapc::ArgInfo &arg) {
  std::string s = "(";
  size_t rank = arg.shape.size() + (arg.isMapped() ? 1 : 0);
  for (size_t i = 0, k = 0; i < rank; ++i) {
    s += i ? ", " : "";
    if (arg.isMapped() && static_cast<int32_t>(i) == arg.mappedAxis)
      s += "N";
    else
      s += std::to_string(arg.shape[k++]);
  }
  return s + (rank == 1 ? ",)" : ")");
}

/// `float32[N, 64]`: how an argument is written in docs and signatures.
std::string argTypeText(const vmapc::ArgInfo &arg) {
  std::string s = expectedShapeText(arg);
  if (s.size() >= 2 && s.compare(s.size() - 2, 2, ",)") == 0)
    s.erase(s.size() - 2, 1);
  return std::string(numpyName(arg.dtype)) + "[" + s.substr(1, s.size() - 2) +
         "]";
}

/// The UTF-8 text of str(obj).
std::string strOf(nb::handle obj) {
  nb::object text = nb::steal(PyObject_Str(obj.ptr()));
  if (!text.is_valid())
    throw nb::python_error();
  Py_ssize_t size = 0;
  const char *data = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
  if (!data)
    throw nb::python_error();
  return std::string(data, static_cast<size_t>(size));
}

/// "an ndarray of shape (3, 4) and dtype float64": any object, for error
/// messages (vmapc._errors.describe).
std::string describeObject(nb::handle obj) {
  return strOf(nb::module_::import_("vmapc._errors").attr("describe")(obj));
}

//===----------------------------------------------------------------------===//
// Array views: the buffer protocol, then DLPack.
//===----------------------------------------------------------------------===//

/// The dtype of a buffer-protocol view, if it is one of vmapc's.
bool bufferDType(const Py_buffer &view, vmapc::DType *dtype) {
  const char *f = view.format ? view.format : "B";
  if (*f == '@' || *f == '=' || *f == '<')
    ++f;
  if (f[0] == '\0' || f[1] != '\0')
    return false;
  if (*f == 'f' && view.itemsize == 4)
    *dtype = vmapc::DType::F32;
  else if ((*f == 'i' || *f == 'l') && view.itemsize == 4)
    *dtype = vmapc::DType::I32;
  else if (*f == '?' && view.itemsize == 1)
    *dtype = vmapc::DType::Bool;
  else
    return false;
  return true;
}

bool dlpackDTypeIs(const nb::dlpack::dtype &d, vmapc::DType dtype) {
  switch (dtype) {
  case vmapc::DType::F32:
    return d == nb::dtype<float>();
  case vmapc::DType::I32:
    return d == nb::dtype<int32_t>();
  case vmapc::DType::Bool:
    return d == nb::dtype<bool>();
  }
  return false;
}

/// An array the call reads or writes: its data, shape, and what keeps it
/// valid until the call returns (a buffer-protocol view to release, a DLPack
/// ndarray, a converted copy).
struct ArrayRef {
  void *data = nullptr;
  int64_t dims[vmapc::kMaxRank + 1] = {};
  size_t rank = 0;
  bool tooManyDims = false;
  Py_buffer view{};
  bool hasView = false;
  nb::ndarray<nb::ro> dlpackRo;
  nb::ndarray<> dlpackRw;
  nb::object converted;

  ArrayRef() = default;
  ArrayRef(const ArrayRef &) = delete;
  ArrayRef &operator=(const ArrayRef &) = delete;
  ~ArrayRef() { release(); }

  void release() {
    if (hasView)
      PyBuffer_Release(&view);
    hasView = false;
  }

  void setShape(const Py_ssize_t *shape, size_t ndim) {
    tooManyDims = ndim > vmapc::kMaxRank;
    rank = tooManyDims ? 0 : ndim;
    for (size_t i = 0; i < rank; ++i)
      dims[i] = shape ? shape[i] : 1;
  }

  /// Views `obj` through the buffer protocol when it is `dtype`, C order,
  /// and writable if asked. False (nothing held) otherwise.
  bool fromBuffer(PyObject *obj, vmapc::DType dtype, bool writable) {
    if (!PyObject_CheckBuffer(obj))
      return false;
    int flags = writable ? PyBUF_RECORDS : PyBUF_RECORDS_RO;
    if (PyObject_GetBuffer(obj, &view, flags) != 0) {
      PyErr_Clear();
      return false;
    }
    hasView = true;
    vmapc::DType got;
    if (!bufferDType(view, &got) || got != dtype ||
        !PyBuffer_IsContiguous(&view, 'C')) {
      release();
      return false;
    }
    data = view.buf;
    setShape(view.shape, static_cast<size_t>(view.ndim));
    return true;
  }

  /// Views `obj` through DLPack when it is a CPU array of `dtype` in C order.
  bool fromDlpack(PyObject *obj, vmapc::DType dtype, bool writable) {
    if (!PyObject_HasAttrString(obj, "__dlpack__"))
      return false;
    return writable ? fromNdarray(obj, dtype, dlpackRw)
                    : fromNdarray(obj, dtype, dlpackRo);
  }

  template <typename Array>
  bool fromNdarray(PyObject *obj, vmapc::DType dtype, Array &array) {
    if (!nb::try_cast(nb::handle(obj), array, false) || !array.is_valid())
      return false;
    if (array.device_type() != nb::device::cpu::value) {
      std::string device = std::to_string(array.device_type());
      array = Array();
      throw nb::type_error(
          ("an array on DLPack device type " + device +
           " (vmapc runs host arrays; move it to the CPU first)")
              .c_str());
    }
    // C order: each stride (in elements) is the product of the later dims,
    // ignoring dims of size 1; any empty array qualifies.
    size_t ndim = array.ndim();
    int64_t expected = 1;
    bool contiguous = true, empty = false;
    for (size_t i = ndim; i-- > 0;) {
      int64_t size = static_cast<int64_t>(array.shape(i));
      empty |= size == 0;
      if (size != 1 && array.stride(i) != expected)
        contiguous = false;
      expected *= size;
    }
    if (!dlpackDTypeIs(array.dtype(), dtype) || (!contiguous && !empty)) {
      array = Array();
      return false;
    }
    data = const_cast<void *>(static_cast<const void *>(array.data()));
    tooManyDims = ndim > vmapc::kMaxRank;
    rank = tooManyDims ? 0 : ndim;
    for (size_t i = 0; i < rank; ++i)
      dims[i] = static_cast<int64_t>(array.shape(i));
    return true;
  }

  uint64_t bytes(vmapc::DType dtype) const {
    uint64_t n = vmapc::dtypeBytes(dtype);
    for (size_t i = 0; i < rank; ++i)
      n *= static_cast<uint64_t>(dims[i]);
    return n;
  }
};

//===----------------------------------------------------------------------===//
// Executable and Entry
//===----------------------------------------------------------------------===//

/// A loaded artifact: the device, the executable, the artifact's bytes (for
/// `save`), and the lock that makes its calls one at a time.
struct Core {
  vmapc::Device device;
  std::unique_ptr<vmapc::Executable> executable;
  std::string bytes;
  std::mutex mutex;
};

/// One entry of a Core, callable from Python.
class Entry {
public:
  Entry(std::shared_ptr<Core> core, size_t index)
      : core(std::move(core)), entry(&this->core->executable->entry(index)),
        lastInputs(entry->numInputs(), 0), lastOutputs(entry->numOutputs(), 0) {
  }

  const vmapc::EntryInfo &info() const { return entry->info(); }

  nb::object call(nb::args args, nb::kwargs kwargs);

  /// The data pointers the last successful call passed to the runtime, one
  /// per input (0 before any call).
  std::vector<uintptr_t> lastInputPointers() {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(core->mutex);
    return lastInputs;
  }
  /// The same for the outputs.
  std::vector<uintptr_t> lastOutputPointers() {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(core->mutex);
    return lastOutputs;
  }

  std::string signature() const {
    const vmapc::EntryInfo &e = info();
    std::string s = e.name + "(";
    for (size_t i = 0; i < e.inputs.size(); ++i)
      s += (i ? ", " : "") + e.inputs[i].name + ": " + argTypeText(e.inputs[i]);
    s += ") -> ";
    if (e.outputs.size() != 1)
      s += "(";
    for (size_t i = 0; i < e.outputs.size(); ++i)
      s += (i ? ", " : "") + argTypeText(e.outputs[i]);
    if (e.outputs.size() != 1)
      s += ")";
    return s;
  }

  std::shared_ptr<Core> core;

private:
  /// Looks at input `i` and makes `ref` point at its data: in place, or a
  /// converted copy. TypeError when it cannot be converted.
  void viewInput(size_t i, nb::handle obj, ArrayRef &ref) const;
  /// Looks at `out[i]`: a writable C-order array of the output's dtype.
  void viewOutput(size_t i, nb::handle obj, ArrayRef &ref) const;
  [[noreturn]] void argumentError(const vmapc::ArgInfo &arg, const char *kind,
                                  size_t i, nb::handle obj,
                                  const std::string &why) const;

  const vmapc::Entry *entry;
  std::vector<uintptr_t> lastInputs, lastOutputs;
};

void Entry::argumentError(const vmapc::ArgInfo &arg, const char *kind, size_t i,
                          nb::handle obj, const std::string &why) const {
  std::string message = info().name + "(): " + kind + " '" + arg.name + "' (#" +
                        std::to_string(i) + ") is " + describeObject(obj) +
                        "; expected " + std::string(numpyName(arg.dtype)) +
                        " of shape " + expectedShapeText(arg);
  if (arg.isMapped())
    message +=
        " (N examples along axis " + std::to_string(arg.mappedAxis) + ")";
  if (!why.empty())
    message += ": " + why;
  throw nb::type_error(message.c_str());
}

void Entry::viewInput(size_t i, nb::handle obj, ArrayRef &ref) const {
  const vmapc::ArgInfo &arg = info().inputs[i];
  if (ref.fromBuffer(obj.ptr(), arg.dtype, /*writable=*/false))
    return;
  try {
    if (ref.fromDlpack(obj.ptr(), arg.dtype, /*writable=*/false))
      return;
  } catch (nb::builtin_exception &e) {
    argumentError(arg, "input", i, obj, e.what());
  }
  // One conversion, when numpy's same_kind casting allows it.
  const PyRefs &refs = pyRefs();
  nb::object target = refs.dtypes[static_cast<int>(arg.dtype)];
  nb::object array;
  try {
    array = refs.asarray(obj);
  } catch (nb::python_error &e) {
    argumentError(arg, "input", i, obj,
                  std::string("not convertible to an array (") + e.what() +
                      ")");
  }
  int castable = PyObject_IsTrue(
      refs.canCast(array.attr("dtype"), target, "same_kind").ptr());
  if (castable < 0)
    throw nb::python_error();
  if (!castable)
    argumentError(arg, "input", i, obj,
                  std::string("numpy does not cast ") +
                      strOf(array.attr("dtype")) + " to " +
                      numpyName(arg.dtype) +
                      " (casting='same_kind'); convert it explicitly");
  ref.converted = refs.ascontiguousarray(array, target);
  if (!ref.fromBuffer(ref.converted.ptr(), arg.dtype, /*writable=*/false))
    argumentError(arg, "input", i, obj, "conversion failed");
}

void Entry::viewOutput(size_t i, nb::handle obj, ArrayRef &ref) const {
  const vmapc::ArgInfo &arg = info().outputs[i];
  if (ref.fromBuffer(obj.ptr(), arg.dtype, /*writable=*/true))
    return;
  try {
    if (ref.fromDlpack(obj.ptr(), arg.dtype, /*writable=*/true))
      return;
  } catch (nb::builtin_exception &e) {
    argumentError(arg, "out", i, obj, e.what());
  }
  argumentError(arg, "out", i, obj,
                "out= takes writable C-order arrays of the output's exact "
                "dtype and shape");
}

/// Whether [a, a + na) and [b, b + nb) share a byte.
bool overlaps(const void *a, uint64_t na, const void *b, uint64_t nb) {
  auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return na && nb && x < y + nb && y < x + na;
}

nb::object Entry::call(nb::args args, nb::kwargs kwargs) {
  const vmapc::EntryInfo &e = info();
  const size_t numIn = e.inputs.size(), numOut = e.outputs.size();
  nb::object outArg = nb::none(), nArg = nb::none();
  if (kwargs.size()) {
    for (auto [key, value] : kwargs) {
      std::string k = strOf(key);
      if (k == "out")
        outArg = nb::borrow(value);
      else if (k == "n")
        nArg = nb::borrow(value);
      else
        throw nb::type_error((e.name +
                              "() got an unexpected keyword "
                              "argument '" +
                              k + "' (it takes out= and n=)")
                                 .c_str());
    }
  }
  if (args.size() != numIn) {
    std::string names;
    for (const vmapc::ArgInfo &a : e.inputs)
      names += (names.empty() ? "" : ", ") + a.name;
    throw nb::type_error((e.name + "() takes " + std::to_string(numIn) +
                          " input(s) (" + names + "), got " +
                          std::to_string(args.size()))
                             .c_str());
  }

  // Inputs: views in place where possible.
  std::unique_ptr<ArrayRef[]> ins(new ArrayRef[numIn]);
  for (size_t i = 0; i < numIn; ++i)
    viewInput(i, nb::handle(PyTuple_GET_ITEM(args.ptr(), i)), ins[i]);

  // N: from the mapped inputs, else n=, else the mapped outputs of out=.
  bool inputMapped = false, outputMapped = false;
  for (const vmapc::ArgInfo &a : e.inputs)
    inputMapped |= a.isMapped();
  for (const vmapc::ArgInfo &a : e.outputs)
    outputMapped |= a.isMapped();
  int64_t n = -1;
  for (size_t i = 0; i < numIn && n < 0; ++i)
    if (e.inputs[i].isMapped() && ins[i].rank == e.inputs[i].shape.size() + 1)
      n = ins[i].dims[e.inputs[i].mappedAxis];
  if (!nArg.is_none()) {
    if (!PyLong_Check(nArg.ptr()))
      throw nb::type_error((e.name + "(): n must be an int").c_str());
    int64_t given = PyLong_AsLongLong(nArg.ptr());
    if (given == -1 && PyErr_Occurred())
      throw nb::python_error();
    if (given < 0)
      throw nb::value_error(
          (e.name + "(): n must be at least 0, got " + std::to_string(given))
              .c_str());
    if (n >= 0 && n != given)
      throw nb::value_error((e.name + "(): n=" + std::to_string(given) +
                             " disagrees with N = " + std::to_string(n) +
                             " from the mapped inputs")
                                .c_str());
    n = given;
  }

  // Outputs: the caller's (out=) or new numpy arrays.
  std::unique_ptr<ArrayRef[]> outs(new ArrayRef[numOut]);
  nb::tuple outTuple;
  nb::object result;
  if (!outArg.is_none()) {
    outTuple =
        nb::isinstance<nb::tuple>(outArg) || nb::isinstance<nb::list>(outArg)
            ? asTuple(outArg)
            : nb::make_tuple(outArg);
    if (outTuple.size() != numOut)
      throw nb::type_error((e.name + "(): out= takes " +
                            std::to_string(numOut) + " array(s), got " +
                            std::to_string(outTuple.size()))
                               .c_str());
    for (size_t i = 0; i < numOut; ++i)
      viewOutput(i, outTuple[i], outs[i]);
    for (size_t i = 0; i < numOut && n < 0; ++i)
      if (e.outputs[i].isMapped() &&
          outs[i].rank == e.outputs[i].shape.size() + 1)
        n = outs[i].dims[e.outputs[i].mappedAxis];
    result = numOut == 1 ? nb::object(outTuple[0]) : nb::object(outTuple);
  }
  bool nKnown = n >= 0;
  if (!nKnown) {
    if (!inputMapped && outputMapped)
      throw nb::type_error((e.name + "() maps no input, so the inputs do not "
                                     "say how many examples to run; give n=N "
                                     "or out=")
                               .c_str());
    n = 0; // Nothing is mapped, or a malformed mapped input (below).
  }

  // Shapes, checked here so that the error names the argument as Python
  // sees it.
  auto checkShape = [&](const vmapc::ArgInfo &arg, const ArrayRef &ref,
                        const char *kind, size_t i, nb::handle obj) {
    std::vector<int64_t> want = vmapc::batchedShape(arg, n);
    bool ok = !ref.tooManyDims && ref.rank == want.size() &&
              std::equal(want.begin(), want.end(), ref.dims);
    if (!ok)
      argumentError(arg, kind, i, obj,
                    arg.isMapped() && nKnown ? "N = " + std::to_string(n) : "");
  };
  for (size_t i = 0; i < numIn; ++i)
    checkShape(e.inputs[i], ins[i], "input", i,
               nb::handle(PyTuple_GET_ITEM(args.ptr(), i)));
  if (!outArg.is_none()) {
    for (size_t i = 0; i < numOut; ++i)
      checkShape(e.outputs[i], outs[i], "out", i, outTuple[i]);
  } else {
    const PyRefs &refs = pyRefs();
    PyObject *made = PyTuple_New(static_cast<Py_ssize_t>(numOut));
    if (!made)
      throw nb::python_error();
    nb::tuple madeTuple = nb::steal<nb::tuple>(made);
    for (size_t i = 0; i < numOut; ++i) {
      nb::object array =
          refs.empty(intTuple(vmapc::batchedShape(e.outputs[i], n)),
                     refs.dtypes[static_cast<int>(e.outputs[i].dtype)]);
      if (!outs[i].fromBuffer(array.ptr(), e.outputs[i].dtype, true))
        throw nb::type_error("numpy.empty made an array vmapc cannot write");
      PyTuple_SET_ITEM(made, i, array.release().ptr());
    }
    result = numOut == 1 ? nb::object(madeTuple[0]) : nb::object(madeTuple);
  }

  // Outputs may not overlap inputs (except a donated output in its own
  // input's buffer) or each other.
  for (size_t o = 0; o < numOut; ++o) {
    uint64_t ob = outs[o].bytes(e.outputs[o].dtype);
    for (size_t i = 0; i < numIn; ++i) {
      uint64_t ib = ins[i].bytes(e.inputs[i].dtype);
      bool same = e.outputs[o].donatedFrom == static_cast<int32_t>(i) &&
                  outs[o].data == ins[i].data && ob == ib;
      if (!same && overlaps(outs[o].data, ob, ins[i].data, ib))
        throw nb::value_error((e.name + "(): out[" + std::to_string(o) +
                               "] overlaps input '" + e.inputs[i].name +
                               "'; outputs are written while inputs are read")
                                  .c_str());
    }
    for (size_t p = 0; p < o; ++p)
      if (overlaps(outs[o].data, ob, outs[p].data,
                   outs[p].bytes(e.outputs[p].dtype)))
        throw nb::value_error((e.name + "(): out[" + std::to_string(o) +
                               "] overlaps out[" + std::to_string(p) + "]")
                                  .c_str());
  }

  std::unique_ptr<vmapc::HostArray[]> inViews(new vmapc::HostArray[numIn]);
  for (size_t i = 0; i < numIn; ++i)
    inViews[i] = vmapc::HostArray{ins[i].data, e.inputs[i].dtype,
                                  vmapc::Shape(ins[i].dims, ins[i].rank)};
  std::unique_ptr<vmapc::MutableHostArray[]> outViews(
      new vmapc::MutableHostArray[numOut]);
  for (size_t o = 0; o < numOut; ++o)
    outViews[o] =
        vmapc::MutableHostArray{outs[o].data, e.outputs[o].dtype,
                                vmapc::Shape(outs[o].dims, outs[o].rank)};
  vmapc::Status status;
  {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(core->mutex);
    status = core->executable->run(
        *entry, vmapc::Span<vmapc::HostArray>(inViews.get(), numIn),
        vmapc::Span<vmapc::MutableHostArray>(outViews.get(), numOut));
    if (status.ok()) {
      for (size_t i = 0; i < numIn; ++i)
        lastInputs[i] = reinterpret_cast<uintptr_t>(ins[i].data);
      for (size_t o = 0; o < numOut; ++o)
        lastOutputs[o] = reinterpret_cast<uintptr_t>(outs[o].data);
    }
  }
  if (!status.ok())
    raiseStatus(status);
  return result;
}

//===----------------------------------------------------------------------===//
// Loading and the module's functions
//===----------------------------------------------------------------------===//

std::shared_ptr<Core> openDevice(const std::string &device) {
  auto core = std::make_shared<Core>();
  vmapc::Status status = vmapc::Device::open(device, &core->device);
  if (!status.ok())
    raiseStatus(status);
  return core;
}

/// Loads artifact bytes on `device`.
std::shared_ptr<Core> loadBytes(nb::bytes data, const std::string &device) {
  std::shared_ptr<Core> core = openDevice(device);
  core->bytes.assign(data.c_str(), data.size());
  vmapc::Status status;
  {
    nb::gil_scoped_release release;
    status =
        vmapc::Executable::loadBytes(core->device, core->bytes.data(),
                                     core->bytes.size(), &core->executable);
  }
  if (!status.ok())
    raiseStatus(status);
  return core;
}

/// Loads the artifact file at `path` on `device` (the runtime's reader:
/// header first, never past the size it declares).
std::shared_ptr<Core> loadFile(const std::string &path,
                               const std::string &device) {
  std::shared_ptr<Core> core = openDevice(device);
  vmapc::Status status;
  {
    nb::gil_scoped_release release;
    vmapc::HostBuffer buffer;
    status = vmapc::readArtifactFile(path, &buffer);
    if (status.ok()) {
      core->bytes.assign(reinterpret_cast<const char *>(buffer.data()),
                         buffer.size());
      status =
          vmapc::Executable::loadBytes(core->device, core->bytes.data(),
                                       core->bytes.size(), &core->executable)
              .withPrefix(path + ": ");
    }
  }
  if (!status.ok())
    raiseStatus(status);
  return core;
}

/// The highest x86-64 ISA level this CPU runs (GCC's names, as the runtime
/// checks them).
std::string hostCpuIsa() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("x86-64-v4"))
    return "x86-64-v4";
  if (__builtin_cpu_supports("x86-64-v3"))
    return "x86-64-v3";
  return "x86-64";
}

nb::dict argDict(const vmapc::ArgInfo &arg) {
  nb::dict d;
  d["name"] = arg.name;
  d["dtype"] = numpyName(arg.dtype);
  d["shape"] = intTuple(arg.shape);
  d["mapped_axis"] =
      arg.isMapped() ? nb::object(nb::int_(arg.mappedAxis)) : nb::none();
  d["donated_from"] =
      arg.isDonated() ? nb::object(nb::int_(arg.donatedFrom)) : nb::none();
  return d;
}

} // namespace

NB_MODULE(_vmapc, m) {
  m.doc() = "vmapc's compiler and runtime, in-process (use the `vmapc` "
            "package, not this module)";

  nb::class_<Core>(m, "Executable",
                   "A loaded artifact (one device, one arena, one call at a "
                   "time)")
      .def_prop_ro("device", [](Core &c) { return c.device.describe(); })
      .def_prop_ro("code_level",
                   [](Core &c) { return c.executable->codeLevel(); })
      .def("artifact_bytes",
           [](Core &c) { return nb::bytes(c.bytes.data(), c.bytes.size()); })
      .def("stats", [](Core &c) {
        vmapc::Stats s;
        {
          nb::gil_scoped_release release;
          std::lock_guard<std::mutex> lock(c.mutex);
          s = c.executable->stats();
        }
        nb::dict d;
        d["arena_bytes"] = s.arenaBytes;
        d["allocations"] = s.allocations;
        d["calls"] = s.calls;
        d["launches"] = s.launches;
        d["examples"] = s.examples;
        d["device_allocations"] = s.deviceAllocations;
        d["bytes_to_device"] = s.bytesToDevice;
        d["bytes_from_device"] = s.bytesFromDevice;
        d["batched_chunks"] = s.batchedChunks;
        return d;
      });

  nb::class_<Entry>(m, "Entry", nb::dynamic_attr(),
                    "An entry point of a loaded artifact; call it with the "
                    "entry's inputs")
      .def("__call__", &Entry::call)
      .def_prop_ro("name", [](Entry &e) { return e.info().name; })
      .def_prop_ro("batch_size", [](Entry &e) { return e.info().batchSize; })
      .def_prop_ro("signature", &Entry::signature)
      .def_prop_ro("inputs",
                   [](Entry &e) {
                     nb::list l;
                     for (const vmapc::ArgInfo &a : e.info().inputs)
                       l.append(argDict(a));
                     return l;
                   })
      .def_prop_ro("outputs",
                   [](Entry &e) {
                     nb::list l;
                     for (const vmapc::ArgInfo &a : e.info().outputs)
                       l.append(argDict(a));
                     return l;
                   })
      .def_prop_ro("manifest_plan",
                   [](Entry &e) {
                     const vmapc::EntryInfo &i = e.info();
                     nb::dict d;
                     d["entry"] = i.name;
                     d["arena_bytes"] = i.arenaBytes;
                     d["lower_bound"] = i.lowerBoundBytes;
                     d["naive_sum"] = i.naiveSumBytes;
                     d["in_place"] = i.inPlaceCount;
                     return d;
                   })
      .def("_last_input_pointers", &Entry::lastInputPointers,
           "The data pointers the last successful call passed to the "
           "runtime, one per input (tests)")
      .def("_last_output_pointers", &Entry::lastOutputPointers);

  m.def(
      "entries",
      [](std::shared_ptr<Core> core) {
        nb::list l;
        for (size_t i = 0; i < core->executable->numEntries(); ++i)
          l.append(nb::cast(new Entry(core, i), nb::rv_policy::take_ownership));
        return l;
      },
      "The entries of an Executable, in manifest order.");
  m.def("load_bytes", &loadBytes, nb::arg("data"), nb::arg("device"));
  m.def("load_file", &loadFile, nb::arg("path"), nb::arg("device"));
  m.def("host_cpu_isa", &hostCpuIsa);
  m.def(
      "compile_bytes",
      [](const std::string &text, const std::string &filename, bool cpu,
         bool cuda, std::vector<std::string> isaLevels,
         const std::string &cudaArch, int64_t arenaAlignment,
         bool bufferReuse, unsigned threads) {
        vmapc::python::CompileRequest request;
        request.text = text;
        request.filename = filename;
        request.cpu = cpu;
        request.cuda = cuda;
        request.isaLevels = std::move(isaLevels);
        request.cudaArch = cudaArch;
        request.arenaAlignment = arenaAlignment;
        request.bufferReuse = bufferReuse;
        request.threads = threads;
        std::string bytes, diagnostics;
        bool ok;
        {
          nb::gil_scoped_release release;
          ok = vmapc::python::compileArtifactBytes(request, &bytes,
                                                   &diagnostics);
        }
        return nb::make_tuple(
            ok ? nb::object(nb::bytes(bytes.data(), bytes.size())) : nb::none(),
            diagnostics);
      },
      nb::arg("text"), nb::arg("filename"), nb::arg("cpu"), nb::arg("cuda"),
      nb::arg("isa_levels"), nb::arg("cuda_arch"), nb::arg("arena_alignment"),
      nb::arg("buffer_reuse"), nb::arg("threads"),
      "Compiles .arr source: (artifact bytes or None, diagnostics).");
  m.def(
      "plans",
      [](const std::string &text, const std::string &filename,
         int64_t arenaAlignment, bool bufferReuse) {
        std::vector<vmapc::python::EntryPlan> plans;
        std::string diagnostics;
        bool ok;
        {
          nb::gil_scoped_release release;
          ok = vmapc::python::computePlans(text, filename, arenaAlignment,
                                           bufferReuse, &plans, &diagnostics);
        }
        nb::list list;
        for (const vmapc::python::EntryPlan &p : plans)
          list.append(nb::make_tuple(p.entry, p.json, p.svg));
        return nb::make_tuple(ok ? nb::object(list) : nb::none(), diagnostics);
      },
      nb::arg("text"), nb::arg("filename"), nb::arg("arena_alignment"),
      nb::arg("buffer_reuse"),
      "Each entry's buffer plan, as `vmapc plan` reports it: ([(entry, "
      "JSON text, SVG text)] or None, diagnostics).");
}
