"""Parse an exported file with its own language's parser and print what it says as JSON.

Run with the system Python 3.11 (tomllib, python3-yaml):  /usr/bin/python3 parse_back.py MODE FILE
MODE: python (the arguments of the ColossalAI Booster plugin call, of the DeepSpeed
topology call in pipeline.py, or of Megatron-Bridge's LoRA(...) in megatron_bridge_lora.py), toml, yaml, json.
"""
import ast
import json
import sys


def plugin_call(path):
    tree = ast.parse(open(path, encoding="utf-8").read(), filename=path)
    assigns = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigns[node.targets[0].id] = ast.unparse(node.value)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.endswith(("Plugin", "Topology", "LoRA")):
            def value(expr):
                try:
                    return ast.literal_eval(expr)
                except ValueError:
                    return {"expr": ast.unparse(expr)}
            return {
                "callee": node.func.id,
                "positional": [value(a) for a in node.args],
                "kwargs": {k.arg: value(k.value) for k in node.keywords},
                "assignments": assigns,
            }
    raise SystemExit("no ...Plugin(...), ...Topology(...) or LoRA(...) call in " + path)


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "python":
        out = plugin_call(path)
    elif mode == "toml":
        import tomllib
        with open(path, "rb") as f:
            out = tomllib.load(f)
    elif mode == "yaml":
        import yaml
        with open(path, encoding="utf-8") as f:
            out = yaml.safe_load(f)
    elif mode == "json":
        with open(path, encoding="utf-8") as f:
            out = json.load(f)
    else:
        raise SystemExit("unknown mode " + mode)
    json.dump(out, sys.stdout)


main()
