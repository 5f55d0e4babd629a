#!/usr/bin/env python3
"""Compile time with and without the precompiled headers (docs/benchmarks.md, "Build time").

Reads a configured build's compile_commands.json and, for every source whose path matches the
pattern and whose command uses a precompiled header (CMake's `-include .../cmake_pch.hxx`),
compiles it twice in turn, one job at a time and without ccache: as the build does, and with the
precompiled header left out (the same command less `-Winvalid-pch -include ...`). Prints each
source's seconds and the totals; the objects go to a scratch folder, the build is not touched.

    tests/benchmarks/bench_compile.py build/dev 'tests/core/tst_' 12

The build must be built first (the .gch files and the generated moc sources must exist).
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time


def timed(argv, cwd):
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    build, pattern = sys.argv[1], re.compile(sys.argv[2])
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = [e for e in json.load(f) if pattern.search(e["file"]) and "cmake_pch.hxx" in e["command"]]
    entries.sort(key=lambda e: e["file"])
    entries = entries[:limit]
    if not entries:
        sys.exit(f"no source matching {sys.argv[2]!r} is compiled with a precompiled header in {build}")
    totals = [0.0, 0.0]
    with tempfile.TemporaryDirectory() as scratch:
        for e in entries:
            argv = shlex.split(e["command"])
            if os.path.basename(argv[0]) == "ccache":
                argv = argv[1:]
            out = argv.index("-o")
            argv[out + 1] = os.path.join(scratch, "out.o")
            argv = [a for i, a in enumerate(argv) if a not in ("-MD", "-MT", "-MF") and argv[i - 1] not in ("-MT", "-MF")]
            inc = argv.index("-include")
            plain = argv[:inc] + argv[inc + 2:]
            plain = [a for a in plain if a != "-Winvalid-pch"]
            with_pch = timed(argv, e["directory"])
            without = timed(plain, e["directory"])
            totals[0] += with_pch
            totals[1] += without
            print(f"{os.path.relpath(e['file'])}: {with_pch:6.2f} s with, {without:6.2f} s without")
    print(f"total over {len(entries)} sources: {totals[0]:.1f} s with the precompiled header, "
          f"{totals[1]:.1f} s without ({100 * (1 - totals[0] / totals[1]):.0f} % less)")


if __name__ == "__main__":
    main()
