"""Parse torchrun command lines with torch's own parser and print what it read as JSON.

Run with the system Python (Debian 12's python3-torch, torch 1.13):
    /usr/bin/python3 torchrun_parse.py FILE
FILE holds a JSON list of argv lists without the leading "torchrun". For each, prints
{"nnodes", "node_rank", "nproc_per_node", "rdzv_backend", "master_addr", "master_port",
 "module", "training_script", "training_script_args"} or {"_error": "..."} when
torch.distributed.run.get_args_parser() refuses it.
"""
import contextlib
import io
import json
import sys

import torch
from torch.distributed.run import get_args_parser


def parse(argv):
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            a = get_args_parser().parse_args(argv)
    except SystemExit:
        return {"_error": err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else "refused"}
    return {
        "nnodes": a.nnodes,
        "node_rank": a.node_rank,
        "nproc_per_node": a.nproc_per_node,
        "rdzv_backend": a.rdzv_backend,
        "master_addr": a.master_addr,
        "master_port": a.master_port,
        "module": bool(a.module),
        "training_script": a.training_script,
        "training_script_args": a.training_script_args,
    }


def main():
    cases = json.load(open(sys.argv[1], encoding="utf-8"))
    print(json.dumps({"torch": torch.__version__, "parsed": [parse(c) for c in cases]}))


if __name__ == "__main__":
    main()
