"""The exceptions of the vmapc package."""


class Error(RuntimeError):
    """An error status from the vmapc runtime (loading an artifact, opening a
    device, running an entry).

    Attributes:
        message: the runtime's message.
        code: the status code, an int with the values of absl::StatusCode
            (3 invalid argument, 5 not found, 8 resource exhausted,
            9 failed precondition, 12 unimplemented, 14 unavailable,
            15 data loss, ...; docs/runtime.md lists when each is used).
        code_name: the code's name, "invalid argument", "data loss", ...
    """

    def __init__(self, message, code=13, code_name="internal"):
        super().__init__(message)
        self.message = message
        self.code = code
        self.code_name = code_name

    def __str__(self):
        return f"{self.message} [{self.code_name}, code {self.code}]"


class CompileError(Exception):
    """A program the compiler refused. str(error) is what `vmapc compile`
    prints: `file:line:col: error: ...`, the source line and a caret under
    the column (the file is the path as given, or "<source>").

    Attributes:
        diagnostics: that text.
    """

    def __init__(self, diagnostics):
        super().__init__(diagnostics)
        self.diagnostics = diagnostics


def describe(obj):
    """'an ndarray of shape (3, 4) and dtype float64': an argument, as the
    binding's TypeErrors name it."""
    kind = type(obj).__name__
    article = "an" if kind[:1].lower() in "aeiou" or kind == "ndarray" else "a"
    shape, dtype = getattr(obj, "shape", None), getattr(obj, "dtype", None)
    if shape is None or dtype is None:
        try:
            import numpy as np

            a = np.asarray(obj)
            shape, dtype = a.shape, a.dtype
        except Exception:
            return f"{article} {kind}"
    return f"{article} {kind} of shape {tuple(shape)} and dtype {dtype}"
