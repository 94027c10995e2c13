"""Would the side questions before an acting call do better leaning to "yes" or "no"?

The model calls the LED or the servo; before the call runs, two side questions asked
alone (edgeagent/agent/checks.py: the topic, then the capability) may refuse it, each
greedily, by the likelier of "yes" and "no". On the blind prompt sets' records
(bench/results_fresh3 ... fresh16, runs already seen), every turn whose first generation
called ``led`` or ``servo`` is one case: a real request when the turn was of that kind,
else (a ``none`` turn, or the other device's) a call that must be refused. Here each
case's two questions are evaluated again on the shipped model, as the engine renders
them, and the margin logit("yes") - logit("no") of the first token is kept; a lean of L
nats passes a call whose two margins are both above -L:

    .venv/bin/python bench/side_lean.py [--sets 3-16] [--sample 150] [--saved]

``--saved`` prints the table of the margins saved by the last run
(bench/results_side_lean/margins.json) without the model.

All the cases where a question said "no" in the records, and the calls that had to be
refused, are evaluated, with a random ``--sample`` of the real calls both questions let
through (seed 1). Run on 2026-11-28 (docs/benchmarks_accuracy.md): the margins of real
and absent-device requests overlap around 0, so no lean won; none is shipped.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from side_questions import LED, SERVO  # noqa: E402

from edgeagent.agent.honesty import capability_question, target_question  # noqa: E402
from edgeagent.config_file import load_config  # noqa: E402
from edgeagent.llm.llamacpp import LlamaCppEngine  # noqa: E402
from edgeagent.llm.select import EngineSpec, create_engine, select_engine_spec  # noqa: E402

TITLES = {"led": LED, "servo": SERVO}
CALLED = re.compile(r'"name":\s*"(led|servo)"')
SAVED = ROOT / "bench" / "results_side_lean" / "margins.json"
LEANS = (-1.0, -0.5, -0.25, 0.0, 0.5, 1.0, 2.0)


@dataclass(frozen=True)
class Case:
    turn: str
    prompt: str
    tool: str
    real: bool
    """The turn asked that device to act (else its call must be refused)."""
    said_no: bool
    """A side question said "no" to it in the records."""


def cases(sets: range) -> list[Case]:
    """Every turn of the blind sets' records whose first generation called led or servo."""
    found = []
    for n in sets:
        records = json.loads((ROOT / f"bench/results_fresh{n}/default.json").read_text())
        for cid, turns in records["conversations"].items():
            for turn in turns:
                generations = [g["raw"].strip() for g in turn["generations"]]
                called = CALLED.search(generations[0]) if generations else None
                if called and turn["kind"] in ("led", "servo", "none"):
                    tool = called.group(1)
                    found.append(
                        Case(
                            f"{cid}.{turn['turn']}",
                            turn["prompt"],
                            tool,
                            turn["kind"] == tool,
                            "no" in generations[1:3],
                        )
                    )
    return found


def margin(engine: LlamaCppEngine, question: str) -> float:
    """logit("yes") - logit("no") at the answer's first token, as the side question
    renders (each word's likeliest first token the grammar allows)."""
    import numpy as np

    llm: Any = engine._llm
    tokens = engine.tokenize_messages([{"role": "user", "content": question}])
    engine._prefill(tokens, lambda: False)  # what the cache holds of them is reused
    logits = np.ctypeslib.as_array(
        engine._lc.llama_get_logits_ith(llm._ctx.ctx, -1), shape=(llm.n_vocab(),)
    )

    def best(*words: str) -> float:
        firsts = {engine._tokenize_content(w)[0] for w in words}
        return float(max(logits[t] for t in firsts))

    return best("y", "ye", "yes") - best("n", "no")


def shipped_engine() -> LlamaCppEngine:
    """The shipped config's model on llama.cpp, 2 threads."""
    config = load_config(ROOT / "config" / "edgeagent.toml")
    spec = select_engine_spec(config)
    engine = create_engine(EngineSpec(spec.backend, {**spec.options, "n_threads": 2}))
    assert isinstance(engine, LlamaCppEngine), "the lean is measured on llama.cpp"
    return engine


def case_margin(engine: LlamaCppEngine, case: Case) -> float:
    """The smaller margin of the two questions the checks ask of ``case``'s call."""
    title = TITLES[case.tool]
    return min(
        margin(engine, target_question(case.prompt, title)),
        margin(engine, capability_question(case.prompt, title)),
    )


def chosen_cases(sets: str, sample: int) -> tuple[list[Case], int]:
    """The cases asked: every one refused in the records or to refuse, and a sample of
    the real calls both questions let through (seed 1); and how many of those there are."""
    first, last = (int(x) for x in sets.split("-"))
    found = cases(range(first, last + 1))
    passing = [c for c in found if c.real and not c.said_no]
    chosen = [c for c in found if c.said_no or not c.real]
    return chosen + random.Random(1).sample(passing, min(sample, len(passing))), len(passing)


def groups(chosen: list[Case], passing: int) -> dict[str, list[Case]]:
    return {
        "real, refused in the records": [c for c in chosen if c.real and c.said_no],
        f"real, let through (sample of {passing})": [c for c in chosen if c.real and not c.said_no],
        "to refuse": [c for c in chosen if not c.real],
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", default="3-16")
    parser.add_argument("--sample", type=int, default=150)
    parser.add_argument("--saved", action="store_true", help=f"the table of {SAVED.name}")
    args = parser.parse_args()
    chosen, passing = chosen_cases(args.sets, args.sample)
    if args.saved:
        margins = {c["turn"]: c["margin"] for c in json.loads(SAVED.read_text())["cases"]}
    else:
        engine = shipped_engine()
        start = time.perf_counter()
        try:
            margins = {case.turn: case_margin(engine, case) for case in chosen}
        finally:
            engine.close()
        print(f"{len(chosen)} cases in {time.perf_counter() - start:.0f} s")
        SAVED.parent.mkdir(exist_ok=True)
        cases_ = [{**dataclasses.asdict(c), "margin": round(margins[c.turn], 4)} for c in chosen]
        SAVED.write_text(json.dumps({"cases": cases_}, indent=1, ensure_ascii=False))
    grouped = groups(chosen, passing)
    print("| lean (nats) | " + " | ".join(f"{name}: passed" for name in grouped) + " |")
    print("|---:|" + "---:|" * len(grouped))
    for lean in LEANS:
        cells = [
            f"{sum(margins[c.turn] > -lean for c in group)}/{len(group)}"
            for group in grouped.values()
        ]
        print(f"| {lean:g} | {' | '.join(cells)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
