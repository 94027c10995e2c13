"""The many-tools comparison: the same turns with and without tool selection.

Reads the result files bench/accuracy.py wrote for the variants ``many_tools`` (the
32 remote-style tools of bench/extra_tools.py in every prompt) and
``many_tools_selected`` (the shipped ``[agent] max_manifest_tokens``), and ``default``
(no extra tools) when present, on the conversations every one of them ran, and prints a
Markdown table: the benchmark's own judge (bench/judge.py, as in bench/report.py), plus
what the extra tools did and what the prompt cost.

    .venv/bin/python bench/selection_report.py [--results bench/results/many_tools]

"restraint, local" counts a ``none`` turn right when no local tool ran (successfully,
as the judge counts) and no local device changed. The judge's own restraint also counts
a call to an extra tool on a ``none`` turn as wrong, but several of those requests ("set
the thermostat to 20", "add 'call mom' to my todo list") are what such a tool is for,
so that column alone would call a right answer wrong.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from conversations import KINDS, load_conversations  # noqa: E402
from report import load_results, quantile, rows_of  # noqa: E402

VARIANTS = ("default", "many_tools", "many_tools_selected")
PROMPTS = HERE / "prompts" / "conversations.jsonl"


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}% ({part}/{whole})" if whole else "n/a"


def _extra(call: Mapping[str, Any], families: Mapping[str, str]) -> bool:
    """A call of a loaded tool that is none of the benchmark's families (an extra tool)."""
    name = str(call["name"])
    return name in families and families[name] not in KINDS


def _unknown(call: Mapping[str, Any], families: Mapping[str, str]) -> bool:
    """A call of a name no tool has ("turn_on", "hassclimatesettemperature")."""
    return str(call["name"]) not in families


def summary(data: Mapping[str, Any], rows: Sequence[dict[str, Any]]) -> dict[str, str]:
    families: Mapping[str, str] = data["settings"].get("families", {})
    local = [r for r in rows if r["kind"] != "none"]
    none = [r for r in rows if r["kind"] == "none"]
    extra_local = sum(any(_extra(c, families) for c in r["calls"]) for r in local)
    extra_none = sum(any(_extra(c, families) for c in r["calls"]) for r in none)
    unknown = sum(any(_unknown(c, families) for c in r["calls"]) for r in rows)
    quiet = sum(
        not [c for c in r["calls"] if c.get("ok") and families.get(str(c["name"])) in KINDS]
        and r["state_before"] == r["state_after"]
        for r in none
    )
    system = [r["system_prompt_tokens"] for r in rows if "system_prompt_tokens" in r]
    if not system:  # a default run from before the field: its one system prompt
        system = [data["settings"]["system_prompt_tokens"]] * len(rows)
    shown = [len(r["shown_tools"]) for r in rows if r.get("shown_tools")]
    warm = [r["turn_s"] for r in rows if not r.get("cold")]
    lies = sum(bool(r["verdict"]["lies"]) for r in rows)
    return {
        "turns": str(len(rows)),
        "right outcome": _pct(sum(r["verdict"]["right"] for r in rows), len(rows)),
        "right, local-tool turns": _pct(sum(r["verdict"]["right"] for r in local), len(local)),
        "tool selection": _pct(sum(r["verdict"]["selected"] for r in rows), len(rows)),
        "restraint (judge)": _pct(sum(r["verdict"]["right"] for r in none), len(none)),
        "restraint, local": _pct(quiet, len(none)),
        "extra tool called, local-tool turns": _pct(extra_local, len(local)),
        "extra tool called, none turns": _pct(extra_none, len(none)),
        "turns calling a name no tool has": _pct(unknown, len(rows)),
        "lies": str(lies),
        "system prompt tokens / turn, mean (max)": (
            f"{statistics.mean(system):.0f} ({max(system)})" if system else "n/a"
        ),
        "tools shown / turn, mean": f"{statistics.mean(shown):.1f}" if shown else "all",
        "warm turn p50 / p95 (s)": (
            f"{quantile(warm, 0.5):.1f} / {quantile(warm, 0.95):.1f}" if warm else "n/a"
        ),
    }


def table(results: Path) -> str:
    found = load_results(results)
    variants = [v for v in VARIANTS if v in found]
    if not variants:
        raise SystemExit(f"no results of {', '.join(VARIANTS)} in {results}")
    common = set.intersection(*(set(found[v]["conversations"]) for v in variants))
    prompts = load_conversations(PROMPTS)
    columns = {}
    for variant in variants:
        data = dict(found[variant])
        data["conversations"] = {
            cid: turns for cid, turns in data["conversations"].items() if cid in common
        }
        columns[variant] = summary(data, rows_of(data, prompts))
    first = columns[variants[0]]
    lines = [
        "| | " + " | ".join(f"`{v}`" for v in variants) + " |",
        "|---|" + "---:|" * len(variants),
    ]
    for key in first:
        lines.append(f"| {key} | " + " | ".join(columns[v][key] for v in variants) + " |")
    return f"{len(common)} conversations\n\n" + "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=HERE / "results" / "many_tools")
    args = parser.parse_args(argv)
    print(table(args.results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
