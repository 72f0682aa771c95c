#!/usr/bin/env python3
"""Scores xfer-tidy against the blind labels of the corpus.

    python3 testdata/corpus/score.py --src <checkouts> --half tuning|heldout|tuned-v1|all
        [--project <name part>] [--xfer-tidy build/tool/xfer-tidy]
        [--out results.json] [-j 2]

<checkouts> holds one directory per project, named `<owner>__<name>`, at the
commit of its manifest (`manifests/<owner>__<name>.tsv`). Each project's
translation units are analysed in one xfer-tidy run at default settings;
findings in the project's files are matched to `labels/<owner>__<name>.tsv`
(see LABELLING.md):

- a finding matches a label of the same file whose line or `also` places
  hold the finding's line (or, for a hazard reached through a call and
  reported at the call, the place of the operation its notes end at:
  "'cudaFree' synchronizes with the GPU here"), and whose category fits
  the check
  (xfer-sync-in-loop and xfer-copy-in-loop both fit `sync-in-loop` and
  `copy-in-loop`: the labels say "blocks on each iteration", the checks split
  it by whether data moves);
- TP: a finding matching a `hazard` label (each label counts once; further
  findings on it are duplicates, reported but not scored);
- values read back one after another in an iteration are one finding with a
  note "the same iteration reads back here too" at each later read, and a
  call whose function blocks several times has a note "'cudaFree'
  synchronizes with the GPU here too" at each further operation; a `hazard`
  label at such a note's place is found by that finding (it counts for
  recall, not as another finding);
- FP: a finding matching an `acceptable` label, or no label at all;
- miss: a `hazard` label no finding matches.

precision = TP / (TP + FP), recall = TP / (TP + misses).
"""

import argparse
import collections
import csv
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LOOP_CATEGORIES = {"sync-in-loop", "copy-in-loop"}
CHECK_CATEGORIES = {
    "xfer-sync-in-loop": LOOP_CATEGORIES,
    "xfer-copy-in-loop": LOOP_CATEGORIES,
    "xfer-create-on-device": {"create-on-device"},
    "xfer-pageable-async-copy": {"pageable-async-copy"},
    "xfer-device-mismatch": {"device-mismatch"},
    "xfer-launch-bound-loop": {"launch-bound-loop"},
}


def read_tsv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def read_manifest(path):
    return {row["key"]: row["value"] for row in read_tsv(path)}


def projects(half):
    rows = read_tsv(os.path.join(HERE, "projects.tsv"))
    return [r for r in rows if half == "all" or r["half"] == half]


def compiler_flags(root, manifest):
    flags = ["-std=" + manifest.get("std", "c++17"), "-Wno-everything"]
    for inc in manifest.get("includes", "-").split():
        if inc != "-":
            flags.append("-I" + os.path.join(root, inc))
    for define in manifest.get("defines", "-").split():
        if define != "-":
            # Manifests write a macro as `-DNAME` or as `NAME[=value]`.
            flags.append(define if define.startswith("-") else "-D" + define)
    # Third-party headers the projects need, from Debian's packages.
    for system in ("/usr/include/torch/csrc/api/include", "/usr/include/opencv4",
                   "/usr/include/python3.11",
                   "/usr/lib/x86_64-linux-gnu/openmpi/include"):
        if os.path.isdir(system):
            flags += ["-isystem", system]
    cuda = os.environ.get("CUDA_PATH", "/usr/local/cuda")
    if os.path.isdir(os.path.join(cuda, "include")):
        # Host .cpp files that call the CUDA runtime; .cu files get the
        # toolkit through xfer-tidy's CUDA handling.
        flags += ["-idirafter", os.path.join(cuda, "include")]
    return flags


def run_project(tool, root, manifest, jobs, timeout):
    files = [os.path.join(root, f) for f in manifest["files"].split()]
    missing = [f for f in files if not os.path.exists(f)]
    files = [f for f in files if os.path.exists(f)]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "findings.json")
        cmd = [tool, "--format=json", "--output=" + out, "--quiet", "-j",
               str(jobs)] + files + ["--"] + compiler_flags(root, manifest)
        start = time.monotonic()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True,
                                  timeout=timeout)
            status = proc.returncode
        except subprocess.TimeoutExpired:
            return {"status": "timeout", "findings": [], "seconds": timeout,
                    "missing": missing}
        seconds = time.monotonic() - start
        if not os.path.exists(out):
            return {"status": "crash" if status not in (0, 1, 2) else
                    "no-output", "findings": [], "seconds": seconds,
                    "missing": missing, "stderr": proc.stderr[-4000:],
                    "exitStatus": status}
        with open(out, encoding="utf-8") as f:
            report = json.load(f)
    return {"status": status, "findings": report["findings"],
            "seconds": seconds, "missing": missing}


def score_project(root, labels, findings):
    by_place = collections.defaultdict(list)
    for index, label in enumerate(labels):
        places = [(label["file"], int(label["line"]))]
        also = label.get("also", "-") or "-"
        if also.strip() != "-":
            for place in also.split(","):
                place = place.strip()
                if ":" in place:
                    file, line = place.rsplit(":", 1)
                    if line.strip().isdigit():
                        places.append((file.strip(), int(line)))
        for place in places:
            by_place[place].append(index)

    matched = set()
    rows = []
    errors = collections.Counter()
    error_messages = []
    for finding in findings:
        check = finding["check"]
        path = os.path.relpath(os.path.realpath(finding["file"]),
                               os.path.realpath(root))
        if check.startswith("clang-diagnostic"):
            if finding["severity"] == "error":
                errors[path] += 1
                error_messages.append(
                    f"{path}:{finding['line']}: {finding['message']}")
            continue
        if path.startswith(".."):
            continue  # outside the project (system or third-party headers)
        fits = CHECK_CATEGORIES.get(check, set())
        # The finding's place, then the operation its note chain ends at
        # ("'cudaFree' synchronizes with the GPU here"): a hazard reached
        # through a call is reported at the call in the loop.
        places = [(path, finding["line"])]
        for note in finding.get("notes", []):
            if (note["message"].endswith(" here")
                    and note["message"] != "loop starts here"):
                places.append((os.path.relpath(os.path.realpath(note["file"]),
                                               os.path.realpath(root)),
                               note["line"]))
        candidates = []
        for place in places:
            candidates = [i for i in by_place.get(place, [])
                          if labels[i]["category"] in fits]
            if candidates:
                break
        hazards = [i for i in candidates if labels[i]["verdict"] == "hazard"]
        if hazards:
            fresh = [i for i in hazards if i not in matched]
            verdict = "TP" if fresh else "duplicate"
            if fresh:
                matched.add(fresh[0])
            for note in finding.get("notes", []):
                if not (note["message"].startswith(
                        "the same iteration reads back here too")
                        or note["message"].endswith(" here too")):
                    continue
                place = (os.path.relpath(os.path.realpath(note["file"]),
                                         os.path.realpath(root)), note["line"])
                for i in by_place.get(place, []):
                    if (labels[i]["category"] in fits and i not in matched
                            and labels[i]["verdict"] == "hazard"):
                        matched.add(i)
                        break
        else:
            verdict = "FP"
        rows.append({"file": path, "line": finding["line"], "check": check,
                     "verdict": verdict,
                     "label": labels[candidates[0]]["verdict"] if candidates
                     else "unlabelled",
                     "message": finding["message"]})
    misses = [dict(file=l["file"], line=int(l["line"]), category=l["category"],
                   reason=l.get("reason", ""))
              for i, l in enumerate(labels)
              if l["verdict"] == "hazard" and i not in matched]
    return rows, misses, errors, error_messages


def ratio(a, b):
    return a / b if b else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--src", required=True,
                        help="directory of <owner>__<name> checkouts")
    parser.add_argument("--half", default="heldout")
    parser.add_argument("--xfer-tidy", default=os.path.join(
        HERE, "..", "..", "build", "tool", "xfer-tidy"))
    parser.add_argument("--out", help="write every finding and miss as JSON")
    parser.add_argument("--project", default="",
                        help="only projects whose name contains this")
    parser.add_argument("-j", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=1800,
                        help="seconds per project")
    args = parser.parse_args()

    totals = collections.Counter()
    results = {}
    print("| project | half | TUs | files with compiler errors | findings | TP | FP | "
          "misses | precision | recall | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for project in projects(args.half):
        if args.project not in project["project"]:
            continue
        name = project["project"].replace("/", "__")
        manifest_path = os.path.join(HERE, "manifests", name + ".tsv")
        labels_path = os.path.join(HERE, "labels", name + ".tsv")
        root = os.path.join(args.src, name)
        if not (os.path.exists(manifest_path) and os.path.exists(labels_path)
                and os.path.isdir(root)):
            print(f"| {project['project']} | {project['half']} | not "
                  "available | | | | | | | | |")
            continue
        manifest = read_manifest(manifest_path)
        labels = read_tsv(labels_path)
        run = run_project(args.xfer_tidy, root, manifest, args.j, args.timeout)
        rows, misses, errors, error_messages = score_project(
            root, labels, run["findings"])
        c = collections.Counter(r["verdict"] for r in rows)
        tp, fp, miss = c["TP"], c["FP"], len(misses)
        totals.update(TP=tp, FP=fp, misses=miss, duplicates=c["duplicate"],
                      TUs=len(manifest["files"].split()),
                      errorTUs=len(errors))
        if run["status"] in ("timeout", "crash", "no-output"):
            totals[run["status"]] += 1
        results[project["project"]] = dict(
            status=run["status"], seconds=round(run["seconds"], 1),
            findings=rows, misses=misses, errors=dict(errors),
            errorMessages=error_messages,
            missingFiles=run["missing"], stderr=run.get("stderr", ""))
        print(f"| {project['project']} | {project['half']} | "
              f"{len(manifest['files'].split())} | {len(errors)} | "
              f"{tp + fp + c['duplicate']} | {tp} | {fp} | {miss} | "
              f"{ratio(tp, tp + fp):.2f} | {ratio(tp, tp + miss):.2f} | "
              f"{run['seconds']:.0f} |")
    tp, fp, miss = totals["TP"], totals["FP"], totals["misses"]
    print(f"| **total** | {args.half} | {totals['TUs']} | {totals['errorTUs']} "
          f"| {tp + fp + totals['duplicates']} | {tp} | {fp} | {miss} | "
          f"**{ratio(tp, tp + fp):.3f}** | **{ratio(tp, tp + miss):.3f}** | |")
    print(f"\ncrashes: {totals['crash']}, timeouts: {totals['timeout']}, "
          f"runs without output: {totals['no-output']}, duplicate findings: "
          f"{totals['duplicates']}")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
