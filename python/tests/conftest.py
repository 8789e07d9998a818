"""Shared fixtures of the vmapc package's tests (python3 -m pytest python/tests).

The programs are compiled at this CPU's ISA level only (cpu_isa="host"): the
other levels run the same compiler and runtime code, and the end-to-end tests
(test/e2e) cover them.
"""

import os
import shutil
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "bench"))

import programs as P  # noqa: E402  (bench/programs.py: inputs and references)

import vmapc  # noqa: E402

_modules = {}


def compiled(arr):
    """The Module of `arr` (a path), compiled once per test session."""
    if arr not in _modules:
        _modules[arr] = vmapc.compile(arr, cpu_isa="host")
    return _modules[arr]


@pytest.fixture(scope="session")
def knn():
    return compiled(P.KNN_ARR)


@pytest.fixture(scope="session")
def chain():
    return compiled(os.path.join(P.PROGRAMS_DIR, "chain_4096.arr"))


@pytest.fixture(scope="session")
def cli():
    """build/bin/vmapc (or $VMAPC_BIN_DIR/vmapc); the test skips without it."""
    bin_dir = os.environ.get("VMAPC_BIN_DIR",
                             os.path.join(REPO_ROOT, "build", "bin"))
    path = os.path.join(bin_dir, "vmapc")
    if not os.access(path, os.X_OK):
        path = shutil.which("vmapc")
    if not path:
        pytest.skip("the vmapc CLI is not built (build/bin/vmapc)")
    return path


def knn_inputs(n, seed=0):
    import numpy as np

    rng = np.random.default_rng(seed)
    q = rng.integers(0, 17, (n, 64)).astype(np.float32)
    refs = rng.integers(0, 17, (1000, 64)).astype(np.float32)
    return q, refs


def knn_reference(q, refs):
    import numpy as np

    return P.knn_reference([q, refs])[0].astype(np.int32)
