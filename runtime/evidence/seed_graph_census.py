"""What one step of the seed graph example runs, by LibTorch operator and by
kernel, read with torch.profiler: the cross-check of the CUPTI census in
seed_graph_measure at the operator level.

The step is SeedGraphExample.cpp's, in Python: Linear(1024, 1024) on a batch
of 64, (prediction - y).pow(2).sum(), backward(), and SGD with one update
per parameter (foreach=False: what LibTorch's C++ SGD does, an add_ per
parameter).

    python3 runtime/evidence/seed_graph_census.py
"""
import collections

import torch
from torch.profiler import ProfilerActivity, profile

STEPS = 10


def main():
    torch.manual_seed(0)
    x = torch.randn(64, 1024, device="cuda")
    y = torch.randn(64, 1024, device="cuda")
    model = torch.nn.Linear(1024, 1024).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, foreach=False)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = (model(x) - y).pow(2).sum()
        loss.backward()
        opt.step()

    for _ in range(20):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(STEPS):
            step()
        torch.cuda.synchronize()

    kernels = collections.Counter()
    runtime = collections.Counter()
    ops = collections.Counter()
    for e in prof.events():
        if str(e.device_type).endswith("CUDA"):
            # The optimizer's range annotation shows on the device too.
            if not e.name.startswith("Optimizer."):
                kernels[e.name[:150]] += 1
        elif e.name.startswith("cuda") or e.name.startswith("cu"):
            runtime[e.name] += 1
        else:
            ops[e.name] += 1
    print("torch", torch.__version__, "device", torch.cuda.get_device_name())
    print("per step, over %d profiled steps:" % STEPS)
    print("device activities: %.2f per step" % (sum(kernels.values()) / STEPS))
    for name, n in sorted(kernels.items(), key=lambda kv: -kv[1]):
        print("  device  %5.2f  %s" % (n / STEPS, name))
    for name, n in sorted(runtime.items(), key=lambda kv: -kv[1]):
        print("  api     %5.2f  %s" % (n / STEPS, name))
    for name, n in sorted(ops.items(), key=lambda kv: -kv[1]):
        print("  op      %5.2f  %s" % (n / STEPS, name))
    # Which operator launched what: each CPU event's own kernels (memsets
    # and memcpys too), under the chain of operators around it.
    by_op = collections.Counter()
    try:
        for e in prof.events():
            if str(e.device_type).endswith("CUDA"):
                continue
            for k in getattr(e, "kernels", []) or []:
                chain, p = [], e
                while p is not None:
                    chain.append(p.name)
                    p = p.cpu_parent
                by_op[(" > ".join(reversed(chain)), k.name[:70])] += 1
    except Exception as err:  # the attribution is a cross-check only
        print("no attribution by operator:", err)
    print("launched by (operator chain -> device activity), per step:")
    for (chain, name), n in sorted(by_op.items()):
        print("  %5.2f  %s  ->  %s" % (n / STEPS, chain, name))
    print("PYCENSUS device_activities_per_step=%.2f"
          % (sum(kernels.values()) / STEPS))


if __name__ == "__main__":
    main()
