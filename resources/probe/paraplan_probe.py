#!/usr/bin/env python3
"""Paraplan probe job: checks that a planned parallel layout works on the real cluster.

Usage (one process per rank, torchrun or Paraplan's direct mode set the environment):
    RANK=.. WORLD_SIZE=.. MASTER_ADDR=.. MASTER_PORT=.. python3 paraplan_probe.py LAYOUT.json
        [--out RESULT.json] [--sizes 4096,262144,4194304] [--iters 3] [--backend gloo|nccl]

LAYOUT.json is the `paraplan-cli groups --json` document:
    {"framework", "world_size", "axes", "ranks": [{"rank","coords","node","local_rank"}],
     "groups": {"tp": [[0,1],[2,3]], "dp": [[0,2],[1,3]], "pp": [...], ...}}

Every rank creates every planned group with torch.distributed.new_group, for every kind
in file order (new_group must be called by all ranks in the same order), checks each
group's membership with an all-reduce of the rank ids, measures all-reduce and
all-gather bus bandwidth in its tp/sp/cp/ep/dp/... groups and p2p bandwidth between
neighbouring pipeline stages. Rank 0 prints one line "__PARAPLAN_PROBE_RESULT__ {json}"
and writes the same JSON to --out when given. Needs PyTorch only.

Bus bandwidth follows nccl-tests doc/PERFORMANCE.md: algbw = bytes / time;
all-reduce busbw = algbw * 2(n-1)/n; all-gather busbw = algbw * (n-1)/n with bytes the
gathered (output) size.
"""
import argparse
import datetime
import json
import os
import sys
import time

MARKER = "__PARAPLAN_PROBE_RESULT__ "
P2P_KINDS = ("pp",)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("layout")
    p.add_argument("--out", default="")
    p.add_argument("--sizes", default="4096,262144,4194304", help="message sizes in bytes")
    p.add_argument("--iters", type=int, default=3)
    p.add_argument("--backend", default="", help="gloo or nccl (default: nccl with GPUs, else gloo)")
    p.add_argument("--timeout-s", type=int, default=120)
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    import torch
    import torch.distributed as dist

    t0 = time.time()
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    with open(args.layout, encoding="utf-8") as f:
        layout = json.load(f)
    if int(layout.get("world_size", world)) != world:
        raise SystemExit("layout world_size %s != WORLD_SIZE %d" % (layout.get("world_size"), world))

    use_cuda = torch.cuda.is_available() and args.backend != "gloo"
    backend = args.backend or ("nccl" if use_cuda else "gloo")
    if use_cuda:
        local = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(0 if torch.cuda.device_count() == 1 else local)
        device = torch.device("cuda", torch.cuda.current_device())
    else:
        device = torch.device("cpu")
    dist.init_process_group(backend=backend, rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=args.timeout_s))

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize()

    errors = []
    groups = layout.get("groups", {})
    # Create every group of every kind, in the same order on every rank.
    created = []   # (kind, index, ranks, handle)
    for kind, lists in groups.items():
        for index, ranks in enumerate(lists):
            ranks = [int(r) for r in ranks]
            handle = dist.new_group(ranks=ranks)
            created.append((kind, index, ranks, handle))

    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    mine = []   # reports for the groups this rank belongs to
    for kind, index, ranks, handle in created:
        if rank not in ranks:
            continue
        t = torch.tensor([float(rank)], dtype=torch.float64, device=device)
        dist.all_reduce(t, group=handle)
        got = float(t.item())
        expected = float(sum(ranks))
        report = {"kind": kind, "index": index, "ranks": ranks, "membership_ok": got == expected,
                  "allreduce_sum": got, "expected_sum": expected, "bandwidth": []}
        if got != expected:
            errors.append("rank %d: %s group %d all-reduce of rank ids gave %g, expected %g"
                          % (rank, kind, index, got, expected))
        mine.append(report)

    # Bandwidth: groups of one kind are disjoint, so each kind runs in all its groups at once.
    for kind, index, ranks, handle in created:
        n = len(ranks)
        if rank not in ranks or n < 2 or kind in P2P_KINDS:
            continue
        report = next(r for r in mine if r["kind"] == kind and r["index"] == index)
        for size in sizes:
            elems = max(1, size // 4)
            x = torch.ones(elems, dtype=torch.float32, device=device)
            outs = [torch.empty_like(x) for _ in range(n)]
            for op in ("all_reduce", "all_gather"):
                def run():
                    if op == "all_reduce":
                        dist.all_reduce(x, group=handle)
                    else:
                        dist.all_gather(outs, x, group=handle)
                run()   # warm-up
                sync()
                dist.barrier(group=handle)
                start = time.perf_counter()
                for _ in range(args.iters):
                    run()
                sync()
                dt = (time.perf_counter() - start) / args.iters
                nbytes = elems * 4 * (n if op == "all_gather" else 1)
                algbw = nbytes / dt / 1e9
                factor = 2.0 * (n - 1) / n if op == "all_reduce" else (n - 1) / n
                report["bandwidth"].append({"op": op, "bytes": nbytes, "time_ms": dt * 1e3,
                                            "algbw_gbps": algbw, "busbw_gbps": algbw * factor})

    # P2P between neighbouring pipeline stages: ping-pong, one pair at a time.
    p2p = []
    size = sizes[-1] if sizes else 4096
    for kind, index, ranks, handle in created:
        if kind not in P2P_KINDS:
            continue
        for s in range(len(ranks) - 1):
            a, b = ranks[s], ranks[s + 1]
            buf = torch.ones(max(1, size // 4), dtype=torch.float32, device=device)
            if rank == a:
                dist.send(buf, b)
                dist.recv(buf, b)
                sync()
                start = time.perf_counter()
                for _ in range(args.iters):
                    dist.send(buf, b)
                    dist.recv(buf, b)
                sync()
                dt = (time.perf_counter() - start) / args.iters / 2
                p2p.append({"group": index, "src": a, "dst": b, "src_stage": s, "dst_stage": s + 1,
                            "bytes": buf.numel() * 4, "time_ms": dt * 1e3, "gbps": buf.numel() * 4 / dt / 1e9})
            elif rank == b:
                for _ in range(args.iters + 1):
                    dist.recv(buf, a)
                    dist.send(buf, a)
            dist.barrier()

    gathered = [None] * world if rank == 0 else None
    dist.gather_object({"groups": mine, "p2p": p2p, "errors": errors}, gathered, dst=0)
    if rank == 0:
        merged, seen = [], set()
        all_p2p, all_errors = [], []
        for part in gathered:
            for g in part["groups"]:
                key = (g["kind"], g["index"])
                if key not in seen:
                    seen.add(key)
                    merged.append(g)
                elif not g["membership_ok"]:
                    for m in merged:
                        if (m["kind"], m["index"]) == key:
                            m["membership_ok"] = False
            all_p2p.extend(part["p2p"])
            all_errors.extend(part["errors"])
        order = {k: i for i, k in enumerate(groups.keys())}
        merged.sort(key=lambda g: (order.get(g["kind"], 99), g["index"]))
        result = {"paraplan_probe": 1, "ok": not all_errors and all(g["membership_ok"] for g in merged),
                  "backend": backend, "world_size": world, "torch_version": torch.__version__,
                  "device": device.type, "elapsed_s": time.time() - t0, "groups": merged, "p2p": all_p2p,
                  "errors": all_errors}
        text = json.dumps(result, separators=(",", ":"))
        if args.out:
            with open(args.out, "w", encoding="utf-8") as f:
                f.write(text + "\n")
        print(MARKER + text, flush=True)
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
