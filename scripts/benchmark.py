#!/usr/bin/env python3
"""Speed and memory of xfer-tidy on the bundled examples and testdata.

Prints, for each input, the wall time and the peak resident memory of one
xfer-tidy process (best of --repeat runs, without the result cache), next
to clang-tidy-19 with the plugin on the same input; then the second run
over unchanged inputs: on the LibTorch example, the medians of --runs
rounds of clang++-19 -fsyntax-only, xfer-tidy without the cache, xfer-tidy
with an empty cache (the first run) and with the cache it filled (the
second run), and the second run's time as a fraction of the first's.

  python3 scripts/benchmark.py [--repeat 3] [--runs 5] [--second-run]
                               [--against-parse] [--parallel] [--plugin]
                               [--changed-file]

--second-run prints only the second-run figures, --against-parse only the
paired ratios of xfer-tidy to clang++-19 -fsyntax-only (time and peak
memory, medians of --runs pairs), --parallel only the speed-up of -j 2
over -j 1 on a compilation database of 8 translation units (copies of the
LibTorch example) with the peak memory of each run against one unit's,
--plugin only the paired ratios of clang-tidy-19 with the plugin's checks
to clang-tidy-19 running one trivial built-in check on the same file,
--changed-file only the pre-commit case (a file edited below its includes,
analysed again with its preamble stored in the cache, against the parse).
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
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


def seconds(command):
    start = time.monotonic()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - start


def wall_and_peak(command):
    """Wall seconds and peak RSS (MiB) of one child, read with wait4 so that
    each process's memory is its own."""
    start = time.monotonic()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    return time.monotonic() - start, usage.ru_maxrss / 1024.0


def paired(title, baseline, candidate, runs, time_target, memory_target):
    """Alternating runs of two (label, command) pairs; prints the medians of
    each and of the per-pair ratios candidate / baseline."""
    pairs = [(wall_and_peak(baseline[1]), wall_and_peak(candidate[1]))
             for _ in range(runs)]
    print("%s (medians of %d paired runs, %d cores)"
          % (title, runs, os.cpu_count()))
    for side, (label, _) in enumerate((baseline, candidate)):
        print("  %-40s %8.2f s %8.0f MiB" % (
            label, statistics.median(p[side][0] for p in pairs),
            statistics.median(p[side][1] for p in pairs)))
    print("  %-40s %8.2f   (target <= %s)" % (
        "time ratio", statistics.median(c[0] / b[0] for b, c in pairs),
        time_target))
    print("  %-40s %8.2f   (target <= %s)" % (
        "peak memory ratio", statistics.median(c[1] / b[1] for b, c in pairs),
        memory_target))


def against_parse(runs):
    """Paired runs on the LibTorch example: clang++-19 -fsyntax-only, then
    xfer-tidy without the cache."""
    source = os.path.join(ROOT, "testdata/examples/seed_training_loop.cpp")
    flags = ["-std=c++17", "-isystem", TORCH]
    paired("Against the parse: seed_training_loop.cpp, real LibTorch headers",
           ("clang++-19 -fsyntax-only",
            ["clang++-19", "-fsyntax-only", source] + flags),
           ("xfer-tidy --no-cache",
            [TOOL, "--quiet", "--no-cache", source, "--"] + flags),
           runs, "0.5", "1.0")


def print_medians(title, runs, times, rows, width):
    """Prints the median of each (key, label) row of `times` on the
    LibTorch example and returns the medians by key."""
    median = {name: statistics.median(values) for name, values in times.items()}
    print("%s: seed_training_loop.cpp, real LibTorch headers (medians of %d "
          "rounds, %d cores)" % (title, runs, os.cpu_count()))
    for name, label in rows:
        print("  %-*s %8.3f s" % (width, label, median[name]))
    return median


def second_run(runs):
    """Medians of `runs` rounds on the LibTorch example: the parse, xfer-tidy
    without the cache, the first run into an empty cache and the second."""
    source = os.path.join(ROOT, "testdata/examples/seed_training_loop.cpp")
    flags = ["-std=c++17", "-isystem", TORCH]
    times = {"parse": [], "uncached": [], "first": [], "second": []}
    for _ in range(runs):
        cache = tempfile.mkdtemp(prefix="xfer-bench-cache")
        try:
            tool = [TOOL, "--quiet", "--cache-dir=" + cache, source, "--"] + flags
            times["parse"].append(seconds(["clang++-19", "-fsyntax-only", source] + flags))
            times["uncached"].append(seconds([TOOL, "--quiet", "--no-cache", source, "--"] + flags))
            times["first"].append(seconds(tool))
            times["second"].append(seconds(tool))
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    median = print_medians(
        "Second run over unchanged inputs", runs, times,
        [("parse", "clang++-19 -fsyntax-only"),
         ("uncached", "xfer-tidy --no-cache"),
         ("first", "xfer-tidy, first run (empty cache)"),
         ("second", "xfer-tidy, second run (cache hit)")], width=40)
    print("  %-40s %8.3f" % ("first run / parse", median["first"] / median["parse"]))
    print("  %-40s %8.3f   (target <= 0.05)" % ("second run / first run", median["second"] / median["first"]))


def changed_file(runs):
    """The pre-commit case on the LibTorch example: each round copies it into
    a new directory with an empty cache, analyses it (the first analysis),
    edits the code below its includes and analyses it again (the preamble is
    built and stored), then edits it once more and analyses it (the stored
    preamble is read). Medians against clang++-19 -fsyntax-only, and the
    findings of the last run against a run without the cache."""
    source = os.path.join(ROOT, "testdata/examples/seed_training_loop.cpp")
    with open(source, encoding="utf-8") as f:
        text = f.read()
    flags = ["-std=c++17", "-isystem", TORCH]
    times = {"parse": [], "uncached": [], "first": [], "built": [],
             "reused": []}
    peaks = {"parse": [], "reused": []}
    same = True
    for _ in range(runs):
        work = tempfile.mkdtemp(prefix="xfer-bench-edit")
        try:
            copy = os.path.join(work, "train.cpp")
            cache = os.path.join(work, "cache")
            tool = [TOOL, "--quiet", "--cache-dir=" + cache, copy, "--"] + flags

            def edit(note):
                with open(copy, "w", encoding="utf-8") as out:
                    out.write(text + "\n// " + note + "\n")

            edit("first")
            wall, peak = wall_and_peak(["clang++-19", "-fsyntax-only", copy] + flags)
            times["parse"].append(wall)
            peaks["parse"].append(peak)
            times["uncached"].append(seconds([TOOL, "--quiet", "--no-cache", copy, "--"] + flags))
            times["first"].append(seconds(tool))
            edit("second")
            times["built"].append(seconds(tool))
            edit("third")
            wall, peak = wall_and_peak(tool)
            times["reused"].append(wall)
            peaks["reused"].append(peak)
            edit("fourth")
            ours = subprocess.run(tool[:1] + ["--format=json"] + tool[1:],
                                  capture_output=True, text=True).stdout
            plain = subprocess.run([TOOL, "--format=json", "--no-cache", copy, "--"] + flags,
                                   capture_output=True, text=True).stdout
            same = same and json.loads(ours)["findings"] == json.loads(plain)["findings"]
        finally:
            shutil.rmtree(work, ignore_errors=True)
    median = print_medians(
        "A file edited below its includes", runs, times,
        [("parse", "clang++-19 -fsyntax-only"),
         ("uncached", "xfer-tidy --no-cache"),
         ("first", "xfer-tidy, first analysis"),
         ("built", "xfer-tidy, edited (preamble stored)"),
         ("reused", "xfer-tidy, edited again (preamble read)")], width=44)
    print("  %-44s %8.3f   (target <= 0.2)" % ("edited again / parse", median["reused"] / median["parse"]))
    print("  %-44s %8.3f" % ("preamble stored / parse", median["built"] / median["parse"]))
    print("  %-44s %8.0f MiB against %.0f MiB" % ("peak memory, edited again / parse",
                                                  statistics.median(peaks["reused"]),
                                                  statistics.median(peaks["parse"])))
    print("  %-44s %8s" % ("same findings as without the cache", "yes" if same else "NO"))


def parallel(runs):
    """-j 1 against -j 2 over 8 copies of the LibTorch example in one
    compilation database (no project index, no cache): medians of `runs`
    alternating pairs, and each run's peak memory against one unit's."""
    source = os.path.join(ROOT, "testdata/examples/seed_training_loop.cpp")
    project = tempfile.mkdtemp(prefix="xfer-bench-parallel")
    try:
        entries = []
        for i in range(8):
            unit = os.path.join(project, "unit%d.cpp" % i)
            shutil.copy(source, unit)
            entries.append({"directory": project, "file": unit,
                            "arguments": ["clang++", "-std=c++17", "-isystem",
                                          TORCH, "-c", unit]})
        with open(os.path.join(project, "compile_commands.json"), "w") as f:
            json.dump(entries, f)
        base = [TOOL, "--quiet", "--no-cache", "--no-index", "-p", project]
        one = [wall_and_peak(base + [os.path.join(project, "unit0.cpp")])
               for _ in range(runs)]
        serial, two = [], []
        for _ in range(runs):
            serial.append(wall_and_peak(base + ["-j", "1"]))
            two.append(wall_and_peak(base + ["-j", "2"]))
    finally:
        shutil.rmtree(project, ignore_errors=True)
    med = lambda xs, k: statistics.median(x[k] for x in xs)
    print("Parallel units: 8 copies of seed_training_loop.cpp, real LibTorch "
          "headers, --no-index --no-cache (medians of %d runs, %d cores)"
          % (runs, os.cpu_count()))
    print("  %-40s %8.2f s %8.0f MiB" % ("one unit", med(one, 0), med(one, 1)))
    print("  %-40s %8.2f s %8.0f MiB" % ("8 units, -j 1", med(serial, 0), med(serial, 1)))
    print("  %-40s %8.2f s %8.0f MiB" % ("8 units, -j 2", med(two, 0), med(two, 1)))
    print("  %-40s %8.2f   (target >= 1.8)" % (
        "speed-up of -j 2", med(serial, 0) / med(two, 0)))
    print("  %-40s %8.2f   (flat: about 1)" % (
        "peak memory, 8 units -j 1 / one unit", med(serial, 1) / med(one, 1)))


def plugin_overhead(runs):
    """Paired runs on the LibTorch example: clang-tidy-19 with one trivial
    built-in check, then with the plugin's checks."""
    source = os.path.join(ROOT, "testdata/examples/seed_training_loop.cpp")
    flags = ["--", "-std=c++17", "-isystem", TORCH]
    paired("Plugin: seed_training_loop.cpp, real LibTorch headers",
           ("clang-tidy-19, one trivial check",
            ["clang-tidy-19", "--quiet",
             "--checks=-*,misc-misleading-bidirectional", source] + flags),
           ("clang-tidy-19 --load plugin, xfer-*",
            ["clang-tidy-19", "--quiet", "--load=" + PLUGIN,
             "--checks=-*,xfer-*", source] + flags),
           runs, "1.10", "1.10")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--runs", type=int, default=5,
                        help="rounds of the second-run measurement (medians)")
    parser.add_argument("--second-run", action="store_true",
                        help="only the second-run (result cache) figures")
    parser.add_argument("--against-parse", action="store_true",
                        help="only the paired time and memory ratios to "
                             "clang++-19 -fsyntax-only")
    parser.add_argument("--parallel", action="store_true",
                        help="only the -j 2 speed-up over 8 units")
    parser.add_argument("--plugin", action="store_true",
                        help="only the plugin's overhead over clang-tidy-19")
    parser.add_argument("--changed-file", action="store_true",
                        help="only the pre-commit case: a file edited below "
                             "its includes, parsed with its stored preamble")
    args = parser.parse_args()
    for only, measurement in ((args.changed_file, changed_file),
                              (args.parallel, parallel),
                              (args.plugin, plugin_overhead),
                              (args.second_run, second_run),
                              (args.against_parse, against_parse)):
        if only:
            measurement(args.runs)
            return
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
            [sys.executable, __file__, "--one", str(args.repeat), TOOL, "--quiet",
             "--no-cache"]
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
    print()
    against_parse(args.runs)
    print()
    second_run(args.runs)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        wall, peak, _ = best(sys.argv[3:], int(sys.argv[2]))
        print("%.2f %.0f" % (wall, peak))
    else:
        main()
