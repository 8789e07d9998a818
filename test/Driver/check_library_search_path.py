#!/usr/bin/env python3
"""Runs each tool found on PATH from a directory that holds files named
like the C and C++ runtime libraries (not ELF files), and fails unless it
starts: a tool whose RUNPATH has an empty entry searches the working
directory for its libraries, and the dynamic loader then refuses (or, with
a real library there, loads) what it finds.

    check_library_search_path.py WORKDIR TOOL[:ARG...]...

A TOOL that is not on PATH (vmapc-mpi-run without MPI) is skipped. Under
AddressSanitizer (scripts/test-sanitized.sh) leak detection is off for the
tools: this checks where they load libraries from, and vmapc-mpi-run's
MPI_Init keeps allocations past exit (test/mpi/lsan.supp).
"""
import os
import shutil
import subprocess
import sys

DECOYS = ["libstdc++.so.6", "libm.so.6", "libc.so.6", "libgcc_s.so.1",
          "libz.so.1", "libzstd.so.1"]


def main(argv):
    workdir = argv[1]
    os.makedirs(workdir, exist_ok=True)
    for name in DECOYS:
        with open(os.path.join(workdir, name), "w") as f:
            f.write("not a library\n")
    env = dict(os.environ)
    asan = env.get("ASAN_OPTIONS", "")
    env["ASAN_OPTIONS"] = (asan + ":" if asan else "") + "detect_leaks=0"
    failures = 0
    for spec in argv[2:]:
        tool, *args = spec.split(":")
        path = shutil.which(tool)
        if path is None:
            print(f"{tool}: not built, skipped")
            continue
        r = subprocess.run([path, *args], cwd=workdir, env=env,
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures += 1
            print(f"{tool}: exit {r.returncode} in a directory of decoy "
                  f"libraries: {r.stderr.strip()}")
        else:
            print(f"{tool}: starts")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
