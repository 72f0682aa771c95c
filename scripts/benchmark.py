#!/usr/bin/env python3
"""Speed and memory of xfer-tidy on the bundled examples and testdata.

Prints, for each input, the wall time and the peak resident memory of one
xfer-tidy process (best of --repeat runs), next to clang-tidy-19 with the
plugin on the same input.

  python3 scripts/benchmark.py [--repeat 3]
"""
import argparse
import os
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, "build/tool/xfer-tidy")
PLUGIN = os.path.join(ROOT, "build/checks/libXferTidy.so")
TORCH = "/usr/include/torch/csrc/api/include"


def measure(command):
    """Wall seconds and peak RSS (MiB) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.monotonic()
    process = subprocess.run(command, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    # ru_maxrss of children is the maximum over all children so far; run the
    # largest input last or read it per process with a fresh interpreter.
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(peak, before) / 1024.0, process.returncode


def best(command, repeat):
    runs = [measure(command) for _ in range(repeat)]
    return min(r[0] for r in runs), max(r[1] for r in runs), runs[0][2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    checks = sorted(os.path.join(ROOT, "testdata/checks", f)
                    for f in os.listdir(os.path.join(ROOT, "testdata/checks"))
                    if f.endswith(".cpp") and "kernels" not in f)
    inputs = [
        ("testdata/checks (%d files, stub headers)" % len(checks),
         checks, ["-std=c++17", "-isystem", os.path.join(ROOT, "testdata/include")]),
        ("memcpy_loop.cu (CUDA toolkit headers)",
         [os.path.join(ROOT, "testdata/examples/memcpy_loop.cu")], []),
        ("seed_training_loop.cpp (real LibTorch headers)",
         [os.path.join(ROOT, "testdata/examples/seed_training_loop.cpp")],
         ["-std=c++17", "-isystem", TORCH]),
    ]
    print("%-48s %12s %10s %14s" % ("input", "xfer-tidy s", "peak MiB",
                                    "clang-tidy s"))
    for name, files, flags in inputs:
        # A fresh interpreter per measurement keeps the RSS figures separate.
        tool = subprocess.run(
            [sys.executable, __file__, "--one", str(args.repeat), TOOL, "--quiet"]
            + files + ["--"] + flags, capture_output=True, text=True).stdout.split()
        plugin_cmd = ["clang-tidy-19", "--load=" + PLUGIN, "--checks=-*,xfer-*",
                      "--quiet"] + files + ["--"] + flags
        if name.startswith("memcpy"):
            plugin_cmd = None  # clang-tidy needs hand-written CUDA flags
        plugin = (subprocess.run(
            [sys.executable, __file__, "--one", str(args.repeat)] + plugin_cmd,
            capture_output=True, text=True).stdout.split() if plugin_cmd
            else ["-", "-"])
        print("%-48s %12s %10s %14s" % (name, tool[0], tool[1], plugin[0]))
    print("(best of %d runs; one process per input; %d cores)"
          % (args.repeat, os.cpu_count()))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        wall, peak, _ = best(sys.argv[3:], int(sys.argv[2]))
        print("%.2f %.0f" % (wall, peak))
    else:
        main()
