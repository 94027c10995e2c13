"""Check bench/prompts/conversations.jsonl against the rules in README.md; print the counts.

    .venv/bin/python bench/prompts/check_prompts.py [path] [--fresh]

``--fresh`` checks a fresh held-out set (``fresh.jsonl``): every line, not the mix.

Exits 1 (listing every problem) when a rule is broken. Servo expectations are recomputed
from the start angle and each turn's ``note`` ("abs N" or "rel +/-N"); LED expectations are
replayed against a tracked state (state questions must equal it exactly).
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

try:
    import webcolors  # a dependency of the LED plugin
except ImportError:  # pragma: no cover - then colour names are not checked
    webcolors = None

HERE = Path(__file__).resolve().parent
KINDS = ("led", "servo", "weather", "shell", "math", "none")
DAYS = (
    {"today", "tomorrow", "day after tomorrow"}
    | {d for d in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")}
    | {f"in {n} days" for n in range(1, 7)}
)
TARGET_SHARE = {
    "led": 0.22,
    "servo": 0.15,
    "weather": 0.11,
    "shell": 0.11,
    "math": 0.10,
    "none": 0.31,
}


def color_ok(c: str) -> bool:
    try:
        if c.startswith("#"):
            return bool(re.fullmatch(r"#[0-9a-f]{6}", c))
        if webcolors is None:
            return bool(re.fullmatch(r"[a-z]+", c))
        webcolors.name_to_hex(c)
        return True
    except ValueError:
        return False


def reporter(problems: list[str], cid: str) -> Callable[[str], None]:
    return lambda msg: problems.append(f"{cid}: {msg}")


def check(path: Path, *, mix: bool = True) -> int:
    """Print the counts of ``path`` and every broken rule; ``mix`` false checks each
    line but not the main set's mix (shares, splits, lengths): a fresh held-out set."""
    problems: list[str] = []
    convs = [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    ids = Counter(c["id"] for c in convs)
    problems += [f"duplicate id {i}" for i, n in ids.items() if n > 1]
    kinds: Counter[str] = Counter()
    split_convs: Counter[str] = Counter()
    split_turns: Counter[str] = Counter()
    split_kinds: Counter[tuple[str, str]] = Counter()
    split_shape: Counter[tuple[str, str]] = Counter()
    one_shot_turns = multi = 0
    multi_mixed = multi_mid_none = 0
    lengths: Counter[int] = Counter()
    for c in convs:
        cid = c["id"]
        bad = reporter(problems, cid)
        if set(c) - {"id", "split", "start", "turns"}:
            bad(f"unknown keys {set(c) - {'id', 'split', 'start', 'turns'}}")
        if c["split"] not in ("dev", "holdout"):
            bad(f"split {c['split']!r}")
        start = c["start"]
        led = dict(start["led"])
        angle = start["servo"]["angle"]
        if set(led) != {"on", "color", "brightness"} or not isinstance(led["on"], bool):
            bad("start.led needs on, color, brightness")
        if not color_ok(led["color"]) or not 1 <= led["brightness"] <= 100:
            bad(f"start.led {led}")
        if not -90 <= angle <= 90:
            bad(f"start angle {angle}")
        turns = c["turns"]
        n = len(turns)
        lengths[n] += 1
        split_convs[c["split"]] += 1
        split_shape[(c["split"], "one-shot" if n == 1 else "conversation")] += 1
        if n == 1:
            one_shot_turns += 1
        elif 3 <= n <= 6:
            multi += 1
            ks = [t["kind"] for t in turns]
            multi_mixed += len(set(ks)) >= 2
            multi_mid_none += "none" in ks[1:-1]
        else:
            bad(f"{n} turns (1 or 3-6 allowed)")
        for k, t in enumerate(turns, 1):
            where = f"turn {k} {t['prompt']!r}"
            kind = t["kind"]
            if kind not in KINDS:
                bad(f"{where}: kind {kind!r}")
                continue
            kinds[kind] += 1
            split_turns[c["split"]] += 1
            split_kinds[(c["split"], kind)] += 1
            exp = t["expect"]
            if list(exp) != [kind]:
                bad(f"{where}: expect keys {list(exp)} for kind {kind}")
                continue
            e = exp[kind]
            note = t.get("note", "")
            if "answer_any" in t and not (
                isinstance(t["answer_any"], list)
                and all(isinstance(a, str) and a for a in t["answer_any"])
            ):
                bad(f"{where}: answer_any must be a list of strings")
            if kind == "led":
                if not e or set(e) - {"on", "color", "brightness"}:
                    bad(f"{where}: led expect {e}")
                if "color" in e and not color_ok(e["color"]):
                    bad(f"{where}: colour {e['color']!r}")
                if "brightness" in e and not (
                    isinstance(e["brightness"], int) and 0 <= e["brightness"] <= 100
                ):
                    bad(f"{where}: brightness {e['brightness']!r}")
                if note == "state question":
                    if e != led or "answer_any" not in t:
                        bad(f"{where}: state question expects {e}, state is {led}")
                else:
                    if ("color" in e or e.get("brightness", 0) > 0) and e.get("on") is False:
                        bad(f"{where}: a colour/brightness change lights the strip")
                    before_led = dict(led)
                    led.update(e)
                    if "on" not in e:
                        led["on"] = True
                    if led == before_led:
                        bad(f"{where}: expects no change from {before_led} (not telling)")
            elif kind == "servo":
                m = re.fullmatch(r"(abs|rel) ([+-]?\d+)", note)
                if note == "state question":
                    if e != {"angle": angle} or "answer_any" not in t:
                        bad(f"{where}: state question expects {e}, angle is {angle}")
                elif not m:
                    bad(f"{where}: servo turn needs note 'abs N' or 'rel +/-N'")
                else:
                    before = angle
                    angle = int(m[2]) if m[1] == "abs" else angle + int(m[2])
                    if e != {"angle": angle}:
                        bad(f"{where}: expects {e}, recomputed {angle}")
                    if angle == before:
                        bad(f"{where}: the servo does not move (not telling)")
                    if not -90 <= angle <= 90:
                        bad(f"{where}: angle {angle} out of range")
                    if m[1] == "rel" and before == 0:
                        bad(f"{where}: relative move from 0 reads the same as an absolute one")
            elif kind == "weather":
                if set(e) != {"place", "day"} or not e["place"] or e["day"] not in DAYS:
                    bad(f"{where}: weather expect {e}")
            elif kind == "shell":
                ca = e.get("contains_any")
                if (
                    set(e) != {"contains_any"}
                    or not ca
                    or not all(isinstance(s, str) and s for s in ca)
                ):
                    bad(f"{where}: shell expect {e}")
            elif kind == "math":
                if isinstance(e, bool) or not isinstance(e, int | float):
                    bad(f"{where}: math expect {e!r}")
            elif e is not True:
                bad(f"{where}: none expect {e!r}")

    total = sum(kinds.values())
    print(f"{len(convs)} conversations, {total} turns")
    print(f"lengths: {dict(sorted(lengths.items()))}")
    print(
        f"one-shot turns: {one_shot_turns} ({one_shot_turns / total:.0%}); "
        f"in conversations: {total - one_shot_turns} ({(total - one_shot_turns) / total:.0%}) "
        f"over {multi} conversations ({multi_mixed} mixing kinds, "
        f"{multi_mid_none} with a no-tool turn in the middle)"
    )
    for k in KINDS:
        print(
            f"  {k:8} {kinds[k]:4}  {kinds[k] / total:5.1%}  (target {TARGET_SHARE[k]:.0%})"
            f"   holdout {split_kinds[('holdout', k)]}"
        )
    for s in ("dev", "holdout"):
        print(
            f"split {s:8}: {split_convs[s]:4} conversations ({split_convs[s] / len(convs):.0%}), "
            f"{split_turns[s]:4} turns ({split_turns[s] / total:.0%}); "
            f"one-shot {split_shape[(s, 'one-shot')]}, "
            f"conversations {split_shape[(s, 'conversation')]}"
        )

    if mix and total < 330:
        problems.append(f"only {total} turns (>= 330)")
    if mix and multi < 40:
        problems.append(f"only {multi} conversations of 3-6 turns (>= 40)")
    if multi_mixed < multi:  # every set
        problems.append("every conversation must mix kinds")
    if mix and not 0.40 <= one_shot_turns / total <= 0.50:
        problems.append(f"one-shot share {one_shot_turns / total:.0%} (about 45%)")
    if mix and kinds["none"] / total < 0.30:
        problems.append(f"none share {kinds['none'] / total:.1%} (>= 30%)")
    for k, share in TARGET_SHARE.items():
        if mix and abs(kinds[k] / total - share) > 0.03:
            problems.append(f"{k} share {kinds[k] / total:.1%} far from {share:.0%}")
        if not split_kinds[("holdout", k)]:
            problems.append(f"no holdout turn of kind {k}")
    for what, n, of in (
        ("conversations", split_convs["holdout"], len(convs)),
        ("turns", split_turns["holdout"], total),
    ):
        if mix and not 0.15 <= n / of <= 0.25:
            problems.append(f"holdout has {n / of:.0%} of the {what} (about 20%)")
    if not split_shape[("holdout", "one-shot")] or not split_shape[("holdout", "conversation")]:
        problems.append("holdout needs one-shots and conversations")

    for p in problems:
        print("PROBLEM:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    fresh = "--fresh" in args
    paths = [a for a in args if a != "--fresh"]
    sys.exit(check(Path(paths[0]) if paths else HERE / "conversations.jsonl", mix=not fresh))
