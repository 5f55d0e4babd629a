#!/usr/bin/env python3
"""Markdown tables of docs/accuracy.md "Network (nccl-tests)" from the network accuracy test's output.

    build/dev/tests/core_tst_network_accuracy > network.log 2>&1
    scripts/network_accuracy_tables.py network.log

Prints the report's own tables (tune rows, held-out rows, NCCL's picks, the held-out summary), then
the known misses: one line per reason the test gives (the text after " -- " of an XFAIL line, up to
its first colon names it), with the cases it covers and their measured errors. No figure is typed
here: every number comes from the test's lines.
"""
import re
import sys

XFAIL = re.compile(r"XFAIL\s*:\s*\S+::(\w+)\(([^)]*)\)\s+(.*?)\s+--\s+(.*)$")
ERROR = re.compile(r"error ([-+0-9.]+)%")


def main(path):
    lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    in_report = False
    for line in lines:
        if line.startswith("#### "):
            in_report = True
        if in_report and (line.startswith("PASS") or line.startswith("FAIL")):
            break
        if in_report and (line.startswith("#### ") or line.startswith("|") or not line.strip()):
            print(line)

    reasons = {}
    for line in lines:
        m = XFAIL.search(line)
        if not m:
            continue
        check, case, what, why = m.groups()
        err = ERROR.search(what)
        tag = why.split(":", 1)[0]
        reasons.setdefault(tag, {"text": why, "cases": []})["cases"].append(
            f"{case} ({err.group(1) + '%' if err else check})")
    print("\n#### Known misses (QEXPECT_FAIL), by reason\n")
    print("| reason | rows | cases (measured error) |")
    print("|---|---:|---|")
    for tag, r in reasons.items():
        print(f"| {r['text']} | {len(r['cases'])} | {', '.join(r['cases'])} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
