"""How many Qwen tokens the system prompt costs in each manifest format.

Counts the full system prompt (persona + manifest + call instructions + rules) and the
manifest alone, for the five first-party plugins (led, servo, weather, shell, math),
with Qwen2.5-Coder-1.5B's own tokenizer, and checks the targets: the default (concise)
prompt within 600 tokens, and the concise manifest at least 50% smaller than verbose.

    .venv/bin/python bench/manifest_tokens.py [--write docs/benchmarks_manifest.md]

The real plugins are measured; if one does not load, the benchmark stops and says why.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
from collections.abc import Callable
from pathlib import Path

from edgeagent.agent.prompt import build_system_prompt, render_manifest_text
from edgeagent.compose import build_tools
from edgeagent.config import Config
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.tool import Tool

FIRST_PARTY = ("led", "servo", "weather", "shell", "math")
MODEL = Path("~/.cache/edgeagent/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf").expanduser()
PROMPT_LIMIT = 600
# (label, manifest format, render options)
ROWS: list[tuple[str, str, dict[str, bool]]] = [
    ("verbose", "verbose", {}),
    ("concise (default)", "concise", {}),
    ("concise + param descriptions", "concise", {"param_descriptions": True}),
    ("qwen", "qwen", {}),
    ("openai (as JSON lines)", "openai", {}),
    ("anthropic (as JSON lines)", "anthropic", {}),
]


def load_tools() -> list[Tool]:
    """The first-party tools, from the installed plugins (led/servo on mock backends)."""
    config = Config.model_validate(
        {
            "plugins": {"led": {"backend": "mock"}, "servo": {"backend": "mock"}},
            "tools": {"wrapped_dir": None},
        }
    )
    toolset = build_tools(config)
    try:
        missing = {
            p: toolset.report.failed.get(p, "not installed")
            for p in FIRST_PARTY
            if p not in toolset.report.loaded
        }
        if missing:
            sys.exit(f"first-party plugins did not load: {missing}; run scripts/bootstrap.sh")
        return sorted(
            (t for t in toolset.registry if t.plugin in FIRST_PARTY), key=lambda t: t.name
        )
    finally:
        toolset.close()


def qwen_counter() -> Callable[[str], int]:
    from llama_cpp import Llama

    llm = Llama(model_path=str(MODEL), vocab_only=True, verbose=False)

    def count(text: str) -> int:
        return len(llm.tokenize(text.encode(), add_bos=False, special=False))

    return count


def measure(tools: list[Tool], count: Callable[[str], int]) -> list[tuple[str, int, int]]:
    """(label, manifest tokens, system prompt tokens) per row."""
    call_format = get_call_format("json")
    rows = []
    for label, fmt, options in ROWS:
        manifest = render_manifest_text(tools, fmt, **options)
        prompt = build_system_prompt(
            tools, manifest_format=fmt, call_format=call_format, manifest_options=options
        )
        rows.append((label, count(manifest), count(prompt)))
    return rows


def report(tools: list[Tool], rows: list[tuple[str, int, int]]) -> str:
    by_label = {label: (m, p) for label, m, p in rows}
    verbose_m = by_label["verbose"][0]
    lines = [
        f"Tools: {', '.join(t.name for t in tools)} ({len(tools)} tools from {len(FIRST_PARTY)} "
        f"plugins)",
        "Tokenizer: Qwen2.5-Coder-1.5B-Instruct GGUF (llama.cpp, special=False)",
        "",
        "| format | manifest tokens | system prompt tokens | manifest vs verbose |",
        "|---|---:|---:|---:|",
    ]
    for label, m, p in rows:
        lines.append(f"| {label} | {m} | {p} | {m / verbose_m:.0%} |")
    concise_m, concise_p = by_label["concise (default)"]
    lines += [
        "",
        f"- Default prompt (concise) within {PROMPT_LIMIT} tokens: "
        f"{'MET' if concise_p <= PROMPT_LIMIT else 'NOT MET'} ({concise_p} tokens)",
        f"- Concise manifest >= 50% smaller than verbose: "
        f"{'MET' if concise_m <= verbose_m / 2 else 'NOT MET'} "
        f"({1 - concise_m / verbose_m:.0%} smaller)",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", type=Path, help="also write the results as Markdown here")
    args = parser.parse_args()
    if not MODEL.is_file():
        sys.exit(f"{MODEL} is missing; fetch it first (edgeagent model fetch qwen-coder-1.5b)")
    tools = load_tools()
    text = report(tools, measure(tools, qwen_counter()))
    print(text)
    if args.write:
        header = (
            "# Manifest token benchmark\n\n"
            f"Date: {datetime.date.today().isoformat()}. Machine: `uname -m` = "
            f"{platform.machine()}, 2-core x86_64 VM. Command: "
            "`.venv/bin/python bench/manifest_tokens.py --write docs/benchmarks_manifest.md`\n\n"
        )
        args.write.write_text(header + text + "\n", encoding="utf-8")
        print(f"written to {args.write}")


if __name__ == "__main__":
    main()
