#!/usr/bin/env python3
"""Compares the cost xfer-tidy cites with the saving xfer-bench measured.

For each reference loop in the cost model's "fidelity" section, runs
xfer-tidy over the loop's source, adds up the per-iteration cost of the
warnings inside the hazard function (latency + lost overlap), and prints it
next to the measured saving of the fix.

  python3 scripts/fidelity.py [--tool build/tool/xfer-tidy]
                              [--cost-model testdata/cost-models/default.json]
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# Which check's warnings each measured fix addresses.
FIX_CHECKS = [
    ("resident_data", {"xfer-create-on-device"}),
    ("cuda_graph", set()),  # no check proposes CUDA graphs yet
    ("", {"xfer-sync-in-loop", "xfer-copy-in-loop"}),
]


def checks_for(key):
    for fragment, checks in FIX_CHECKS:
        if fragment in key:
            return checks
    return set()


def function_lines(path, name):
    """The 1-based line range of the definition of function `name`."""
    with open(path) as f:
        lines = f.read().split("\n")
    start = None
    for i, line in enumerate(lines):
        if start is None and re.search(r"\b%s\(" % re.escape(name), line) \
                and not line.startswith(" ") and not line.rstrip().endswith(";"):
            start = i + 1
        elif start is not None and line.startswith("}"):
            return start, i + 1
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", default=os.path.join(ROOT, "build/tool/xfer-tidy"))
    parser.add_argument("--cost-model",
                        default=os.path.join(ROOT, "testdata/cost-models/default.json"))
    parser.add_argument("--torch-include", default="/usr/include/torch/csrc/api/include")
    args = parser.parse_args()

    with open(args.cost_model) as f:
        model = json.load(f)
    fidelity = model.get("fidelity", {})
    sources = sorted({entry["source"] for entry in fidelity.values()})
    command = [args.tool, "--format=json", "--quiet",
               "--cost-model=" + args.cost_model,
               # The reference loops take their device as a parameter.
               "--config={CheckOptions: {RequireCudaEvidence: false}}"]
    command += [os.path.join(ROOT, s) for s in sources]
    command += ["--", "-std=c++17", "-I", os.path.join(ROOT, "runtime"),
                "-isystem", args.torch_include]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode not in (0, 1, 2):
        sys.exit("xfer-tidy failed: " + result.stderr)
    findings = json.loads(result.stdout)["findings"]

    device = model["provenance"]["device"]
    print("Predicted (xfer-tidy's cost notes) vs measured saving (xfer-bench), "
          "per iteration, on %s" % device)
    print("%-42s %10s %10s %22s %8s" % ("reference loop (hazard -> fix)", "predicted",
                                      "measured", "measured p10..p90", "error"))
    for key in sorted(fidelity):
        entry = fidelity[key]
        if entry.get("device") != "cuda":
            continue
        path = os.path.join(ROOT, entry["source"])
        span = function_lines(path, entry["hazard_function"])
        predicted = 0.0
        count = 0
        for finding in findings:
            props = finding.get("properties", {})
            if finding["file"] != path or not props or not span or \
                    finding["check"] not in checks_for(key):
                continue
            if span[0] <= finding["line"] <= span[1]:
                predicted += props.get("latencyMicroseconds", 0) + \
                    props.get("overlapLossMicrosecondsPerIteration", 0)
                count += 1
        measured = entry["saving_per_iteration_us"]
        if not checks_for(key):
            print("%-42s %10s %8.1f µs   (no check reports this pattern)" % (
                key, "-", measured))
            continue
        error = (predicted - measured) / measured * 100 if measured else float("nan")
        print("%-42s %8.1f µs %8.1f µs %10.1f..%-9.1f µs %+7.0f%%  (%d warning%s)" % (
            key, predicted, measured, entry["saving_p10_us"], entry["saving_p90_us"],
            error, count, "" if count == 1 else "s"))


if __name__ == "__main__":
    main()
