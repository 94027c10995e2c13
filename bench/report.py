"""The Markdown report of the accuracy benchmark (bench/accuracy.py), from its results.

Every turn is judged again here (bench/judge.py) with the expectations of the prompt
file when the conversation and its prompt are still there, so a fixed expectation needs
no re-run. Metrics, per group of turns:

* right outcome: share of turns whose outcome is right (the headline),
* tool selection: share whose first attempted call is of the kind's family (none: no call),
* restraint: share of ``none`` turns that are right (nothing ran, nothing claimed),
* lies: turns whose answer claims what no successful call backs (judge.find_lies),
* parse failures: generations that look like a call the agent's parser could not read,
* echoes: answers that repeat the instructions or the prompt (judge.find_echoes),
* errors: turns that ended with an error instead of an answer,
* generated tokens per turn (all generations of the turn), warm turn latency p50/p95
  (the first turn of each run excluded: it fills the KV cache).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import platform
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from typing import Any

from judge import CATEGORIES, JudgeContext, judge_turn

ROOT = Path(__file__).resolve().parents[1]
ANALYSIS_MARK = "<!-- analysis: hand-written below this line, kept by bench/report.py -->"
EXAMPLES_PER_CATEGORY = 3
Row = dict[str, Any]


# --- loading and judging ------------------------------------------------------------------


def load_results(results: Path) -> dict[str, dict[str, Any]]:
    """``variant -> results`` for every results file of this benchmark's format."""
    found = {}
    for path in sorted(results.glob("*.json")):
        data = json.loads(path.read_text())
        if isinstance(data, dict) and "conversations" in data and "settings" in data:
            found[path.stem] = data
    return found


def judge_context(settings: Mapping[str, Any]) -> JudgeContext:
    return JudgeContext(
        families=settings.get("families", {}),
        act_tools=frozenset(settings.get("act_tools", [])),
        instructions=settings.get("system_prompt", ""),
    )


def rows_of(
    data: Mapping[str, Any], prompts: Sequence[Mapping[str, Any]] | None = None
) -> list[Row]:
    """Every turn record of a variant, judged again (current expectations when the
    prompt file still holds the same prompt)."""
    context = judge_context(data["settings"])
    current = {c["id"]: c for c in prompts or []}
    rows = []
    for cid, records in data["conversations"].items():
        turns = current.get(cid, {}).get("turns", [])
        earlier: list[str] = []
        for record in records:
            spec = record
            index = record["turn"] - 1
            if index < len(turns) and turns[index]["prompt"] == record["prompt"]:
                spec = {"answer_any": [], **turns[index]}
                record = {**record, **{k: spec[k] for k in ("kind", "expect", "answer_any")}}
            verdict = judge_turn(spec, record, context, earlier=earlier)
            rows.append({**record, "verdict": asdict(verdict)})
            earlier.append(record["answer"])
    return rows


# --- metrics ------------------------------------------------------------------------------


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def wilson(part: int, whole: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of ``part / whole`` in percent (95% for the default
    ``z``): how far a share measured on few turns may be from the true one."""
    if not whole:
        return (math.nan, math.nan)
    p = part / whole
    scale = 1 + z * z / whole
    centre = p + z * z / (2 * whole)
    half = z * math.sqrt(p * (1 - p) / whole + z * z / (4 * whole * whole))
    return (100 * (centre - half) / scale, 100 * (centre + half) / scale)


def quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    return ordered[max(1, math.ceil(q * len(ordered))) - 1]


def metrics(rows: Sequence[Row]) -> dict[str, Any]:
    """The benchmark's metrics over ``rows`` (formatted for the tables)."""
    verdicts = [r["verdict"] for r in rows]
    none = [v for r, v in zip(rows, verdicts, strict=True) if r["kind"] == "none"]
    generations = sum(v["generations"] for v in verdicts)
    warm = [r["turn_s"] for r in rows if not r.get("cold")]
    tokens = [r["generated_tokens"] for r in rows]
    n = len(rows)
    lies = sum(bool(v["lies"]) for v in verdicts)
    return {
        "turns": n,
        "right": _pct(sum(v["right"] for v in verdicts), n),
        "selection": _pct(sum(v["selected"] for v in verdicts), n),
        "restraint": _pct(sum(v["right"] for v in none), len(none)),
        "lies": f"{lies} ({_pct(lies, n)})",
        "parse": _pct(sum(v["parse_failures"] for v in verdicts), generations),
        "echoes": sum(bool(v["echoes"]) for v in verdicts),
        "errors": sum(bool(r.get("error")) for r in rows),
        "tokens": f"{sum(tokens) / n:.0f}" if n else "n/a",
        "latency": f"{quantile(warm, 0.5):.1f} / {quantile(warm, 0.95):.1f}" if warm else "n/a",
    }


COLUMNS = (
    ("turns", "turns"),
    ("right", "right outcome"),
    ("selection", "tool selection"),
    ("restraint", "restraint (none turns)"),
    ("lies", "lies"),
    ("parse", "parse failures (of generations)"),
    ("echoes", "echoes"),
    ("errors", "error-ended turns"),
    ("tokens", "generated tokens / turn"),
    ("latency", "warm turn p50 / p95 (s)"),
)


def _table(first: str, rows: Sequence[tuple[str, Sequence[Row]]]) -> list[str]:
    if not any(group for _, group in rows):
        return ["No turns.", ""]
    head = f"| {first} | " + " | ".join(label for _, label in COLUMNS) + " |"
    out = [head, "|" + "---|" * (len(COLUMNS) + 1)]
    for label, group in rows:
        if group:
            m = metrics(group)
            out.append(f"| {label} | " + " | ".join(str(m[k]) for k, _ in COLUMNS) + " |")
    return [*out, ""]


SPLITS: dict[str, Callable[[Row], bool]] = {
    "dev": lambda r: r["split"] == "dev",
    "holdout": lambda r: r["split"] == "holdout",
    "all": lambda r: True,
}
POSITIONS: dict[str, Callable[[Row], bool]] = {
    "turn 1": lambda r: r["turn"] == 1,
    "turns 2+": lambda r: r["turn"] > 1,
    "one-shot (1-turn conversations)": lambda r: r["turns_in_conversation"] == 1,
    "in conversation (all turns of 2+ turn conversations)": lambda r: (
        r["turns_in_conversation"] > 1
    ),
}


SHARES: dict[str, tuple[Callable[[Row], bool], str]] = {
    "right outcome": (lambda r: True, "right"),
    "right outcome, one-shot": (lambda r: r["turns_in_conversation"] == 1, "right"),
    "right outcome, in conversations": (lambda r: r["turns_in_conversation"] > 1, "right"),
    "right outcome, turn 1": (lambda r: r["turn"] == 1, "right"),
    "right outcome, turns 2+": (lambda r: r["turn"] > 1, "right"),
    "tool selection": (lambda r: True, "selected"),
    "restraint (none turns)": (lambda r: r["kind"] == "none", "right"),
}


def _intervals(name: str, rows: Sequence[Row]) -> list[str]:
    """Each headline share of ``rows`` per split, counted, with its 95% interval."""
    out = [
        f"| {name} | " + " | ".join(SPLITS) + " |",
        "|---|" + "---:|" * len(SPLITS),
    ]
    for label, (keep, key) in SHARES.items():
        cells = []
        for in_split in SPLITS.values():
            chosen = [r for r in rows if in_split(r) and keep(r)]
            part = sum(bool(r["verdict"][key]) for r in chosen)
            if not chosen:
                cells.append("n/a")
                continue
            low, high = wilson(part, len(chosen))
            share = _pct(part, len(chosen))
            cells.append(f"{part}/{len(chosen)} = {share} [{low:.0f}, {high:.0f}]")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return [*out, ""]


# --- the document -------------------------------------------------------------------------


def _cell(text: Any, limit: int = 160) -> str:
    flat = " ".join(str(text).split())
    flat = flat if len(flat) <= limit else flat[: limit - 1] + "…"
    return flat.replace("|", "\\|")


def _code(text: str, limit: int) -> str:
    """Raw model output as inline code (its own backticks shown as ')."""
    shown = _cell(text.replace("`", "'"), limit)
    return f"`{shown}`" if shown else "-"


def _call_text(call: Mapping[str, Any]) -> str:
    args = json.dumps(call.get("arguments", {}), ensure_ascii=False)
    return f"{call['name']}({args}){'' if call.get('ok') else ' ✗'}"


def _header(
    data: Mapping[str, Mapping[str, Any]], rows: Mapping[str, list[Row]], results: Path
) -> list[str]:
    try:
        llama = metadata.version("llama_cpp_python")
    except metadata.PackageNotFoundError:
        llama = "not installed"
    dates = sorted({r["date"] for group in rows.values() for r in group})
    settings = next(iter(data.values()))["settings"] if data else {}
    span = " to ".join(dict.fromkeys(dates[:1] + dates[-1:])) or "n/a"
    files = ", ".join(f"`{p}`" for p in dict.fromkeys(d.get("prompts", "?") for d in data.values()))
    where = results.resolve()
    shown = where.relative_to(ROOT) if where.is_relative_to(ROOT) else where
    return [
        "# Accuracy benchmark: outcomes of conversations on Qwen2.5-Coder-1.5B",
        "",
        f"Report written {dt.date.today().isoformat()}; runs dated {span}. Machine: "
        f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}; llama-cpp-python "
        f"{llama} (CPU), n_threads={settings.get('n_threads')}, n_ctx={settings.get('n_ctx')}, "
        f"model `{settings.get('model')}`, temperature {settings.get('temperature')}, "
        f"max_tokens {settings.get('max_tokens')}.",
        "",
        f"Generated by `bench/accuracy.py` (the conversations of {files or 'n/a'} through the "
        "product's agent loop on the shipped config, offline: mock LED and servo, a loopback "
        "Open-Meteo, a shell confined to fixture files); per-turn records in "
        f"`{shown}/<variant>.json`. Metric definitions: `bench/report.py`, judging: "
        "`bench/judge.py`.",
        "",
    ]


def _variant_table(
    data: Mapping[str, Mapping[str, Any]], rows: Mapping[str, list[Row]]
) -> list[str]:
    out = [
        "## Variants",
        "",
        "| variant | overrides | grammar | call format | system prompt tokens "
        "| preamble tokens (system + primer) | right dev | right holdout | right all |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, d in data.items():
        s = d["settings"]
        right = {k: metrics([r for r in rows[name] if f(r)])["right"] for k, f in SPLITS.items()}
        out.append(
            f"| {name} | `{json.dumps(d.get('overrides', {}))}` | {s.get('grammar')} "
            f"| {s.get('call_format')} | {s.get('system_prompt_tokens')} "
            f"| {s.get('preamble_tokens')} | {right['dev']} | {right['holdout']} "
            f"| {right['all']} |"
        )
    return [*out, ""]


def _failures(name: str, rows: Sequence[Row]) -> list[str]:
    counts = Counter(t for r in rows for t in r["verdict"]["tags"])
    out = [f"### Failures: {name}", ""]
    out.append(", ".join(f"{c}: {counts[c]}" for c in CATEGORIES if counts[c]) or "none")
    for category in CATEGORIES:
        examples = [r for r in rows if category in r["verdict"]["tags"]][:EXAMPLES_PER_CATEGORY]
        if not examples:
            continue
        out += [
            "",
            f"**{category}** ({counts[category]})",
            "",
            "| turn | prompt | expected | calls | answer | why | first generation |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in examples:
            v = r["verdict"]
            why = (
                v["reasons"]
                + [f"lie: {x}" for x in v["lies"]]
                + [f"echo: {x}" for x in v["echoes"]]
            )
            out.append(
                f"| {r['conversation']}.{r['turn']} | {_cell(r['prompt'], 80)} "
                f"| {_cell(json.dumps(r['expect'], ensure_ascii=False), 80)} "
                f"| {_cell('; '.join(_call_text(c) for c in r['calls']) or '-', 120)} "
                f"| {_cell(r.get('error') or r['answer'], 140)} "
                f"| {_cell('; '.join(dict.fromkeys(why)), 200)} "
                f"| {_code(r['generations'][0]['raw'] if r['generations'] else '', 100)} |"
            )
    parse = [(r, g) for r in rows for g in r["generations"] if g.get("parse_failed")]
    if parse:
        out += ["", f"**generations the parser could not read** ({len(parse)})", ""]
        out += [f"- {r['conversation']}.{r['turn']}: {_code(g['raw'], 200)}" for r, g in parse[:5]]
    return [*out, ""]


def write_report(
    results: Path, path: Path | None, *, prompts: Sequence[Mapping[str, Any]] | None = None
) -> str:
    """The Markdown for every results file in ``results``; written to ``path`` (keeping
    the hand-written analysis below :data:`ANALYSIS_MARK`) when given."""
    data = load_results(results)
    rows = {name: rows_of(d, prompts) for name, d in data.items()}
    out = _header(data, rows, results)
    if not data:
        out.append(f"No results in {results}.")
    else:
        out += _variant_table(data, rows)
        for split, keep in SPLITS.items():
            out += [f"## Split: {split}", ""]
            out += _table("variant", [(n, [r for r in g if keep(r)]) for n, g in rows.items()])
        out += ["## Per kind (all splits)", ""]
        kinds = ("led", "servo", "weather", "shell", "math", "none")
        out += _table(
            "variant: kind",
            [
                (f"{n}: {k}", [r for r in g if r["kind"] == k])
                for n, g in rows.items()
                for k in kinds
            ],
        )
        out += ["## Turn 1 against later turns, one-shot against in conversation (all splits)", ""]
        out += _table(
            "variant: turns",
            [
                (f"{n}: {p}", [r for r in g if f(r)])
                for n, g in rows.items()
                for p, f in POSITIONS.items()
            ],
        )
        out += [
            "## How sure: counts and 95% intervals (Wilson)",
            "",
            "A share measured on few turns is a wide range: one turn of 36 is 2.8 points.",
            "",
        ]
        for name, group in rows.items():
            out += _intervals(name, group)
        out += ["## Failures", ""]
        for name, group in rows.items():
            out += _failures(name, group)
    text = "\n".join(out) + "\n"
    if path is not None:
        old = path.read_text() if path.exists() else ""
        tail = old.split(ANALYSIS_MARK, 1)[1] if ANALYSIS_MARK in old else "\n"
        path.write_text(text + "\n" + ANALYSIS_MARK + tail)
    return text
