"""Type stubs of the vmapc package (see vmapc/__init__.py for the prose)."""

import os
from typing import Any, Dict, List, Optional, Sequence, Union

from ._errors import CompileError as CompileError
from ._errors import Error as Error
from ._vmapc import Entry as Entry

__version__: str
ISA_LEVELS: tuple

_Path = Union[str, os.PathLike]

def host_cpu_isa() -> str:
    """"x86-64", "x86-64-v3" or "x86-64-v4": the best level this CPU runs."""

def compile(path: Optional[_Path] = ..., *, source: Optional[str] = ...,
            filename: Optional[str] = ...,
            target: Union[str, Sequence[str]] = ...,
            cpu_isa: Optional[Union[str, Sequence[str]]] = ...,
            cuda_arch: str = ..., arena_alignment: Optional[int] = ...,
            buffer_reuse: bool = ..., threads: Optional[int] = ...,
            device: str = ...) -> "Module":
    """Compiles a .arr program in-process (vmapc compile's options; threads=
    is -j N, None for one per hardware thread) and loads it on `device`.
    Raises CompileError (the CLI's file:line:col text and caret), OSError,
    ValueError, vmapc.Error."""

def load(path: _Path, device: str = ...) -> "Module":
    """Loads a .vmapc artifact on `device`. Raises vmapc.Error (code 5 not
    found, 15 data loss, 12 unimplemented, ...)."""

class Plan(Dict[str, Any]):
    """`vmapc plan --json`'s object for one entry; `_repr_svg_` is --svg's
    picture (None for a module loaded from an artifact)."""

    svg: Optional[str]
    def __init__(self, fields: Dict[str, Any], svg: Optional[str] = ...) -> None: ...
    def _repr_svg_(self) -> Optional[str]: ...

class Module:
    """A compiled and loaded program; each entry is an attribute (an Entry)."""

    @property
    def entries(self) -> List[str]: ...
    def entry(self, name: str) -> Entry: ...
    def __getitem__(self, name: str) -> Entry: ...
    def __getattr__(self, name: str) -> Entry: ...
    @property
    def device(self) -> str: ...
    @property
    def code_level(self) -> str: ...
    @property
    def stats(self) -> Dict[str, int]:
        """arena_bytes, allocations, calls, launches, examples,
        device_allocations, bytes_to_device, bytes_from_device."""
    def save(self, path: _Path) -> None: ...
    def plan(self, entry: Optional[str] = ...) -> Plan: ...
