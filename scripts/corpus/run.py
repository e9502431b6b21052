#!/usr/bin/env python3
"""The corpus harness: real files of many exporters, retargeted with the defaults, read back by
Blender and judged by the independent tools, with a ratchet no passing pair may leave.

    scripts/corpus/run.py [--work DIR] [--sample K/N] [--only TEXT] [--update] [--table FILE]

Reads `../shared/corpus/*/manifest.jsonl` and `assets.jsonl` beside this file (rows for the
shared assets), makes the pairs of `pairs.py` (each clip onto its own character; each humanoid
clip onto six characters across exporters; each creature onto the creatures of its class),
runs `retarget-studio check --json` and `retarget-studio retarget` on each (the binary in
`$RETARGET_STUDIO`, else target/debug), reads every source, target and output with Blender's
importers (`pose-dump --batch`, two Blenders; `ref-dump` for what Blender cannot import) and
judges it (`measure.py`). A pair passes when every measure judge can take is within check's
limits, or, onto its own character, when every joint comes back within 1e-3 of the height.

Fails (exit 1) when a pair the ratchet (`ratchet.tsv`) lists as passing fails, or when `check`
passes a pair judge fails that the ratchet does not list as such (`check-fooled`: known, to be
mended; the list may only shrink). `--update` writes the ratchet from this run (a full run only: a
pair leaves it only by hand, with its reason in the closing note). `--sample K/N` runs the
pairs whose index is K modulo N (CI rotates K with the commit). Exits 0, saying so, when the
corpus is absent. Python standard library only; Blender's importers need Debian's python3
(its numpy), so run it with /usr/bin/python3.
"""
import argparse
import concurrent.futures as cf
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fbx_rotations  # noqa: E402
import measure  # noqa: E402
import pairs as pairing  # noqa: E402

ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SHARED = os.environ.get("SHARED", os.path.join(ROOT, "..", "shared"))
CORPUS = os.path.join(SHARED, "corpus")
BIN = os.environ.get("RETARGET_STUDIO", os.path.join(ROOT, "target", "debug", "retarget-studio"))
RATCHET = os.path.join(HERE, "ratchet.tsv")
# What this Blender cannot import (no Draco; extensions its add-on lacks; VRMA; a skeleton of
# bare nodes): read by ref-dump, the tools' pure-Python evaluator, instead.
BLENDER_CANNOT = ("libextern_draco", "is not available on this addon version", ".vrma",
                  "no armature", "Bad GLB", "ASCII FBX", "unsupported")


def load_entries():
    entries = []
    for folder in sorted(os.listdir(CORPUS)):
        path = os.path.join(CORPUS, folder, "manifest.jsonl")
        if os.path.exists(path):
            for line in open(path):
                if line.strip():
                    e = json.loads(line)
                    e["path"] = os.path.join(CORPUS, e["file"])
                    entries.append(e)
    for line in open(os.path.join(HERE, "assets.jsonl")):
        if line.strip() and not line.startswith("#"):
            e = json.loads(line)
            e["path"] = os.path.join(SHARED, "assets", e["file"])
            e["file"] = "assets/" + e["file"]
            if os.path.exists(e["path"]):
                entries.append(e)
    return entries


def cli(*args, timeout=900):
    r = subprocess.run([BIN, *args, "--quiet"] if args[0] != "inspect" else [BIN, *args],
                       capture_output=True, text=True, timeout=timeout)
    return r


def inspect(entry):
    """The file's clips as `inspect --json` lists them (with their index), or the reason it
    cannot be read."""
    r = cli("inspect", entry["path"], "--json")
    if r.returncode != 0:
        return (r.stderr.strip().splitlines() or ["inspect failed"])[-1]
    info = json.loads(r.stdout)
    return [dict(c, index=i) for i, c in enumerate(info.get("clips", []))]


def out_ext(pair):
    """A clip onto its own character is written in its own format where we write it (a BVH as
    BVH in its own unit and axes, an FBX as FBX); others as GLB."""
    if pair["kind"] == "own":
        ext = os.path.splitext(pair["source"]["file"])[1].lower()
        return {".bvh": ".bvh", ".fbx": ".fbx"}.get(ext, ".glb")
    return ".glb"


def slug(text):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text.replace(" → ", "__"))[:120]


def retarget(pair, work):
    """`check --json` and `retarget` on one pair: our verdict and the output file."""
    if pair["error"]:
        return
    src, tgt, clip = pair["source"], pair["target"], pair["clip"]["name"]
    common = ["--source", src["path"], "--clip", clip, "--target", tgt["path"]]
    t0 = time.time()
    # The verdict is what is compared; the causes of a failing one cost more solves.
    r = cli("check", *common, "--json", "--no-causes")
    pair["seconds"] = time.time() - t0
    if r.returncode == 2:
        # check has nothing to judge (a rig without legs): the output is still judged.
        pair["check_error"] = (r.stderr.strip().splitlines() or ["check failed"])[-1]
    else:
        pair["check_passed"] = r.returncode == 0
    out = os.path.join(work, "out", slug(pair["id"]) + out_ext(pair))
    r = cli("retarget", *common, "--out", out)
    if r.returncode != 0:
        pair["error"] = (r.stderr.strip().splitlines() or ["retarget failed"])[-1]
        return
    pair["output"] = out


def rest_copy(entry, work):
    """A glTF, GLB or VRM target without its animations (a copy beside the outputs): Blender
    reads it in its rest pose, the target's own floor and bone lengths. Other formats are read
    as they are (an FBX character without takes is its static pose)."""
    path = entry["path"]
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".glb", ".vrm", ".gltf"):
        return path
    out = os.path.join(work, "rest", pairing.stem(entry) + ".rest" + (".gltf" if ext == ".gltf" else ".glb"))
    if os.path.exists(out):
        return out
    os.makedirs(os.path.dirname(out), exist_ok=True)
    data = open(path, "rb").read()
    if ext == ".gltf":
        doc = json.loads(data)
        doc.pop("animations", None)
        open(out, "w").write(json.dumps(doc))
        return out
    length = int.from_bytes(data[12:16], "little")
    doc = json.loads(data[20:20 + length])
    if "animations" not in doc:
        return path
    doc.pop("animations")
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    rest = data[20 + length:]
    body = len(text).to_bytes(4, "little") + b"JSON" + text + rest
    open(out, "wb").write(data[:8] + (12 + len(body)).to_bytes(4, "little") + body)
    return out


def blender_input(path, work, rewritten):
    """The file Blender is handed for a corpus file: a binary FBX whose pre- or post-rotations
    Blender 3.4 composes otherwise than the FBX SDK (it multiplies Rpost, not its inverse) as
    a copy with the rotations Blender composes written in their place (`fbx_rotations`), so
    that its reading is the file's (Robot Kyle's left arm: its skin clusters' bind matrices
    are the SDK's); any other file as it is. Our own outputs are never rewritten: Blender's
    reading of them is what a user of Blender gets. `rewritten` collects what was changed."""
    if not path.lower().endswith(".fbx"):
        return path
    copy, fixed = fbx_rotations.blender_copy(path, os.path.join(work, "blender"))
    if fixed:
        rewritten[os.path.basename(path)] = fixed
    return copy


def dump_args(entry, clip=None):
    """pose-dump's arguments for a file of the corpus: its unit and axes, and the clip."""
    args = shlex.split(entry.get("posedump_args") or "")
    # A BVH the manifest calls Z-up is read Z-up (Blender's importer assumes Y).
    if entry["file"].lower().endswith(".bvh") and entry.get("up") == "Z" and \
            not any(a.startswith("--bvh-axis-up") for a in args):
        args += ["--bvh-axis-up", "Z", "--bvh-axis-forward", "Y"]
    if clip is not None:
        ext = os.path.splitext(entry["file"])[1].lower()
        if ext in (".glb", ".gltf", ".vrm"):
            # By name (our clip's is the animation's), by index where the file gave none.
            unnamed = re.fullmatch(r"animation_\d+", clip["name"])
            args += ["-a", str(clip["index"]) if unnamed else clip["name"]]
        elif ext == ".fbx":
            args += ["-a", clip["name"]]
    return args


def run_dumps(jobs, work):
    """Every dump in two Blenders (`pose-dump --batch`); what Blender cannot import by ref-dump."""
    todo = [j for j in jobs if not os.path.exists(j[2])]
    halves = [todo[0::2], todo[1::2]]

    def batch(k):
        if not halves[k]:
            return ""
        lst = os.path.join(work, f"batch{k}.txt")
        with open(lst, "w") as f:
            for path, args, out in halves[k]:
                f.write(" ".join(shlex.quote(a) for a in [path, *args, "-o", out]) + "\n")
        r = subprocess.run([os.path.join(measure.TOOLS, "pose-dump"), "--batch", lst],
                           capture_output=True, text=True)
        return r.stderr

    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        logs = list(pool.map(batch, [0, 1]))
    log = "\n".join(logs)
    errors = {}
    last_error = ""
    for line in log.splitlines():
        if line.startswith("pose-dump: error:"):
            last_error = line
        m = re.match(r"pose-dump: batch \d+/\d+ failed \(\d+\): (.*)", line)
        if m:
            path = shlex.split(m.group(1))[0]
            errors[path] = last_error
    for path, args, out in todo:
        if os.path.exists(out):
            continue
        why = errors.get(path, "")
        if path.endswith(".fbx"):
            continue
        # Blender reads every glTF but a Draco one (this Blender has no decoder): another
        # failure is the machine's (its numpy) and must not pass unseen as ref-dump's reading.
        print(f"corpus: Blender did not read {os.path.basename(path)}; ref-dump reads it"
              f"{': ' + why.removeprefix('pose-dump: error: ')[:160] if why else ''}")
        bare = ["--all-nodes"] if path.endswith(".vrma") or "no armature" in why else []
        r = subprocess.run([os.path.join(measure.TOOLS, "ref-dump"), path, "-o", out, *args, *bare],
                           capture_output=True, text=True)
        if r.returncode != 0:
            errors[path] = (why + " / ref-dump: " + r.stderr.strip()[-200:]).strip(" /")
    return errors


def verdict(pair):
    """pass, fail (with the measures) or error, on judge's figures. A file we refuse that no
    independent reader reads either (an FBX Blender cannot import: ref-dump reads no FBX) is
    unjudged: there is nothing to say it holds a body we lost."""
    unreadable = lambda e: e.get("blender_reads") is False and e["file"].lower().endswith(".fbx")
    if pair.get("error") and (unreadable(pair["source"]) or unreadable(pair["target"])):
        return "unjudged"
    if pair.get("error"):
        return "fail"
    fig = pair.get("judge")
    if not fig:
        return "unjudged"
    return "fail" if measure.failing(fig) else "pass"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default=None)
    ap.add_argument("--sample", default=None, help="K/N: the pairs whose index is K mod N")
    ap.add_argument("--only", default=None, help="pairs whose name matches this regular expression")
    ap.add_argument("--update", action="store_true", help="write the ratchet from this run")
    ap.add_argument("--table", default=None, help="write the table here (docs/corpus.md)")
    ap.add_argument("--reuse", action="store_true",
                    help="judge the outputs an earlier run left in --work again")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    opt = ap.parse_args()
    if not os.path.isdir(CORPUS):
        print(f"corpus: skipped: the corpus is not there ({CORPUS})")
        return 0
    # Without Blender every file would fall to ref-dump, which reads no FBX: a table of
    # unjudged pairs, and dumps a later run in the same folder would take for Blender's.
    blender = os.environ.get("BLENDER", "blender")
    if not shutil.which(blender):
        print(f"corpus: error: Blender ('{blender}') is not installed, and every pair is judged "
              "on Blender's reading: run scripts/setup-checks.sh", file=sys.stderr)
        return 2
    work = opt.work or tempfile.mkdtemp(prefix="corpus-")
    os.makedirs(os.path.join(work, "out"), exist_ok=True)
    os.makedirs(os.path.join(work, "dumps"), exist_ok=True)
    started = time.time()
    entries = load_entries()
    clip_cache = {}

    def clips_of(e):
        if e["file"] not in clip_cache:
            clip_cache[e["file"]] = inspect(e)
        return clip_cache[e["file"]]

    sources = [e for e in entries if e["role"] in ("clip", "both")]
    with cf.ThreadPoolExecutor(max_workers=opt.jobs) as pool:
        for e, c in zip(sources, pool.map(inspect, sources)):
            clip_cache[e["file"]] = c
    all_pairs = pairing.make_pairs(entries, clips_of)
    chosen = all_pairs
    if opt.sample:
        k, n = (int(x) for x in opt.sample.split("/"))
        chosen = [p for i, p in enumerate(all_pairs) if i % n == k % n]
    if opt.only:
        chosen = [p for p in chosen if re.search(opt.only, p["id"])]
    print(f"corpus: {len(entries)} files, {len(all_pairs)} pairs, running {len(chosen)} "
          f"(work folder {work})", flush=True)
    # What each pair's retarget gave, kept in the work folder: `--reuse` judges those
    # outputs again (the readers or the judging changed, not the retarget).
    results_path = os.path.join(work, "results.json")
    kept = json.load(open(results_path)) if opt.reuse and os.path.exists(results_path) else {}
    keys = ("check_passed", "check_error", "error", "output", "seconds")
    todo = [p for p in chosen if p["id"] not in kept]
    for p in chosen:
        p.update({k: v for k, v in kept.get(p["id"], {}).items() if k in keys})
    with cf.ThreadPoolExecutor(max_workers=opt.jobs) as pool:
        list(pool.map(lambda p: retarget(p, work), todo))
    kept.update({p["id"]: {k: p[k] for k in keys if k in p} for p in todo})
    json.dump(kept, open(results_path, "w"), indent=1)
    print(f"corpus: retargeted {len(todo)} in {time.time() - started:.0f} s", flush=True)

    # Every reading Blender makes, once per file and clip.
    jobs = {}

    def want(path, args):
        key = path + " " + " ".join(args)
        if key not in jobs:
            # Named by what is read: a corpus file by its real path (one name from any
            # worktree), an output by its bytes (a run again in the same folder must not take
            # the last run's reading of an output since rewritten).
            if path.startswith(work):
                what = hashlib.sha1(open(path, "rb").read()).hexdigest()
            else:
                what = os.path.realpath(path)
            name = hashlib.sha1((what + " " + " ".join(args)).encode()).hexdigest()[:16]
            jobs[key] = (path, args, os.path.join(work, "dumps", name + ".json"))
        return jobs[key][2]

    own_clips = {p["source"]["path"]: p["clip"] for p in all_pairs
                 if p["kind"] == "own" and p.get("clip") and not p.get("error")}
    rewritten = {}
    read_from = {}

    def corpus_file(path):
        if path not in read_from:
            read_from[path] = blender_input(path, work, rewritten)
        return read_from[path]

    for p in chosen:
        if p.get("error") or not p.get("output"):
            continue
        p["dumps"] = {"source": want(corpus_file(p["source"]["path"]),
                                     dump_args(p["source"], p["clip"]))}
        if p["kind"] == "own":
            # A BVH or FBX written onto its own character keeps its unit and axes: read as
            # the source is.
            own_format = not p["output"].endswith(".glb")
            args = dump_args(p["source"]) if own_format else []
            p["dumps"]["output"] = want(p["output"], args + ([] if p["output"].endswith(".bvh") else ["-a", "0"]))
        else:
            p["dumps"]["output"] = want(p["output"], ["-a", "0"])
            p["dumps"]["target"] = want(corpus_file(rest_copy(p["target"], work)),
                                        dump_args(p["target"]))
            # A character with clips of its own: the clip its own pair plays, whose feet say
            # where its floor is when its rest pose does not stand (`measure.floor_reading`).
            own_clip = own_clips.get(p["target"]["path"])
            if own_clip is not None:
                p["dumps"]["target_clip"] = want(corpus_file(p["target"]["path"]),
                                                 dump_args(p["target"], own_clip))
    for name, fixed in sorted(rewritten.items()):
        print(f"corpus: {name}: Blender reads a copy with the SDK's rotations of "
              f"{len(fixed)} node(s) ({', '.join(fixed[:3])}{', ...' if len(fixed) > 3 else ''})",
              flush=True)
    errors = run_dumps(list(jobs.values()), work)
    print(f"corpus: read back by Blender in {time.time() - started:.0f} s", flush=True)

    def judged(p):
        if p.get("error") or "dumps" not in p:
            return
        if not os.path.exists(p["dumps"].get("target_clip", "/")):
            # Only a second opinion on the floor: judged without it where Blender read none.
            p["dumps"].pop("target_clip", None)
        missing = [k for k, d in p["dumps"].items() if not os.path.exists(d)]
        if missing:
            path = {"source": read_from.get(p["source"]["path"]),
                    "target": read_from.get(rest_copy(p["target"], work)),
                    "output": p["output"]}[missing[0]]
            p["unread"] = f"{missing[0]} not read: {errors.get(path, '?')}"
            if missing[0] == "output":
                p["error"] = p["unread"]
            return
        if p["kind"] == "own":
            p["judge"] = measure.measure_own(p["dumps"]["source"], p["dumps"]["output"])
        else:
            p["judge"] = measure.measure_pair(p["source"], p["target"], p["dumps"],
                                              os.path.join(work, "dumps"), slug(p["id"]))

    with cf.ThreadPoolExecutor(max_workers=opt.jobs) as pool:
        list(pool.map(judged, chosen))
    # Where each pair's readings are, for `explain.py` (judge's full output on one pair).
    json.dump({p["id"]: {"kind": p["kind"], "dumps": p.get("dumps"), "judge": p.get("judge"),
                         "spec": os.path.join(work, "dumps", slug(p["id"]) + ".spec.json"),
                         "source": p["source"]["path"], "target": p["target"]["path"],
                         "output": p.get("output")}
               for p in chosen}, open(os.path.join(work, "judged.json"), "w"), indent=1)
    code = report(chosen, all_pairs, opt, started)
    if not opt.work:
        shutil.rmtree(work, ignore_errors=True)
    return code


def report(chosen, all_pairs, opt, started):
    ratchet, was_fooled = {}, set()
    if os.path.exists(RATCHET):
        for line in open(RATCHET):
            if line.strip() and not line.startswith("#"):
                cells = line.rstrip("\n").split("\t")
                ratchet[cells[0]] = cells[1]
                if len(cells) > 2 and cells[2] == "check-fooled":
                    was_fooled.add(cells[0])
    broken, fooled = [], []
    rows = []
    for p in chosen:
        v = verdict(p)
        p["verdict"] = v
        if ratchet.get(p["id"]) == "pass" and v != "pass":
            broken.append(p)
        if v == "fail" and p.get("check_passed") and not p.get("unread"):
            fooled.append(p)
        fig = p.get("judge") or {}
        bad = measure.failing(fig)
        cells = ", ".join(f"{m} {fig[m]:.3g}{'!' if m in bad else ''}" for m in fig)
        note = p.get("error") or p.get("unread") or ""
        check = "-" if "check_passed" not in p else ("PASS" if p["check_passed"] else "FAIL")
        if p.get("check_error") and not note:
            note = "check: " + p["check_error"].split(": ")[-1]
        rows.append((p["kind"], p["id"], v, check, cells, note))
    table = ["| kind | pair | judge | check | judge's figures | note |", "|---|---|---|---|---|---|"]
    for r in rows:
        table.append("| " + " | ".join(x.replace("|", "/") for x in r) + " |")
    summary = summarise(chosen)
    text = "\n".join(summary + [""] + table) + "\n"
    print(text)
    if opt.table:
        write_table(opt.table, summary, table, len(all_pairs) == len(chosen))
    for p in broken:
        print(f"corpus: RATCHET BROKEN: {p['id']} passed before, now {p['verdict']}: "
              f"{p.get('error') or measure.failing(p.get('judge') or {})}")
    for p in fooled:
        known = " (known: in the ratchet)" if p["id"] in was_fooled else ""
        print(f"corpus: CHECK FOOLED: {p['id']}: check passes, judge fails "
              f"{measure.failing(p.get('judge') or {})}{known}")
    new_fooled = [p for p in fooled if p["id"] not in was_fooled]
    if opt.update:
        if len(chosen) != len(all_pairs):
            print("corpus: --update needs a full run (no --sample, no --only)")
            return 2
        with open(RATCHET, "w") as f:
            f.write("# pair\tverdict (written by scripts/corpus/run.py --update; a pair leaves "
                    "'pass' only with its reason in a closing note)\n")
            for p in chosen:
                tag = "\tcheck-fooled" if p in fooled else ""
                f.write(f"{p['id']}\t{p['verdict']}{tag}\n")
    print(f"corpus: {time.time() - started:.0f} s in all; {len(broken)} ratchet pair(s) broken, "
          f"check fooled on {len(fooled)} ({len(new_fooled)} not in the ratchet)")
    return 1 if broken or new_fooled else 0


def summarise(chosen):
    lines = ["| pairs | pass | fail | unjudged | check passes what judge fails |",
             "|---|---|---|---|---|"]
    for kind in ("own", "humanoid", "creature"):
        ps = [p for p in chosen if p["kind"] == kind]
        if not ps:
            continue
        n = lambda v: sum(1 for p in ps if p["verdict"] == v)
        fooled = sum(1 for p in ps if p["verdict"] == "fail" and p.get("check_passed") and not p.get("unread"))
        lines.append(f"| {kind} ({len(ps)}) | {n('pass')} | {n('fail')} | {n('unjudged')} | {fooled} |")
    return lines


def write_table(path, summary, table, full):
    head = open(os.path.join(HERE, "table-head.md")).read()
    stamp = time.strftime("%Y-%m-%d")
    # The history section is written by hand, one row per landed change: kept as it is.
    old = open(path).read() if os.path.exists(path) else ""
    history = re.search(r"^## History\n.*?(?=^## )", old, re.S | re.M)
    with open(path, "w") as f:
        f.write(head.replace("DATE", stamp).replace("SCOPE", "every pair" if full else "a sample"))
        if history:
            f.write(history.group(0))
        f.write("## The last full run\n\n" if full else "## The last run\n\n")
        f.write("\n".join(summary) + "\n\n" + "\n".join(table) + "\n")


if __name__ == "__main__":
    sys.exit(main())
