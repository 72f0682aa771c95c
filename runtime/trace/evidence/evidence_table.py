#!/usr/bin/env python3
"""Prints the evidence table of run-trace-evidence.sh.

Per hazard site (a line marked "// site: <name>" in the evidence sources):
the trace's estimated saving per call (own host time + min(the rest of
the host time blocked, GPU idle charged after the calls returned + device
time of copies outside them), divided by its calls) against the
saving measured by fixing that site alone (median per-iteration time of
the hazard variant minus that of the fixed one, interleaved rounds). A
saving is above the jitter when it exceeds half the p10-p90 spread of both
variants. The same for the traces of the comparison runs (compare-*.json,
XFER_TRACE_COMPARE), if any. Then the traced-vs-untraced loop time per
program, and the collector's cost by part (breakdown.jsonl), if measured.

usage: evidence_table.py <results dir> <evidence source dir>
"""
import json
import os
import re
import sys


def site_lines(source):
    lines = {}
    with open(source) as f:
        for number, text in enumerate(f, 1):
            m = re.search(r"// site: ([\w-]+)", text)
            if m:
                lines.setdefault(m.group(1), []).append(number)
    return lines


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def accuracy(out, src, prefix):
    sources = {"cuda": "CudaHazards.cu", "torch": "TorchHazards.cpp"}
    rows = []
    for name in sorted(os.listdir(out)):
        if not name.endswith(".measure.jsonl"):
            continue
        program = name[: -len(".measure.jsonl")]
        kind = program.split("-")[0]
        variants = {}
        with open(os.path.join(out, name)) as f:
            for line in f:
                if line.startswith("{"):
                    v = json.loads(line)
                    variants[v["variant"]] = v
        trace_path = os.path.join(out, prefix + program + ".trace.json")
        trace = json.load(open(trace_path)) if os.path.exists(trace_path) else {"sites": []}
        lines = site_lines(os.path.join(src, sources[kind]))
        hazard = variants.get("hazard")
        for variant, v in variants.items():
            if not variant.startswith("fix:") or not hazard:
                continue
            site = variant[4:]
            wanted = set(lines.get(site, []))
            traced = [s for s in trace["sites"]
                      if s["file"] and os.path.basename(s["file"]) == sources[kind]
                      and s["line"] in wanted]
            calls = max([s["calls"] for s in traced] or [0])
            sampled = max([s.get("sampledCalls", s["calls"]) for s in traced] or [0])
            cost = sum(s["estimatedSavingMicroseconds"] for s in traced)
            blocked = sum(s["blockedMicroseconds"] for s in traced)
            own = sum(s.get("ownMicroseconds", 0) for s in traced)
            per_call = cost / calls if calls else None
            saving = hazard["medianUs"] - v["medianUs"]
            # A fix that keeps 1 call in 100 saves 99% of the calls.
            jitter = max(hazard["p90Us"] - hazard["p10Us"], v["p90Us"] - v["p10Us"]) / 2
            rows.append((program, site, sampled, blocked / calls if calls else None,
                         own / calls if calls else None, per_call, saving, jitter,
                         ";".join(p["path"] for s in traced for p in s["apiPaths"])))
    print("%-16s %-9s %7s %11s %9s %12s %14s %8s %8s  %s" % (
        "program", "site", "sampled", "blocked/us", "own/us", "trace/us", "saving/us", "jitter",
        "error", "API path"))
    within = above = 0
    for program, site, calls, blocked, own, per_call, saving, jitter, paths in rows:
        if per_call is None:
            error = "no site"
        elif saving > jitter:
            above += 1
            e = (per_call - saving) / saving * 100
            within += abs(e) <= 15
            error = "%+.0f%%" % e
        else:
            error = "jitter"
        print("%-16s %-9s %7d %11s %9s %12s %14.1f %8.1f %8s  %s" % (
            program, site, calls, "%.1f" % blocked if blocked is not None else "-",
            "%.1f" % own if own is not None else "-",
            "%.1f" % per_call if per_call is not None else "-", saving, jitter, error, paths))
    print("\nsites above jitter: %d, within +-15%%: %d" % (above, within))


def main():
    out, src = sys.argv[1], sys.argv[2]
    print("traces of the traced runs (sampled: the calls recorded; trace/us: per estimated call)")
    accuracy(out, src, "")
    if any(n.startswith("compare-") and n.endswith(".trace.json") for n in os.listdir(out)):
        print("\ntraces of the comparison runs")
        accuracy(out, src, "compare-")

    print("\n%-16s %-8s %14s %14s %9s %17s %5s" % (
        "program", "runs", "untraced us/it", "traced us/it", "overhead", "pairs min..max", "pairs"))
    print("(untraced and traced runs alternate; overhead: median of the pairs' ratios;"
          " loop times: medians; compare: the XFER_TRACE_COMPARE runs)")
    runs = {}
    with open(os.path.join(out, "overhead.jsonl")) as f:
        for line in f:
            if line.startswith("{"):
                r = json.loads(line)
                runs.setdefault(r["program"], {}).setdefault(r["traced"], []).append(r)
    for program, r in runs.items():
        for key, label in ((True, "traced"), ("compare", "compare")):
            if False in r and key in r:
                u = [x["perIterationUs"] for x in r[False]]
                t = [x["perIterationUs"] for x in r[key]]
                ratios = [(b / a - 1) * 100 for a, b in zip(u, t)]
                print("%-16s %-8s %14.2f %14.2f %8.1f%% %7.1f%%..%5.1f%% %5d" % (
                    program, label, median(u), median(t), median(ratios), min(ratios),
                    max(ratios), len(ratios)))

    breakdown = os.path.join(out, "breakdown.jsonl")
    if os.path.exists(breakdown):
        print("\nthe collector's cost by part (5 x 1000 iterations a run; overhead: median over"
              " rounds of the ratio to the same round's untraced run)")
        print("%-16s %-36s %12s %9s %17s" % ("program", "configuration", "us/it", "overhead", "min..max"))
        table = {}
        with open(breakdown) as f:
            for line in f:
                if line.startswith("{"):
                    r = json.loads(line)
                    table.setdefault(r["program"], {}).setdefault(r["config"], {})[r["round"]] = r["perIterationUs"]
        for program, configs in table.items():
            base = configs.get("untraced", {})
            for config, by_round in configs.items():
                ratios = [(by_round[k] / base[k] - 1) * 100 for k in by_round if k in base]
                print("%-16s %-36s %12.2f %8.1f%% %7.1f%%..%5.1f%%" % (
                    program, config, median(list(by_round.values())),
                    median(ratios) if ratios else float("nan"),
                    min(ratios) if ratios else float("nan"), max(ratios) if ratios else float("nan")))

    # How often the collector unwound: once per path to a site is the aim.
    print("\n%-44s %9s %9s %12s %11s %8s %8s  %s" % (
        "trace", "recorded", "unwound", "validations", "mismatches", "windows", "sampled",
        "switching us (mean/max): activity on, off, callbacks on, off"))
    for name in sorted(os.listdir(out)):
        if name.endswith(".trace.json") and name != "none.json":
            t = json.load(open(os.path.join(out, name)))
            sampling = t.get("sampling")
            fraction = (t["sampledMicroseconds"] / t["tracedMicroseconds"]
                        if sampling and t.get("tracedMicroseconds") else 1.0)
            switching = (sampling or {}).get("switchMicroseconds", {})
            print("%-44s %9d %9d %12s %11s %8s %7.1f%%  %s" % (
                name[: -len(".trace.json")], t["recordedCalls"], t["unwoundCalls"],
                t.get("stackValidations", "-"), t.get("stackMismatches", "-"),
                sampling["windows"] if sampling else "-", fraction * 100,
                " ".join("%.0f/%.0f" % tuple(switching[k]) if k in switching else "-"
                         for k in ("activityOn", "activityOff", "callbacksOn", "callbacksOff"))))


if __name__ == "__main__":
    main()
