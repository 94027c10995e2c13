"""Judging and the Markdown report of the accuracy benchmark (bench/accuracy.py).

A prompt's expected ``args`` are a subset: every listed key must match, others are
free. Strings compare case- and accent-insensitively; colours compare as hex (``cyan``
== ``#00ffff``); numbers within the prompt's ``tolerance`` (default exact); ``match``
modes per key: ``contains`` (the expected text inside the actual, "Oslo" in "Oslo,
Norway"), ``program`` (same command word, and every further expected word appears),
``value`` (a math expression with the same value). ``alt_args`` lists other
acceptable argument sets. Missing arguments take their schema default first.
"""

from __future__ import annotations

import json
import math
import statistics
import tempfile
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DATE = "2026-11-22"  # the VM's clock says 2001; this is the real date of the run
MACHINE = "2-core x86_64 VM, no accelerator, llama-cpp-python 0.3.36 CPU build, n_threads=2"
ANALYSIS_MARK = "<!-- analysis: hand-written below this line, kept by bench/report.py -->"
MATCH_MODES = ("exact", "contains", "program", "value")
LABELS = {
    "default": "edgeagent default (concise manifest, json calls)",
    "verbose": "verbose manifest",
    "qwen": "qwen manifest (<tools> JSON lines)",
    "xml": "xml call format",
    "grammar": "json calls + grammar",
    "baseline": "baseline: Hailo example approach",
    "baseline+parser": "baseline prompt, edgeagent's parser (re-parsed, no re-run)",
    "xml+fix": "xml, re-parsed with `<parameter=k=v>` read as k=v (no re-run)",
}


def _fix_inline_parameters(arguments: dict[str, Any]) -> dict[str, Any]:
    """The proposed parser case: ``<parameter=color=red></parameter>`` means color=red."""
    from edgeagent.tools.calls import _xml_value

    fixed: dict[str, Any] = {}
    for key, value in arguments.items():
        key = key.removesuffix("</parameter").strip()
        if "=" in key and value in ("", None):
            key, _, inline = key.partition("=")
            value = _xml_value(inline)
        fixed[key.strip()] = value
    return fixed


def reparsed_xml(xml: dict[str, Any]) -> dict[str, Any]:
    """The xml variant's first generations re-read with the inline-value case added
    (first call only; the turn is not replayed)."""
    from edgeagent.tools.calls import get_call_format

    parse = get_call_format("xml").parse
    records = {}
    for key, record in xml["records"].items():
        parsed = parse(record["raw_first"])
        first = parsed.calls[0] if parsed.calls else None
        records[key] = {
            **record,
            "first_call": (
                {"name": first.name, "arguments": _fix_inline_parameters(first.arguments)}
                if first
                else None
            ),
        }
    return {"records": records, "settings": xml.get("settings", {})}


def reparsed_baseline(baseline: dict[str, Any]) -> dict[str, Any]:
    """The baseline's own first generations read by edgeagent's parser instead of the
    tags-only one: separates what the parser is worth from what the prompt is worth.
    (Selection and arguments only; no call ran, so latencies are the baseline's.)"""
    from edgeagent.tools.calls import get_call_format

    parse = get_call_format("json").parse
    records = {}
    for key, record in baseline["records"].items():
        parsed = parse(record["raw_first"])
        first = parsed.calls[0] if parsed.calls else None
        records[key] = {
            **record,
            "first_call": {"name": first.name, "arguments": first.arguments} if first else None,
            "parse_failures": int(bool(parsed.errors)),
        }
    return {"records": records, "settings": baseline.get("settings", {})}


def schema_defaults() -> dict[str, dict[str, Any]]:
    """Tool name -> {parameter: default} from the real first-party schemas."""
    from _offline import offline_tools

    with tempfile.TemporaryDirectory() as tmp, offline_tools(Path(tmp)) as offline:
        return {
            t.name: {k: v["default"] for k, v in _props(t.parameters).items() if "default" in v}
            for t in offline.tools.registry
        }


def _props(schema: dict[str, Any]) -> dict[str, Any]:
    return dict(schema.get("properties", {}))


def _norm(value: Any) -> str:
    text = unicodedata.normalize("NFKD", str(value))
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(text.casefold().split())


def _color(value: Any) -> str:
    from edgeagent_led.strip import to_hex

    try:
        return to_hex(str(value))
    except Exception:
        return _norm(value)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _math_value(expression: Any) -> float | None:
    from edgeagent_math.evaluator import evaluate

    try:
        return float(evaluate(str(expression)))
    except Exception:
        return None


def value_matches(key: str, expected: Any, actual: Any, *, mode: str, tolerance: float) -> bool:
    if mode == "value":
        want, got = _math_value(expected), _math_value(actual)
        if want is None or got is None:
            return False
        return abs(want - got) <= max(tolerance, 1e-9 * abs(want))
    if mode == "contains":
        return _norm(expected) in _norm(actual)
    if mode == "program":
        words = str(expected).split()
        got = str(actual).split()
        return bool(got) and got[0] == words[0] and all(w in str(actual) for w in words[1:])
    if isinstance(expected, bool):
        return actual is expected or _norm(actual) == str(expected).lower()
    if isinstance(expected, (int, float)):
        got_n = _number(actual)
        return got_n is not None and abs(got_n - expected) <= tolerance
    if key == "color":
        return _color(expected) == _color(actual)
    return _norm(expected) == _norm(actual)


def args_match(
    entry: dict[str, Any], actual: dict[str, Any], defaults: dict[str, Any] | None = None
) -> bool:
    actual = {**(defaults or {}), **actual}
    modes = entry.get("match", {})
    tolerances = entry.get("tolerance", {})
    for expected in [entry["args"], *entry.get("alt_args", [])]:
        if all(
            k in actual
            and value_matches(
                k, v, actual[k], mode=modes.get(k, "exact"), tolerance=tolerances.get(k, 0)
            )
            for k, v in expected.items()
        ):
            return True
    return False


def judge(
    entry: dict[str, Any], record: dict[str, Any], defaults: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    call = record.get("first_call")
    want = entry["tool"]
    selected = (call is None) if want is None else (call is not None and call["name"] == want)
    args_ok = bool(
        want is not None
        and selected
        and call is not None
        and args_match(entry, call["arguments"], defaults.get(want, {}))
    )
    if selected and (want is None or args_ok):
        category = "ok"
    elif record.get("parse_failures") and call is None:
        category = "parse failure (tried to call, nothing parsed)"
    elif want is None:
        category = "called a tool on a chat prompt"
    elif call is None:
        category = "no call (answered in text)"
    elif not selected:
        category = "wrong tool"
    else:
        category = "wrong arguments"
    return {"selected": selected, "args_ok": args_ok, "category": category}


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[rank - 1]


def summarize(
    prompts: list[dict[str, Any]],
    records: dict[str, Any],
    indices: Sequence[int],
    defaults: dict[str, dict[str, Any]],
    tool: str | None = "*",
) -> dict[str, Any] | None:
    """Metrics over ``indices`` (restricted to prompts for ``tool`` unless ``*``)."""
    rows = [
        (prompts[i], records[str(i)])
        for i in indices
        if str(i) in records and (tool == "*" or prompts[i]["tool"] == tool)
    ]
    if not rows:
        return None
    judged = [judge(e, r, defaults) for e, r in rows]
    tool_rows = [(e, j) for (e, _), j in zip(rows, judged, strict=True) if e["tool"]]
    chat = [(e, j) for (e, _), j in zip(rows, judged, strict=True) if not e["tool"]]
    picked = sum(j["selected"] for _, j in tool_rows)
    args_ok = sum(j["args_ok"] for _, j in tool_rows)
    no_call = [(e, r) for e, r in rows if r["first_call"] is None]
    warm = [r for _, r in rows if not r.get("cold")]
    return {
        "n": len(rows),
        "selection": _pct(sum(j["selected"] for j in judged), len(rows)),
        "args": _pct(args_ok, picked),
        "args_e2e": _pct(args_ok, len(tool_rows)),
        "no_tool_precision": _pct(sum(1 for e, _ in no_call if not e["tool"]), len(no_call)),
        "no_tool_recall": _pct(sum(j["selected"] for _, j in chat), len(chat)),
        "parse_fail": _pct(sum(1 for _, r in rows if r["parse_failures"]), len(rows)),
        "errors": sum(1 for _, r in rows if r.get("error")),
        "prompt_tokens": statistics.mean(r["prompt_tokens"] for _, r in rows),
        "ft50": _quantile([r["first_token_s"] for r in warm], 0.5),
        "ft95": _quantile([r["first_token_s"] for r in warm], 0.95),
        "t50": _quantile([r["turn_s"] for r in warm], 0.5),
        "t95": _quantile([r["turn_s"] for r in warm], 0.95),
        "categories": [j["category"] for j in judged],
    }


HEAD = (
    "| variant | prompts | tool selection | argument acc. (of correct tool) | args end-to-end "
    "| no-tool precision | no-tool recall | parse failures | turn errors | mean prompt tokens "
    "| first token p50 / p95 (s) | turn p50 / p95 (s) |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def _row(label: str, s: dict[str, Any]) -> str:
    return (
        f"| {label} | {s['n']} | {s['selection']} | {s['args']} | {s['args_e2e']} "
        f"| {s['no_tool_precision']} | {s['no_tool_recall']} | {s['parse_fail']} | {s['errors']} "
        f"| {s['prompt_tokens']:.0f} | {s['ft50']:.2f} / {s['ft95']:.2f} "
        f"| {s['t50']:.2f} / {s['t95']:.2f} |"
    )


def _failures(
    prompts: list[dict[str, Any]], records: dict[str, Any], defaults: dict[str, dict[str, Any]]
) -> list[str]:
    lines = []
    for key in sorted(records, key=int):
        entry, record = prompts[int(key)], records[key]
        verdict = judge(entry, record, defaults)
        if verdict["category"] == "ok":
            continue
        call = record["first_call"]
        args = json.dumps(call["arguments"], ensure_ascii=False) if call else ""
        got = f"`{call['name']}({args})`" if call else "-"
        raw = " ".join(record["raw_first"].split())[:90].replace("|", "\\|")
        want = f"`{entry['tool']}({json.dumps(entry['args'], ensure_ascii=False)})`"
        lines.append(
            f"| {key} | {entry['prompt']} | {want if entry['tool'] else '(no tool)'} | {got} "
            f"| {verdict['category']} | `{raw}` |"
        )
    return lines


def _categories(summary: dict[str, Any]) -> str:
    counts: dict[str, int] = {}
    for c in summary["categories"]:
        if c != "ok":
            counts[c] = counts.get(c, 0) + 1
    return ", ".join(f"{c}: {n}" for c, n in sorted(counts.items(), key=lambda x: -x[1])) or "none"


def write_report(
    prompts: list[dict[str, Any]], results: Path, path: Path | None, *, subset: Sequence[int]
) -> str:
    defaults = schema_defaults()
    data = {p.stem: json.loads(p.read_text()) for p in sorted(results.glob("*.json"))}
    everything = range(len(prompts))
    out = [
        "# Accuracy benchmark: tool calling on Qwen2.5-Coder-1.5B",
        "",
        f"Date: {DATE}. Machine: {MACHINE}. Model: qwen2.5-coder-1.5b-instruct-q4_k_m.gguf "
        "(llama.cpp in-process, temperature 0). Generated by `bench/accuracy.py` from "
        "`bench/prompts.jsonl`; per-prompt results in `bench/results/*.json`.",
        "",
        "Each prompt is a fresh conversation through the full agent loop (`Agent.run`) with "
        "the five first-party tools working offline (led/servo mock backends, weather "
        "against a loopback Open-Meteo-shaped server, shell confined to a temp dir, math). "
        "Selection is judged on the first tool call of the turn; arguments on that call. "
        "Latency percentiles exclude the cold first turn of each variant. Other engineers "
        "ran test suites on the same 2 cores during the run, so latencies are noisy "
        "(p95 especially); accuracy is deterministic (greedy decoding).",
        "",
    ]
    settings = data.get("default", {}).get("settings", {})
    if settings:
        out += [f"Generation budget per step: max_tokens = {settings.get('max_tokens')}.", ""]
    if "baseline" in data:
        data["baseline+parser"] = reparsed_baseline(data["baseline"])
    if "xml" in data:
        data["xml+fix"] = reparsed_xml(data["xml"])
    full = [(v, data[v]) for v in ("default", "baseline", "baseline+parser") if v in data]
    if full:
        out += ["## All prompts", "", HEAD]
        for name, d in full:
            s = summarize(prompts, d["records"], everything, defaults)
            if s:
                out.append(_row(LABELS[name], s))
        out.append("")
    # Compare on the subset prompts that every variant present has finished.
    subset_variants = ("default", "verbose", "qwen", "xml", "xml+fix", "grammar", "baseline")
    names = [v for v in subset_variants if v in data]
    common = [i for i in subset if all(str(i) in data[v]["records"] for v in names)]
    out += [f"## Variants on the fixed subset ({len(common)} prompts)", "", HEAD]
    for name in names:
        if name in data:
            s = summarize(prompts, data[name]["records"], common, defaults)
            if s:
                out.append(_row(LABELS[name], s))
    out.append("")
    for name, d in full:
        out += [f"## Per tool: {LABELS[name]}", "", HEAD.replace("| variant", "| tool")]
        for tool in ("led", "servo", "weather", "shell", "math", None):
            s = summarize(prompts, d["records"], everything, defaults, tool=tool)
            if s:
                out.append(_row(tool or "(no tool)", s))
        s = summarize(prompts, d["records"], everything, defaults)
        if s:
            out += ["", f"Failure categories: {_categories(s)}.", ""]
    out += ["## Cold first turn vs warm turns (KV prefix reuse)", ""]
    out += [
        "| variant | cold turn (s) | cold first token (s) | warm turn p50 (s) "
        "| warm first token p50 (s) | turn ratio | first-token ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, d in data.items():
        if "+" in name or name in ("servo_hint", "persona_hint"):
            continue
        recs = d["records"]
        colds = [r for r in recs.values() if r.get("cold")]
        warm = [r for r in recs.values() if not r.get("cold")]
        if not colds or not warm:
            continue
        ct, cf = colds[0]["turn_s"], colds[0]["first_token_s"]
        wt = _quantile([r["turn_s"] for r in warm], 0.5)
        wf = _quantile([r["first_token_s"] for r in warm], 0.5)
        out.append(
            f"| {name} (first turn after start) | {ct:.2f} | {cf:.2f} | {wt:.2f} | {wf:.2f} "
            f"| {ct / wt:.1f}x | {cf / wf:.1f}x |"
        )
    cold_runs = data.get("default", {}).get("cold_runs", {})
    pairs = [(k, v) for k, v in cold_runs.items() if "cold" in v]
    if pairs:
        out += [
            "",
            "Paired runs (default variant, model loaded, back to back): each prompt with the "
            "KV cache emptied, then another prompt, then the first prompt again, when only "
            "the system prompt is reusable, as for any new question:",
            "",
            "| prompt | cold turn (s) | warm turn (s) | cold first token (s) "
            "| warm first token (s) | tokens reused warm | turn ratio | first-token ratio |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for key, pair in sorted(pairs, key=lambda x: int(x[0])):
            cold, warm_r = pair["cold"], pair["warm"]
            out.append(
                f"| {prompts[int(key)]['prompt']} | {cold['turn_s']:.2f} | {warm_r['turn_s']:.2f} "
                f"| {cold['first_token_s']:.2f} | {warm_r['first_token_s']:.2f} "
                f"| {warm_r['reused_tokens']}/{warm_r['prompt_tokens']} "
                f"| {cold['turn_s'] / warm_r['turn_s']:.1f}x "
                f"| {cold['first_token_s'] / warm_r['first_token_s']:.1f}x |"
            )
    experiments = {
        "servo_hint": "servo description reworded to point relative requests at `move`",
        "persona_hint": "persona line telling the model to call a tool rather than describe it",
    }
    for name, what in experiments.items():
        if name not in data or "default" not in data:
            continue
        keys = [int(k) for k in data[name]["records"]]
        out += ["", f"## Experiment `{name}`: {what}", "", HEAD.replace("| variant", "| tool")]
        for tool in ("led", "servo", "weather", "shell", "math", None):
            for label, d in (("default", data["default"]), (name, data[name])):
                s = summarize(prompts, d["records"], keys, defaults, tool=tool)
                if s:
                    out.append(_row(f"{tool or '(no tool)'}: {label}", s))
    for name in ("default", "baseline"):
        if name in data:
            out += [
                "",
                f"## Failures: {LABELS[name]}",
                "",
                "| # | prompt | expected | first call | category | first generation (start) |",
                "|---|---|---|---|---|---|",
                *_failures(prompts, data[name]["records"], defaults),
            ]
    text = "\n".join(out) + "\n"
    if path is not None:
        old = path.read_text() if path.exists() else ""
        tail = old.split(ANALYSIS_MARK, 1)[1] if ANALYSIS_MARK in old else "\n"
        path.write_text(text + "\n" + ANALYSIS_MARK + tail)
    return text
