#!/usr/bin/env python3
"""The quality-matrix table of docs/quality.md from the matrix test's own table.
    RETARGET_MATRIX_OUT=DIR cargo test --test e2e quality_matrix
    scripts/matrix-table.py DIR/matrix.md
Groups each source's cases by target, its generated variants (`[...]`) and its FBX (`(fbx)`)
together, and prints the worst figure of each measure per group (largest magnitude, sign kept).
"""
import re
import sys
from collections import OrderedDict


def number(cell):
    m = re.match(r"[-+]?[0-9.]+(e[-+]?[0-9]+)?", cell.strip())
    return float(m.group(0)) if m else None


def worst(cells, signed):
    values = [(number(c), c.strip().rstrip("!")) for c in cells]
    values = [v for v in values if v[0] is not None]
    if not values:
        return cells[0].strip().rstrip("!") if cells else "-"
    return max(values, key=lambda v: abs(v[0]) if signed else v[0])[1]


def main():
    groups = OrderedDict()
    for line in open(sys.argv[1]):
        cells = [c for c in line.strip().strip("|").split("|")]
        if len(cells) < 7 or " → " not in cells[0]:
            continue
        source, target = cells[0].strip().split(" → ")
        if source.startswith("Fox"):
            key = (source, "Fox")
        else:
            key = (source, re.sub(r"\[.*\]|\(fbx\)", "", target))
        groups.setdefault(key, []).append(cells[1:8])
    print("| source → target (with its variants and its FBX) | cases | direction mean ° "
          "| body (of height) | pelvis Δ (leg lengths) | ground Δ mm | skate Δ mm | same rig "
          "| penetration Δ mm |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (source, target), rows in groups.items():
        cols = list(zip(*rows))
        figures = [worst(cols[i], signed=i in (2, 3, 6)) for i in range(len(cols))]
        print(f"| {source} → {target} | {len(rows)} | " + " | ".join(figures) + " |")
    print(f"\n{sum(len(r) for r in groups.values())} cases")


if __name__ == "__main__":
    main()
