"""Type stubs of vmapc._vmapc, the extension behind the `vmapc` package (use
the package: vmapc.compile, vmapc.load)."""

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

class Executable:
    """A loaded artifact: one device, one arena, one call at a time."""

    @property
    def device(self) -> str: ...
    @property
    def code_level(self) -> str: ...
    def artifact_bytes(self) -> bytes: ...
    def stats(self) -> Dict[str, int]: ...

class Entry:
    """An entry point of a loaded artifact.

    Call it with the entry's inputs in manifest order: arrays of its dtype
    (float32, int32 or bool), mapped inputs with N examples at their mapped
    axis, unmapped ones with their per-example shape. Returns the output
    (numpy) or a tuple of them; out= writes the caller's arrays instead.

    Raises TypeError (wrong count, shape or dtype: the message names the
    argument, its shape and dtype and the expected ones), ValueError (out=
    overlapping an input or another output, a bad n=) and vmapc.Error (a
    runtime status, with its code).
    """

    def __call__(self, *arrays: Any, out: Optional[Union[Any, Sequence[Any]]] = ...,
                 n: Optional[int] = ...) -> Union[np.ndarray, Tuple[Any, ...], Any]: ...
    @property
    def name(self) -> str: ...
    @property
    def batch_size(self) -> int: ...
    @property
    def signature(self) -> str:
        """"classify(q: float32[N, 64], refs: float32[1000, 64]) -> int32[N]"."""
    @property
    def inputs(self) -> List[Dict[str, Any]]:
        """Per input: name, dtype, shape (per example), mapped_axis (None if
        unmapped), donated_from (None)."""
    @property
    def outputs(self) -> List[Dict[str, Any]]:
        """Per output: name, dtype, shape (per example), mapped_axis,
        donated_from (the input whose bytes it takes, or None)."""
    @property
    def manifest_plan(self) -> Dict[str, Any]: ...
    def _last_input_pointers(self) -> List[int]: ...
    def _last_output_pointers(self) -> List[int]: ...

def entries(core: Executable) -> List[Entry]: ...
def load_bytes(data: bytes, device: str) -> Executable: ...
def load_file(path: str, device: str) -> Executable: ...
def host_cpu_isa() -> str: ...
def compile_bytes(text: str, filename: str, cpu: bool, cuda: bool,
                  isa_levels: List[str], cuda_arch: str, arena_alignment: int,
                  buffer_reuse: bool,
                  threads: int) -> Tuple[Optional[bytes], str]: ...
def plans(text: str, filename: str, arena_alignment: int,
          buffer_reuse: bool) -> Tuple[Optional[List[Tuple[str, str, str]]], str]: ...
