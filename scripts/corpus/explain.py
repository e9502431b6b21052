#!/usr/bin/env python3
"""judge's full output on the pairs of a corpus run whose name matches a regular expression:
every measure with its per-joint and per-frame figures, and the commands that give them, so
that a failing pair can be looked into without reading the harness.

    /usr/bin/python3 scripts/corpus/explain.py --work DIR 'REGEX'
"""

import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import measure  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", required=True, help="the work folder of a run (run.py --work)")
    ap.add_argument("pattern")
    opt = ap.parse_args()
    judged = json.load(open(os.path.join(opt.work, "judged.json")))
    for pid, p in judged.items():
        if not re.search(opt.pattern, pid):
            continue
        print(f"## {pid} ({p['kind']})\nsource {p['source']}\ntarget {p['target']}\n"
              f"output {p['output']}\nfigures {p['judge']}")
        d = p.get("dumps") or {}
        if p["kind"] == "own" or "target" not in d or not os.path.exists(p["spec"]):
            print(f"dumps {d}\n")
            continue
        a, b, t, spec = d["source"], d["output"], d["target"], p["spec"]
        own = spec[:-len(".spec.json")] + ".own.json"
        # The floor as the run took it: the rest, the own clip or the rest stood up.
        floor = measure.target_floor(d, json.load(open(spec)), os.path.dirname(spec),
                                     os.path.basename(spec)[:-len(".spec.json")])
        if floor != t:
            print(f"target's floor from {floor}")
        for args in (["directions", a, b, spec], ["integrity", t, b], ["pelvis", a, b, floor, spec],
                     ["ground", a, b, floor, spec], ["ground", a, a, a, own], ["skate", a, b, spec],
                     ["skate", a, a, own]):
            cmd = [sys.executable, os.path.join(measure.TOOLS, "judge.py"), *args]
            print("$ " + " ".join(cmd))
            r = subprocess.run(cmd, capture_output=True, text=True)
            print(r.stdout.strip() or r.stderr.strip())
        # directions per segment: which limb is off.
        full = json.load(open(spec))
        for seg in full["segments"]:
            one = dict(full, segments=[seg])
            path = spec[:-len(".spec.json")] + ".one.json"
            json.dump(one, open(path, "w"))
            r = subprocess.run([sys.executable, os.path.join(measure.TOOLS, "judge.py"),
                                "directions", a, b, path], capture_output=True, text=True)
            print(f"  {seg[1][0]} -> {seg[1][1]}: {r.stdout.strip() or r.stderr.strip()}")
        print()


if __name__ == "__main__":
    main()
