"""vmapc in Python: compile a `.arr` program in-process and run its batched
entries on numpy, JAX and PyTorch arrays.

    import vmapc, numpy as np
    m = vmapc.compile("examples/knn_digits.arr")   # or vmapc.compile(source="...")
    m.entries                                      # ['classify']
    idx = m.classify(q, refs)                      # numpy in, numpy out, any N >= 0
    m.classify(q, refs, out=(idx,))                # into the caller's arrays
    m.save("knn.vmapc"); m2 = vmapc.load("knn.vmapc", device="cpu:threads=2")
    m.plan("classify")                             # the buffer plan, a dict
    m.stats                                        # allocations, launches, bytes

The compiler is the one `vmapc compile` runs, and the runtime is the library
the C API wraps (runtime/include/vmapc/vmapc_runtime.h); nothing here
computes on its own.

Arrays. An input whose dtype is the entry's (float32, int32 or bool) and
whose memory is in C order reaches the runtime by pointer, through the buffer
protocol (numpy arrays, JAX CPU arrays, memoryviews) or DLPack (PyTorch CPU
tensors and other `__dlpack__` producers): no copy is made here. Any other
input is converted once with numpy, when numpy's `same_kind` casting allows
it (float64 to float32, a Python list of floats, a strided view), and refused
with a TypeError naming the argument, its shape and dtype and the expected
ones otherwise (float32 into an int32 input, a GPU array). Outputs are numpy
arrays returned without a copy, or the caller's arrays given with `out=`.

Threads. A call releases the GIL while the runtime runs. One module runs one
call at a time (a lock: the runtime's rule for one executable); two modules,
even of the same artifact, run in parallel on their threads.

Errors. `vmapc.CompileError` for a program the compiler refuses (its text is
the CLI's: file:line:col, the source line and a caret); `vmapc.Error` (a
RuntimeError) for a status of the runtime, with its `code` and `code_name`;
TypeError and ValueError for arguments.
"""

import json as _json
import numbers as _numbers
import os as _os

from . import _vmapc
from ._errors import CompileError, Error

__all__ = ["compile", "load", "Module", "Plan", "CompileError", "Error",
           "host_cpu_isa", "ISA_LEVELS"]

try:
    from importlib.metadata import version as _version

    __version__ = _version("vmapc")
except Exception:  # not installed as a distribution (a source checkout)
    __version__ = "0+unknown"

#: The x86-64 ISA levels `compile` builds code for (`cpu_isa=`).
ISA_LEVELS = ("x86-64", "x86-64-v3", "x86-64-v4")

Entry = _vmapc.Entry


def host_cpu_isa():
    """The highest x86-64 ISA level this CPU runs: "x86-64", "x86-64-v3"
    (AVX2 + FMA) or "x86-64-v4" (AVX-512), as the runtime picks it."""
    return _vmapc.host_cpu_isa()


def _targets(target):
    names = target.split(",") if isinstance(target, str) else list(target)
    names = [t.strip() for t in names]
    for t in names:
        if t not in ("cpu", "cuda"):
            raise ValueError(f"unknown target {t!r} in target={target!r} "
                             "(cpu, cuda, or cpu,cuda)")
    if not names:
        raise ValueError("target= names no target (cpu, cuda, or cpu,cuda)")
    return "cpu" in names, "cuda" in names


def _isa_levels(cpu_isa):
    if cpu_isa is None:
        return []
    levels = [cpu_isa] if isinstance(cpu_isa, str) else list(cpu_isa)
    levels = [host_cpu_isa() if level == "host" else level for level in levels]
    for level in levels:
        if level not in ISA_LEVELS:
            raise ValueError(f"unknown ISA level {level!r} (x86-64, x86-64-v3, "
                             "x86-64-v4, or 'host' for this CPU's)")
    return levels


def _threads(threads):
    if threads is None:
        return 0  # the compiler's default: one per hardware thread
    if isinstance(threads, bool) or not isinstance(threads, _numbers.Integral):
        raise TypeError(f"threads={threads!r} is not an integer (or None: "
                        "one per hardware thread)")
    if threads < 1:
        raise ValueError(f"threads={threads!r} is not a positive integer "
                         "(or None: one per hardware thread)")
    # The compiler starts at most a thread per ISA level whatever the count.
    return min(int(threads), 1 << 16)


def compile(path=None, *, source=None, filename=None, target="cpu",
            cpu_isa=None, cuda_arch="sm_90", arena_alignment=None,
            buffer_reuse=True, threads=None, device="cpu"):
    """Compiles a `.arr` program in-process and loads it on `device`.

    Args:
        path: the `.arr` file (a str or os.PathLike); or give `source=`.
        source: the program's text instead of a file.
        filename: the name diagnostics give `source` (default "<source>").
        target: "cpu", "cuda" or "cpu,cuda" (or a list), as
            `vmapc compile --target`.
        cpu_isa: an ISA level or a list of them ("x86-64", "x86-64-v3",
            "x86-64-v4", or "host" for this CPU's best), as `--cpu-isa`
            repeated; default all three.
        cuda_arch: the NVIDIA architecture of CUDA code, as `--cuda-arch`.
        arena_alignment: the alignment of the arena's offsets in bytes, a
            power of two from 1 to 4096, as `--arena-alignment` (default: 64
            for the CPU, 256 with CUDA).
        buffer_reuse: False turns buffer planning off, as
            `--no-buffer-reuse` (every buffer its own bytes).
        threads: how many threads compile the CPU code, one ISA level
            each, as `-j N`; None (the default) uses one per hardware
            thread, as the CLI does. The artifact's bytes are the same for
            any count. The GIL is released while the compiler runs.
        device: where to load it: "cpu", "cpu:threads=K,isa=LEVEL",
            "cuda:N" (the runtime's device strings).

    Returns:
        A Module.

    Raises:
        CompileError: the program has an error (the CLI's text).
        FileNotFoundError, OSError: `path` cannot be read.
        TypeError: both or neither of path and source=; threads not an
            integer.
        ValueError: an unknown target or ISA level, a bad arena_alignment,
            threads < 1.
        vmapc.Error: the device cannot be opened or the code loaded.
    """
    if (path is None) == (source is None):
        raise TypeError("vmapc.compile() takes a path or source=, not both")
    cpu, cuda = _targets(target)
    levels = _isa_levels(cpu_isa)
    if not str(cuda_arch).startswith("sm_"):
        raise ValueError(f"cuda_arch={cuda_arch!r} is not an sm_XY "
                         "architecture")
    alignment = 0 if arena_alignment is None else int(arena_alignment)
    if arena_alignment is not None and not (
            0 < alignment <= 4096 and alignment & (alignment - 1) == 0):
        raise ValueError(f"arena_alignment={arena_alignment!r} is not a power "
                         "of two from 1 to 4096")
    jobs = _threads(threads)
    if path is not None:
        name = _os.fspath(path)
        with open(name, "rb") as f:
            text = f.read().decode("utf-8", errors="replace")
    else:
        name = filename or "<source>"
        text = source
    data, diagnostics = _vmapc.compile_bytes(text, name, cpu, cuda, levels,
                                             cuda_arch, alignment,
                                             bool(buffer_reuse), jobs)
    if data is None:
        raise CompileError(diagnostics.rstrip("\n") or
                           f"{name}: compilation failed")
    module = Module(_vmapc.load_bytes(data, device), source=text,
                    filename=name)
    module._plan_options = (alignment, bool(buffer_reuse))
    return module


def load(path, device="cpu"):
    """Loads a `.vmapc` artifact (from `vmapc compile` or `Module.save`) on
    `device` ("cpu", "cpu:threads=K,isa=LEVEL", "cuda:N").

    An artifact is code: loading one runs it (docs/runtime.md, "Trust
    model"). Raises vmapc.Error with the runtime's status: code 5 (not found)
    for a missing file, 15 (data loss) for a corrupt one, 12 (unimplemented)
    for another format version, ...
    """
    return Module(_vmapc.load_file(_os.fspath(path), device))


class Plan(dict):
    """An entry's buffer plan: the JSON object `vmapc plan --json` writes for
    it, as a dict ("entry", "arena_bytes", "lower_bound", "naive_sum",
    "in_place", "alignment", "buffers" with each buffer's "name", "source",
    "role", "bytes", "start", "end" (its live interval in schedule points),
    "offset", ..., the schedule "points" and the "unmapped_inputs"; all sizes
    in bytes). In a notebook it shows as `vmapc plan --svg`'s picture
    (`_repr_svg_`, also `svg`).
    """

    def __init__(self, fields, svg=None):
        super().__init__(fields)
        self.svg = svg

    def _repr_svg_(self):
        return self.svg


def _entry_doc(e):
    lines = [e.signature, "",
             f"Runs entry {e.name!r} on N >= 0 examples (compiled for a batch "
             f"of B = {e.batch_size}; the runtime runs ceil(N / B) chunks "
             "through one static arena).", ""]

    def arg_lines(args, kind):
        out = []
        for i, a in enumerate(args):
            dims = list(a["shape"])
            if a["mapped_axis"] is not None:
                dims.insert(a["mapped_axis"], "N")
                how = f"examples along axis {a['mapped_axis']}"
            else:
                how = ("shared by every example" if kind == "input"
                       else "computed once")
            shape = "(" + ", ".join(str(d) for d in dims) + \
                ("," if len(dims) == 1 else "") + ")"
            extra = ""
            if a.get("donated_from") is not None:
                extra = f"; computed in input #{a['donated_from']}'s buffer " \
                        "(donate=)"
            out.append(f"    {a['name']}: {a['dtype']}, shape {shape}, "
                       f"{how}{extra}")
        return out

    lines.append("Inputs:")
    lines += arg_lines(e.inputs, "input")
    lines.append("Returns:" if len(e.outputs) == 1 else
                 "Returns a tuple:")
    lines += arg_lines(e.outputs, "output")
    lines += [
        "",
        "Keyword arguments:",
        "    out: a tuple of arrays, one per output (or the array of a "
        "single output),",
        "        writable, C order, of each output's dtype and shape; "
        "written and returned.",
        "    n: N, for an entry that maps no input.",
        "",
        "Raises:",
        "    TypeError: a wrong number of inputs, or an input or out= array "
        "of the wrong",
        "        shape or dtype (the message names it and what is expected).",
        "    ValueError: out= arrays that overlap the inputs or each other; "
        "a bad n.",
        "    vmapc.Error: a status of the runtime (its code and message).",
    ]
    return "\n".join(lines)


class Module:
    """A compiled and loaded `.arr` program: one executable on one device.

    Each entry is an attribute (`m.classify`) unless its name is taken by a
    method (`save`, `plan`, ...); `m[name]` and `m.entry(name)` always work.
    See the package's docstring for how arrays are passed.
    """

    def __init__(self, core, source=None, filename=None):
        self._core = core
        self._source = source
        self._filename = filename
        self._plans = None
        self._plan_options = (0, True)
        self._entries = {}
        for e in _vmapc.entries(core):
            e.__doc__ = _entry_doc(e)
            self._entries[e.name] = e
            if not hasattr(type(self), e.name):
                self.__dict__[e.name] = e

    @property
    def entries(self):
        """The entries' names, in the order of the program's exports."""
        return list(self._entries)

    def entry(self, name):
        """The entry `name` (a callable). KeyError names the entries."""
        try:
            return self._entries[name]
        except KeyError:
            raise KeyError(f"unknown entry {name!r}; entries are: "
                           f"{', '.join(self._entries)}") from None

    __getitem__ = entry

    def __getattr__(self, name):
        raise AttributeError(f"vmapc.Module has no attribute or entry {name!r}"
                             f" (entries: {', '.join(self._entries)})")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._entries))

    @property
    def device(self):
        """The device, for people: "cpu: 2 threads", ..."""
        return self._core.device

    @property
    def code_level(self):
        """The code the device runs: an ISA level ("x86-64-v3"), or on CUDA
        "sm_90 (cubin)"."""
        return self._core.code_level

    @property
    def stats(self):
        """The executable's counters since it was loaded (a dict):
        arena_bytes, allocations (1: the arena, made at load), calls,
        launches, examples, device_allocations, bytes_to_device,
        bytes_from_device, batched_chunks (chunks whose dispatch ran beside
        other chunks' with no barrier between them)."""
        return self._core.stats()

    def save(self, path):
        """Writes the artifact (the bytes that were loaded) to `path`, for
        `vmapc.load`, `vmapc run` or a C/C++ host."""
        with open(_os.fspath(path), "wb") as f:
            f.write(self._core.artifact_bytes())

    def plan(self, entry=None):
        """The buffer plan of `entry` (default: the only one) as a Plan: a
        dict with the fields of `vmapc plan --json` for the entry, which a
        notebook shows as the SVG of `vmapc plan --svg`.

        A module loaded from an artifact has no source to plan again: its
        plan has the manifest's figures (arena_bytes, lower_bound, naive_sum,
        in_place), "buffers" None and no picture.
        """
        if entry is None:
            if len(self._entries) != 1:
                raise TypeError(f"the module has {len(self._entries)} "
                                "entries; name one: plan('" +
                                "'), plan('".join(self._entries) + "')")
            entry = next(iter(self._entries))
        e = self.entry(entry)
        if self._source is None:
            plan = Plan(e.manifest_plan)
            plan["buffers"] = None
            return plan
        if self._plans is None:
            plans, diagnostics = _vmapc.plans(self._source, self._filename,
                                              *self._plan_options)
            if plans is None:
                raise CompileError(diagnostics.rstrip("\n"))
            self._plans = {name: (text, svg) for name, text, svg in plans}
        text, svg = self._plans[entry]
        return Plan(_json.loads(text), svg)

    def __repr__(self):
        where = f" from {self._filename!r}" if self._filename else ""
        return (f"<vmapc.Module{where}: entries {self.entries}, "
                f"{self.device}, {self.code_level}>")
