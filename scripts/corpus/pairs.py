"""Which pairs the corpus harness retargets: each clip onto its own character, each humanoid
clip onto characters of several exporters, each creature onto creatures of its class.

Pairs are named from the files' names alone (the ratchet keys them), so adding a file to the
corpus adds pairs and never renames old ones."""
import os
import re

# How many characters each humanoid clip goes onto, chosen across exporters.
CHARACTERS_PER_CLIP = 6
# Creature classes: a creature goes onto the other creatures whose class names one of these.
CREATURE_CLASSES = ("quadruped", "bird", "dragon", "insect", "beetle", "bee", "mech", "fish",
                    "snake", "crab", "tailed", "dinosaur")


def stem(entry):
    """A file's short name: its base name without the extension."""
    return os.path.splitext(os.path.basename(entry["file"]))[0]


def creature_class(entry):
    """The creature class a non-humanoid file belongs to (`None` for a test rig)."""
    text = (entry.get("class") or "").lower()
    for word in CREATURE_CLASSES:
        if word in text:
            return {"beetle": "insect", "bee": "insect", "dinosaur": "tailed"}.get(word, word)
    return None


def judged_limbs(entry):
    """Whether the manifest names enough limb joints for judge to measure directions."""
    named = [j for j in (entry.get("left") or []) + (entry.get("right") or []) if j]
    return len(named) >= 4


def pick_clip(clips):
    """The clip a file is judged by: a walk when it has one, else the first that moves (ten
    keys or more), else its longest."""
    if not clips:
        return None
    walks = [c for c in clips if re.search(r"walk", c["name"], re.I) and c["frames"] >= 10]
    moving = [c for c in clips if c["frames"] >= 10]
    return (walks or moving or [max(clips, key=lambda c: c["frames"])])[0]


def spread(characters, count, offset):
    """`count` characters out of the list, spaced evenly from `offset`, each at most once."""
    n = len(characters)
    if n <= count:
        return list(characters)
    step = n / count
    return [characters[int(offset + k * step) % n] for k in range(count)]


def make_pairs(entries, clips_of):
    """Every pair of the corpus run, in a fixed order. `clips_of(entry)` gives the file's clips
    as `inspect --json` lists them, or raises with the reason the file cannot be read."""
    pairs = []
    sources = [e for e in entries if e["role"] in ("clip", "both")]
    # Characters sorted by exporter, so that evenly spaced picks cross exporters.
    characters = sorted((e for e in entries if e["role"] in ("character", "both")
                         and e.get("humanoid") and not e["file"].endswith(".vrma")),
                        key=lambda e: (e.get("exporter") or "", e["file"]))
    creatures = [e for e in entries if e["role"] in ("character", "both")
                 and not e.get("humanoid") and creature_class(e)]
    humanoid_sources = [e for e in sources if e.get("humanoid")]
    for e in sources:
        clips = clips_of(e)
        clip = pick_clip(clips) if isinstance(clips, list) else None
        base = {"source": e, "clip": clip, "error": None if isinstance(clips, list) else clips}
        if isinstance(clips, list) and clip is None:
            base["error"] = "no clip"
        # Onto its own character: the same motion back (a VRMA has no character of its own).
        if not e["file"].endswith(".vrma"):
            pairs.append(dict(base, kind="own", target=e, id=f"{stem(e)} → itself"))
        if e.get("humanoid"):
            index = humanoid_sources.index(e)
            others = [c for c in characters if c is not e]
            for c in spread(others, CHARACTERS_PER_CLIP, index * 7 / len(humanoid_sources)):
                pairs.append(dict(base, kind="humanoid", target=c, id=f"{stem(e)} → {stem(c)}"))
        else:
            kind = creature_class(e)
            for c in creatures:
                if c is not e and kind and creature_class(c) == kind:
                    pairs.append(dict(base, kind="creature", target=c, id=f"{stem(e)} → {stem(c)}"))
    return pairs
