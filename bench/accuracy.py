"""Tool-calling accuracy of edgeagent on the real Qwen2.5-Coder-1.5B (llama.cpp, CPU).

Every prompt of bench/prompts.jsonl runs as a fresh conversation through the full agent
loop (``Agent.run``: generate, parse, validate, execute, feed back, answer) with the
five first-party tools working offline (bench/_offline.py). The engine stays loaded, so
the system prompt stays in the KV cache across prompts: the first turn of a variant is
cold, the others reuse the prefix.

Variants: ``default`` (concise manifest, json calls, no grammar), ``verbose``, ``qwen``
(manifest formats), ``xml`` (call format), ``grammar`` (constrained json calls), and
``baseline`` (Hailo's example approach, bench/baseline.py). ``default`` and
``baseline`` run on every prompt, the others on a fixed subset of 40.

    .venv/bin/python bench/accuracy.py [--variants default,baseline] [--limit N]
        [--report-only] [--write docs/benchmarks_accuracy.md]

Per-prompt results are cached in bench/results/<variant>.json; a re-run resumes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
for _folder in ("plugins", "simulators"):
    sys.path.append(str(ROOT / _folder))

from _offline import offline_tools  # noqa: E402
from baseline import as_request, build_baseline_prompt, parse_tagged, run_baseline_turn  # noqa: E402

from edgeagent.agent.events import ErrorEvent, FinalAnswer, ToolCallEvent  # noqa: E402
from edgeagent.compose import build_agent, build_executor  # noqa: E402
from edgeagent.llm.base import EngineStatus, GenerateRequest, InProcessLLM, Message  # noqa: E402
from edgeagent.llm.llamacpp import LlamaCppEngine  # noqa: E402
from edgeagent.tools.executor import ToolCall  # noqa: E402
from edgeagent.tools.registry import ToolRegistry  # noqa: E402

MODEL = Path("~/.cache/edgeagent/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf").expanduser()
PROMPTS = HERE / "prompts.jsonl"
RESULTS = HERE / "results"
DOC = ROOT / "docs" / "benchmarks_accuracy.md"
SUBSET_SIZE = 40
# name -> ([agent] settings, grammar on?)
AGENT_VARIANTS: dict[str, tuple[dict[str, str], bool]] = {
    "default": ({"manifest_format": "concise", "call_format": "json"}, False),
    "verbose": ({"manifest_format": "verbose", "call_format": "json"}, False),
    "qwen": ({"manifest_format": "qwen", "call_format": "json"}, False),
    "xml": ({"manifest_format": "concise", "call_format": "xml"}, False),
    "grammar": ({"manifest_format": "concise", "call_format": "json"}, True),
    "servo_hint": ({"manifest_format": "concise", "call_format": "json"}, False),
    "persona_hint": (
        {
            "manifest_format": "concise",
            "call_format": "json",
            "system_prompt": (
                "You are edgeagent, an assistant on a small device that controls real "
                "hardware. When a tool can do or answer what is asked (weather, arithmetic, "
                "files, system facts), call it: never describe how to use a tool, and do not "
                "answer such questions from memory."
            ),
        },
        False,
    ),
}
# Experiments (not in the default list): which prompts each runs on.
EXPERIMENTS: dict[str, tuple[str | None, ...]] = {
    "servo_hint": ("servo",),
    "persona_hint": ("weather", "math", "shell", None),
}
ALL_VARIANTS = ("default", "baseline", "grammar", "xml", "qwen", "verbose")
KNOWN_VARIANTS = (*ALL_VARIANTS, *EXPERIMENTS)
# An experiment, not a product setting: the servo description reworded so that relative
# requests ("10 degrees to the left", "by 5", "a bit more") point at ``move``. Runs on
# the servo prompts only.
SERVO_HINT = (
    "Point the servo. Absolute position: angle (-90..90, 0 = center). Relative request "
    "('N degrees left/right', 'by N', 'a bit', 'back'): move (+right, -left), not angle."
)
FULL_VARIANTS = frozenset({"default", "baseline"})
_ATTEMPT = re.compile(r"\"name\"\s*:.*\"(arguments|parameters)\"\s*:", re.DOTALL)

log = logging.getLogger("bench.accuracy")


def load_prompts(path: Path = PROMPTS) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def subset_indices(n: int, size: int = SUBSET_SIZE) -> list[int]:
    """A fixed, evenly spread subset (the file is grouped by tool, so this stratifies)."""
    if n <= size:
        return list(range(n))
    return sorted({round(i * (n - 1) / (size - 1)) for i in range(size)})


def subset_run_order(n: int, size: int = SUBSET_SIZE) -> list[int]:
    """The subset in the order variants run it: every prefix is spread over all tools,
    so a variant cut short by the time budget is still compared fairly (on the
    prompts every variant finished)."""
    chosen = subset_indices(n, size)
    order: list[int] = []
    for step in (4, 2, 1):
        order += [i for k, i in enumerate(chosen) if k % step == 0 and i not in order]
    return order


def looks_like_attempt(raw: str) -> bool:
    return bool(_ATTEMPT.search(raw)) or "<tool_call" in raw or "<function=" in raw


# --- timing ---------------------------------------------------------------------------


class TimedLLM:
    """An InProcessLLM that records each generation's timing, tokens and raw text."""

    def __init__(self, engine: LlamaCppEngine) -> None:
        self.engine = engine
        self.inner = InProcessLLM(engine)
        self.generations: list[dict[str, Any]] = []

    async def stream(self, request: GenerateRequest) -> AsyncIterator[str]:
        start = time.perf_counter()
        first: float | None = None
        pieces: list[str] = []
        try:
            async for piece in self.inner.stream(request):
                if first is None:
                    first = time.perf_counter() - start
                pieces.append(piece)
                yield piece
        finally:
            stats = self.engine.stats
            self.generations.append(
                {
                    "first_token_s": first,
                    "total_s": time.perf_counter() - start,
                    "prompt_tokens": stats.prompt_tokens,
                    "reused_tokens": stats.reused_tokens,
                    "evaluated_tokens": stats.evaluated_tokens,
                    "generated_tokens": stats.generated_tokens,
                    "raw": "".join(pieces),
                }
            )

    async def count_tokens(self, messages: Sequence[Message]) -> int:
        return await self.inner.count_tokens(messages)

    async def status(self) -> EngineStatus:
        return await self.inner.status()

    async def aclose(self) -> None:
        pass  # the benchmark closes the engine itself

    def forget_cache(self) -> None:
        """Make the next turn cold: nothing of the KV cache is reusable."""
        assert self.engine._llm is not None
        self.engine._llm.n_tokens = 0


# --- running --------------------------------------------------------------------------


async def run_agent_prompt(agent: Any, llm: TimedLLM, prompt: str) -> dict[str, Any]:
    llm.generations = []
    conversation = agent.new_conversation()
    start = time.perf_counter()
    calls: list[dict[str, Any]] = []
    answer, error = "", ""
    async for event in agent.run(prompt, conversation=conversation, frontend="bench"):
        if isinstance(event, ToolCallEvent):
            calls.append({"name": event.name, "arguments": event.arguments})
        elif isinstance(event, FinalAnswer):
            answer = event.text
        elif isinstance(event, ErrorEvent):
            error = event.message
    turn_s = time.perf_counter() - start
    parse_failures = 0
    for gen in llm.generations:
        parsed = agent.call_format.parse(gen["raw"])
        if parsed.errors or (not parsed.calls and looks_like_attempt(gen["raw"])):
            parse_failures += 1
    return _record(llm.generations, calls, answer, error, turn_s, parse_failures)


async def run_baseline_prompt(
    llm: TimedLLM, executor: Any, system_prompt: str, prompt: str, max_tokens: int
) -> dict[str, Any]:
    llm.generations = []

    async def generate(messages: list[Message], budget: int) -> str:
        return "".join([p async for p in llm.stream(as_request(messages, budget))])

    async def execute(call: ToolCall) -> dict[str, Any]:
        result = await executor.execute(call, frontend="bench")
        return result.to_dict()

    start = time.perf_counter()
    turn = await run_baseline_turn(
        prompt,
        system_prompt=system_prompt,
        generate=generate,
        execute=execute,
        max_tokens=max_tokens,
    )
    turn_s = time.perf_counter() - start
    parse_failures = 0
    for raw in turn.raws[:1]:  # the second generation is the answer, never parsed
        parsed = parse_tagged(raw)
        if parsed.errors or (not parsed.calls and looks_like_attempt(raw)):
            parse_failures += 1
    calls = [{"name": c["name"], "arguments": c["arguments"]} for c in turn.calls]
    return _record(llm.generations, calls, turn.answer, "", turn_s, parse_failures)


def _record(
    gens: list[dict[str, Any]],
    calls: list[dict[str, Any]],
    answer: str,
    error: str,
    turn_s: float,
    parse_failures: int,
) -> dict[str, Any]:
    first = gens[0] if gens else {}
    return {
        "first_call": calls[0] if calls else None,
        "n_calls": len(calls),
        "answer": answer[:300],
        "error": error[:300],
        "turn_s": round(turn_s, 3),
        "first_token_s": round(first.get("first_token_s") or first.get("total_s", 0.0), 3),
        "prompt_tokens": first.get("prompt_tokens", 0),
        "reused_tokens": first.get("reused_tokens", 0),
        "generated_tokens": sum(g["generated_tokens"] for g in gens),
        "generations": len(gens),
        "parse_failures": parse_failures,
        "raw_first": first.get("raw", "")[:400],
    }


def _load_cache(variant: str) -> dict[str, Any]:
    path = RESULTS / f"{variant}.json"
    if path.exists():
        return dict(json.loads(path.read_text()))
    return {"variant": variant, "records": {}, "cold_runs": {}}


def _save_cache(variant: str, data: dict[str, Any]) -> None:
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{variant}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True))
    tmp.replace(path)


async def run_variant(
    variant: str,
    prompts: list[dict[str, Any]],
    indices: list[int],
    *,
    engine: LlamaCppEngine,
    workdir: Path,
    max_tokens: int,
    cold_samples: int,
) -> None:
    data = _load_cache(variant)
    records: dict[str, Any] = data["records"]
    todo = [i for i in indices if str(i) not in records]
    cold_todo = [i for i in indices[:cold_samples] if str(i) not in data["cold_runs"]]
    if not todo and not cold_todo:
        return
    llm = TimedLLM(engine)
    settings, grammar = AGENT_VARIANTS.get(variant, ({}, False))
    with offline_tools(workdir, **settings) as offline:
        config = offline.config
        config.llm.max_tokens = max_tokens
        config.llm.temperature = 0.0
        config.llm.llamacpp.grammar = grammar
        registry = offline.tools.registry
        if variant == "servo_hint":
            registry = ToolRegistry(
                replace(t, description=SERVO_HINT) if t.name == "servo" else t for t in registry
            )
        executor = build_executor(config, registry)
        system_prompt = build_baseline_prompt()
        agent = None
        if variant != "baseline":
            agent = build_agent(config, llm=llm, executor=executor, registry=registry)
            system_prompt = agent.system_prompt
        data["settings"] = {
            "max_tokens": max_tokens,
            "grammar": grammar,
            **settings,
            "system_prompt": system_prompt,
        }

        async def one(i: int) -> dict[str, Any]:
            prompt = prompts[i]["prompt"]
            if agent is None:
                return await run_baseline_prompt(llm, executor, system_prompt, prompt, max_tokens)
            return await run_agent_prompt(agent, llm, prompt)

        llm.forget_cache()
        for n, i in enumerate(todo):
            record = await one(i)
            record["cold"] = n == 0
            records[str(i)] = record
            _save_cache(variant, data)
            call = record["first_call"]
            log.info(
                "%s %3d/%d #%d %.1fs %s -> %s",
                variant,
                n + 1,
                len(todo),
                i,
                record["turn_s"],
                prompts[i]["prompt"][:40],
                f"{call['name']}{json.dumps(call['arguments'])}" if call else "(no call)",
            )
        # Paired runs, back to back so that machine load hits both alike: the prompt with
        # nothing reusable in the KV cache; then another prompt, so that only the system
        # prompt stays reusable (as for a new question); then the first prompt again.
        for i in cold_todo:
            llm.forget_cache()
            cold = await one(i)
            await one(indices[-1] if i != indices[-1] else indices[0])
            data["cold_runs"][str(i)] = {"cold": cold, "warm": await one(i)}
            _save_cache(variant, data)


def main(argv: list[str] | None = None) -> int:
    from report import write_report

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", default=",".join(ALL_VARIANTS))
    parser.add_argument("--limit", type=int, default=None, help="only the first N prompts")
    parser.add_argument("--max-tokens", type=int, default=160)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cold-samples", type=int, default=3)
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--write", type=Path, default=DOC)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    logging.getLogger("edgeagent").setLevel(logging.ERROR)
    prompts = load_prompts()
    n = min(args.limit or len(prompts), len(prompts))
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = sorted(set(variants) - set(KNOWN_VARIANTS))
    if unknown:
        parser.error(f"unknown variants {unknown}; choose from {', '.join(KNOWN_VARIANTS)}")
    if not args.report_only:
        engines: dict[bool, LlamaCppEngine] = {}

        def engine_for(plain: bool) -> LlamaCppEngine:
            if plain not in engines:
                for other in list(engines):
                    engines.pop(other).close()
                engines[plain] = LlamaCppEngine(
                    model_path=MODEL, n_ctx=4096, n_threads=args.threads, plain_markers=plain
                )
            return engines[plain]

        try:
            with tempfile.TemporaryDirectory(prefix="edgeagent-bench-") as tmp:
                for variant in variants:
                    full = variant in FULL_VARIANTS
                    indices = list(range(n)) if full else subset_run_order(len(prompts))
                    if variant in EXPERIMENTS:
                        wanted = EXPERIMENTS[variant]
                        indices = [i for i, p in enumerate(prompts[:n]) if p["tool"] in wanted]
                    indices = [i for i in indices if i < n]
                    asyncio.run(
                        run_variant(
                            variant,
                            prompts,
                            indices,
                            engine=engine_for(variant != "baseline"),
                            workdir=Path(tmp) / variant,
                            max_tokens=args.max_tokens,
                            cold_samples=args.cold_samples if variant == "default" else 0,
                        )
                    )
        finally:
            for engine in engines.values():
                engine.close()
    text = write_report(prompts, RESULTS, args.write, subset=subset_indices(len(prompts)))
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
