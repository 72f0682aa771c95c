"""xfer-launch-bound-loop's predicted saving for the two evidence loops, from
a cost model (the one xfer-bench measured in the same run), against what was
measured in that run.

    python3 runtime/evidence/graph_prediction.py graph-costs.json \
        [--seed seed-graph.txt] [--launch-bound launch-bound.txt]

The prediction is the check's (checks/cost/CostCitation.cpp,
estimateLaunchSaving): for each pattern pair the eager median minus the
replay median (never below 0), times the iteration's launches:
  - the purpose-written loop: 16 kernels x cuda.graph per-kernel saving;
  - the seed graph example: 8 operations of autograd (4 forward, 4 backward)
    x torch.graph.autograd per-op saving + 2 optimizer updates x torch.graph
    per-op saving + 1 backward() call x torch.graph.autograd backward saving.
seed_graph_measure also measures the patterns in the same rounds as the
saving (RESULT's inround_predicted); those lines are printed as INROUND.
Check the seed figure against xfer-tidy itself with
  xfer-tidy --cost-model=graph-costs.json \
    --checks='-*,xfer-launch-bound-loop' \
    testdata/checks/launch-bound-loop-seed-graph.cpp -- -isystem testdata/include
"""
import argparse
import json
import re
import statistics


def median(model, pattern):
    return model["patterns"][pattern]["points"][0]["median_us"]


def saving(model, eager, replay):
    return max(0.0, median(model, eager) - median(model, replay))


def results(path, tag):
    """key=value lines that start with tag (RESULT or the launch figures)."""
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith(tag):
                rows.append(dict(re.findall(r"(\w+)=([^\s]+)", line)))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--seed")
    ap.add_argument("--launch-bound")
    args = ap.parse_args()
    model = json.load(open(args.model))
    prov = model["provenance"]
    per_kernel = saving(model, "cuda.graph.eager_per_kernel",
                        "cuda.graph.replay_per_kernel")
    per_op = saving(model, "torch.graph.eager_per_op",
                    "torch.graph.replay_per_op")
    per_autograd = saving(model, "torch.graph.autograd.eager_per_op",
                          "torch.graph.autograd.replay_per_op")
    per_backward = saving(model, "torch.graph.autograd.eager_backward",
                          "torch.graph.autograd.replay_backward")
    bw = model["patterns"]["torch.graph.autograd.eager_backward"]["points"][0]
    print("cost model %s: %s, driver %s, CUDA %s, LibTorch %s" % (
        args.model, prov.get("device"), prov.get("driver"),
        prov.get("cuda_runtime"), prov.get("libtorch")))
    print("  saving per kernel %.2f us, per LibTorch op %.2f, per autograd op "
          "%.2f, per backward() %.2f (eager backward() p10-p90 %.1f-%.1f)" % (
              per_kernel, per_op, per_autograd, per_backward,
              bw["p10_us"], bw["p90_us"]))
    seed_pred = 8 * per_autograd + 2 * per_op + 1 * per_backward
    loop_pred = 16 * per_kernel
    print("PREDICTED seed_graph_example_us=%.2f launch_bound_loop_us=%.2f"
          % (seed_pred, loop_pred))

    if args.launch_bound:
        for row in results(args.launch_bound, "eager_us_per_iter"):
            s = float(row["saving_us_per_iter"])
            print("  launch_bound_loop measured %.2f us: prediction %+.0f%%"
                  % (s, 100 * (loop_pred - s) / s))
    if args.seed:
        for row in results(args.seed, "RESULT"):
            s = float(row["saving_median"])
            lo, hi = float(row["saving_p10"]), float(row["saving_p90"])
            pct = 100 * (seed_pred - s) / s
            print("COMPARE label=%s predicted=%.1f measured_saving=%.1f "
                  "[p10 %.1f, p90 %.1f] eager=%s replay=%s error=%+.0f%% "
                  "within_25=%s" % (row["label"], seed_pred, s, lo, hi,
                                    row["eager_median"], row["replay_median"],
                                    pct, "yes" if abs(pct) <= 25 else "no"))
            if "inround_predicted" in row:
                # The same formula from the patterns measured in the same
                # rounds as the saving (seed_graph_measure).
                p = float(row["inround_predicted"])
                pct = 100 * (p - s) / s
                print("INROUND label=%s predicted=%.1f measured_saving=%.1f "
                      "error=%+.0f%% within_25=%s measured/predicted per round "
                      "%s [p10 %s, p90 %s]" % (
                          row["label"], p, s, pct,
                          "yes" if abs(pct) <= 25 else "no",
                          row["ratio_median"], row["ratio_p10"],
                          row["ratio_p90"]))


if __name__ == "__main__":
    main()
