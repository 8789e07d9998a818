from typing import Any

class Error(RuntimeError):
    """A runtime status: `code` (absl::StatusCode's numbers), `code_name`,
    `message`."""

    message: str
    code: int
    code_name: str
    def __init__(self, message: str, code: int = ..., code_name: str = ...) -> None: ...

class CompileError(Exception):
    """The CLI's diagnostics text: file:line:col: error: ..., the line, a
    caret."""

    diagnostics: str
    def __init__(self, diagnostics: str) -> None: ...

def describe(obj: Any) -> str: ...
