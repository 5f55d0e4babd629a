#!/usr/bin/env python3
"""Markdown tables of docs/accuracy.md from the accuracy test's own output.

    build/dev/tests/core_tst_estimate_accuracy held_out_targets > after.log 2>&1
    (the same from the build being compared against)             > before.log
    scripts/accuracy_tables.py after.log [before.log]

Prints the summary (mean / worst |step error| per set, peak memory where the source prints
it) and the "All rows" table. The rows, sources and layouts come from
tests/data/estimate_accuracy.json; every figure predicted comes from the test's lines
("<set> <name> <metric> published P predicted Q step E%  mem M / B GiB ...").
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINE = re.compile(r"(?:QINFO\s*:\s*\S+\s+)?(tune|held_out)\s+(.*?)\s+(\S+)\s+published\s+([-0-9.]+)\s+predicted\s+([-0-9.]+)"
                  r"\s+step\s+([-+0-9.]+)%\s+mem\s+([0-9.]+)\s*/\s*([0-9.]+) GiB")


def parse(path):
    rows = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        m = LINE.search(line)
        if not m:
            continue
        name = m.group(2).strip()
        rows.setdefault(name, {
            "set": m.group(1), "metric": m.group(3), "published": float(m.group(4)),
            "predicted": float(m.group(5)), "step": float(m.group(6)) / 100,
            "mem_pred": float(m.group(7)), "mem_pub": float(m.group(8))})
    return rows


def fmt(metric, v):
    if metric == "mfu":
        return f"{v:.3f}"
    if metric == "step_s":
        return f"{v:.2f} s"
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 100:
        return f"{v:.0f}"
    return f"{v:.1f}"


def kernels(r):
    k = r.get("kernels", "auto")
    if k != "auto":
        return k
    return "te" if r.get("framework", "megatron") == "megatron" else "eager"


def precision(r):
    if "fp8" not in r:
        return "bf16"
    return "FP8 " + r["fp8"] + (" +AG" if r.get("fp8_all_gather") else "")


def layout(r):
    s = f"tp {r['tp']}, pp {r['pp']}"
    if r.get("cp", 1) > 1:
        s += f", cp {r['cp']}"
    if r.get("ep", 1) > 1:
        s += f", ep {r['ep']}"
    if r.get("chunks", 1) > 1:
        s += f" (v {r['chunks']})"
    return s + f", {r['gpus']} GPUs, gbs {r['global_batch']}, mbs {r['micro_batch']}, seq {r['seq']}"


def summary(rows, names, key):
    out = {}
    for st in ("tune", "held_out"):
        errs = [rows[n][key] for n in names if n in rows and rows[n]["set"] == st]
        if errs:
            worst = max(errs, key=abs)
            out[st] = (len(errs), sum(abs(e) for e in errs) / len(errs), worst)
    return out


def mem_err(row):
    return row["mem_pred"] / row["mem_pub"] - 1 if row["mem_pub"] > 0 else None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    after = parse(sys.argv[1])
    before = parse(sys.argv[2]) if len(sys.argv) > 2 else {}
    table = json.load(open(os.path.join(ROOT, "tests/data/estimate_accuracy.json")))
    names = [r["name"] for r in table["runs"]]
    missing = [n for n in names if n not in after]
    if missing:
        sys.exit("rows missing from the test output: " + ", ".join(missing))

    print("| Set | Runs | Before: mean / worst step error | After: mean / worst step error |")
    print("|---|---|---|---|")
    sa, sb = summary(after, names, "step"), summary(before, names, "step")
    for st in ("tune", "held_out"):
        n, mean, worst = sa[st]
        b = f"{100 * sb[st][1]:.1f}% / {100 * sb[st][2]:+.1f}%" if st in sb else "-"
        print(f"| {st} | {n} | {b} | {100 * mean:.1f}% / {100 * worst:+.1f}% |")
    for st in ("tune", "held_out"):
        errs_a = [mem_err(after[n]) for n in names if after[n]["set"] == st and mem_err(after[n]) is not None]
        errs_b = [mem_err(before[n]) for n in names if n in before and before[n]["set"] == st and mem_err(before[n]) is not None]
        if not errs_a:
            continue
        within = sum(1 for e in errs_a if abs(e) <= 0.10)
        b = (f"{100 * sum(map(abs, errs_b)) / len(errs_b):.1f}% / {100 * max(map(abs, errs_b)):.1f}%"
             f" ({sum(1 for e in errs_b if abs(e) <= 0.10)} within 10%)") if errs_b else "-"
        print(f"| {st} peak memory | {len(errs_a)} | {b} | {100 * sum(map(abs, errs_a)) / len(errs_a):.1f}% / "
              f"{100 * max(map(abs, errs_a)):.1f}% ({within} within 10%) |")
    print()
    print("| Run | Set | Framework, GPU, precision, kernels, recomputation | Layout | Metric | Published | Predicted (after) "
          "| Step error before | Step error after | Memory |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in table["runs"]:
        a = after[r["name"]]
        b = before.get(r["name"])
        mem = ""
        if a["mem_pub"] > 0:
            mem = f"{a['mem_pub']:.1f} / {a['mem_pred']:.1f} ({100 * mem_err(a):+.0f}%)"
            if b and b["mem_pub"] > 0:
                mem += f" / {b['mem_pred']:.1f} ({100 * mem_err(b):+.0f}%)"
        print(f"| {r['name']} | {r['set']} | {r.get('framework', 'megatron')}, {r['gpu']}, {precision(r)}, {kernels(r)}, "
              f"{r['recompute']} AC | {layout(r)} | {a['metric'].replace('_', ' ')} | {fmt(a['metric'], a['published'])} | "
              f"{fmt(a['metric'], a['predicted'])} | {('%+.1f%%' % (100 * b['step'])) if b else '-'} | {100 * a['step']:+.1f}% | {mem} |")


if __name__ == "__main__":
    main()
