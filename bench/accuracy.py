"""Outcome-scored accuracy of edgeagent on the real Qwen2.5-Coder-1.5B (llama.cpp, CPU).

Each conversation of the prompt file (bench/conversations.py describes the format) runs
in one agent ``Conversation``, turn after turn, through the product's own agent loop,
assembled by ``edgeagent.compose.build_runtime`` (as the daemon and ``edgeagent chat``
are) from the shipped ``config/edgeagent.toml`` made offline (bench/_offline.py).
Before a conversation the LED and the servo are put in its start state, and before and
after every turn their state is read, all through the tools themselves. bench/judge.py
scores each turn by what a user would notice; bench/report.py writes the Markdown.

    .venv/bin/python bench/accuracy.py [--prompts bench/prompts/conversations.jsonl]
        [--split dev|holdout|all] [--limit N] [--only c001,c007] [--variants default,grammar]
        [--resume] [--results bench/results] [--write docs/benchmarks_accuracy.md]
        [--report-only] [--pause SECONDS]

``--pause`` waits before each turn, as a person reading the last answer and typing the
next prompt does; the model is idle meanwhile, and ``[agent] read_ahead`` uses that time.
A turn's time is still measured from its prompt to its answer.

Variants ``many_tools`` and ``many_tools_selected`` load the 32 remote-style tools of
bench/extra_tools.py too, without and with tool selection; bench/selection_report.py
compares them.

One model stays loaded across conversations and variants (greedy, n_threads 2). Each
variant's turn records go to ``<results>/<variant>.json``: a run starts that file
afresh, ``--resume`` skips the conversations it holds, ``--only`` reruns the named ones
and keeps the rest.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import logging
import re
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _offline import Overrides, flip, offline_tools  # noqa: E402
from conversations import KINDS, load_conversations, start_state  # noqa: E402
from extra_tools import add_extra_tools  # noqa: E402
from judge import JudgeContext, judge_turn  # noqa: E402

from edgeagent.agent.events import ErrorEvent, FinalAnswer, ToolCallEvent, ToolResultEvent  # noqa: E402
from edgeagent.compose import build_runtime  # noqa: E402
from edgeagent.config import Config  # noqa: E402
from edgeagent.llm.base import Engine, EngineStatus, GenerateRequest, InProcessLLM, Message  # noqa: E402
from edgeagent.llm.select import EngineSpec, create_engine, select_engine_spec  # noqa: E402
from edgeagent.tools.executor import ToolCall, ToolExecutor  # noqa: E402
from edgeagent.tools.registry import ToolRegistry  # noqa: E402

PROMPTS = HERE / "prompts" / "conversations.jsonl"
RESULTS = HERE / "results"
THREADS = 2

# A variant: overrides on top of the shipped config, as nested TOML tables. A leaf may be
# a function of the shipped value (``flip``). A key the config lacks fails loudly.
VARIANTS: dict[str, Overrides] = {
    "default": {},
    "grammar": {"llm": {"llamacpp": {"grammar": flip}}},
    # 32 remote-style tools loaded besides the shipped ones (bench/extra_tools.py): all
    # of them in every prompt, or the shipped tool selection ([agent] max_manifest_tokens).
    "many_tools": {"agent": {"max_manifest_tokens": 0}},
    "many_tools_selected": {},
    # The selected remote tools in a message after the primer, not in the system prompt.
    "many_tools_after_primer": {"agent": {"selected_tools": "after_primer"}},
}
DEFAULT_VARIANTS = ("default", "grammar")
WITH_EXTRA_TOOLS = frozenset({"many_tools", "many_tools_selected", "many_tools_after_primer"})

_ATTEMPT = (
    re.compile(r"[\"']name[\"']\s*:.*[\"'](arguments|parameters)[\"']\s*:", re.DOTALL),
    re.compile(r"<tool_call|<function="),
    re.compile(r"```json\s*\{[^`]*[\"']name[\"']\s*:", re.DOTALL),
)

log = logging.getLogger("bench.accuracy")


def looks_like_attempt(raw: str) -> bool:
    """A generation that tries to call a tool, whatever the parser makes of it."""
    return any(p.search(raw) for p in _ATTEMPT)


# --- the model ----------------------------------------------------------------------------


class TimedLLM:
    """An in-process LLM that records each generation's timing, tokens and raw text."""

    def __init__(self, engine: Engine, *, generated_tokens: Callable[[], int]) -> None:
        self.inner = InProcessLLM(engine)
        self.generated_tokens = generated_tokens
        self.generations: list[dict[str, Any]] = []

    async def stream(self, request: GenerateRequest) -> AsyncIterator[str]:
        if request.ahead:  # between turns, not a generation of the turn
            async for piece in self.inner.stream(request):
                yield piece
            return
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
            self.generations.append(
                {
                    "raw": "".join(pieces),
                    "generated_tokens": self.generated_tokens(),
                    "first_token_s": round(first if first is not None else 0.0, 3),
                    "total_s": round(time.perf_counter() - start, 3),
                }
            )

    async def count_tokens(self, messages: Sequence[Message]) -> int:
        return await self.inner.count_tokens(messages)

    async def status(self) -> EngineStatus:
        return await self.inner.status()

    async def start(self) -> None:
        await self.inner.start()

    @property
    def alive(self) -> bool:
        return self.inner.alive

    @property
    def restarts(self) -> int:
        return self.inner.restarts

    @property
    def pid(self) -> int | None:
        return self.inner.pid

    async def aclose(self) -> None:
        pass  # the benchmark closes the engine itself


class Engines:
    """One loaded llama.cpp model, reopened only when a variant needs other options."""

    def __init__(self, *, threads: int) -> None:
        self.threads = threads
        self._spec: EngineSpec | None = None
        self._engine: Any = None

    def for_config(self, config: Config) -> TimedLLM:
        # The engine [llm] describes, built as the model worker builds it, but in this
        # process (to read its token counts) and with the benchmark's thread count.
        llamacpp = config.model_copy(
            update={"llm": config.llm.model_copy(update={"backend": "llamacpp"})}
        )
        spec = select_engine_spec(llamacpp)
        spec = EngineSpec(spec.backend, {**spec.options, "n_threads": self.threads})
        if spec != self._spec:
            self.close()
            self._engine = create_engine(spec)
            self._spec = spec
        engine = self._engine
        return TimedLLM(engine, generated_tokens=lambda: engine.stats.generated_tokens)

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()
        self._engine, self._spec = None, None


# --- devices, through the tools -----------------------------------------------------------


async def call_tool(executor: ToolExecutor, name: str, arguments: dict[str, Any]) -> Any:
    result = await executor.execute(ToolCall(name, arguments), frontend="bench")
    if not result.ok:
        raise RuntimeError(f"the benchmark's own call {name}({arguments}) failed: {result.error}")
    return result.result


async def set_state(executor: ToolExecutor, start: Mapping[str, Mapping[str, Any]]) -> None:
    led = start["led"]
    await call_tool(
        executor, "led", {"on": led["on"], "color": led["color"], "brightness": led["brightness"]}
    )
    await call_tool(executor, "servo", {"angle": start["servo"]["angle"]})


async def read_state(executor: ToolExecutor) -> dict[str, Any]:
    return {
        "led": await call_tool(executor, "led_state", {}),
        "servo": await call_tool(executor, "servo_state", {}),
    }


# --- running ------------------------------------------------------------------------------


@dataclass
class Bench:
    """What one variant runs with."""

    agent: Any
    executor: ToolExecutor
    llm: TimedLLM
    context: JudgeContext
    pause_s: float = 0.0
    """Before each turn: a person reading the last answer and typing the next prompt."""


def judge_context(registry: ToolRegistry, system_prompt: str) -> JudgeContext:
    families = {}
    for tool in registry:
        wrapped = tool.extra.get("wrapped")
        if wrapped == "shell":
            families[tool.name] = "shell"
        else:
            families[tool.name] = tool.plugin if tool.plugin in KINDS else tool.name
    act = frozenset(t.name for t in registry if t.kind == "act")
    return JudgeContext(families=families, act_tools=act, instructions=system_prompt)


async def run_turn(bench: Bench, conversation: Any, prompt: str) -> dict[str, Any]:
    """One agent turn; the record of what happened (devices read before and after)."""
    before = await read_state(bench.executor)
    bench.llm.generations = []
    calls: list[dict[str, Any]] = []
    answer, error = "", None
    start = time.perf_counter()
    async for event in bench.agent.run(prompt, conversation=conversation, frontend="bench"):
        if isinstance(event, ToolCallEvent):
            calls.append({"name": event.name, "arguments": event.arguments, "step": event.step})
        elif isinstance(event, ToolResultEvent):
            calls[-1].update(ok=event.ok, result=event.result, error=event.error)
        elif isinstance(event, FinalAnswer):
            answer = event.text
        elif isinstance(event, ErrorEvent):
            error = event.message
    turn_s = time.perf_counter() - start
    system = conversation.messages[0]
    selection = conversation.selection
    for gen in bench.llm.generations:
        parsed = bench.agent.call_format.parse(gen["raw"])
        gen["attempt"] = looks_like_attempt(gen["raw"])
        gen["parse_failed"] = gen["attempt"] and (not parsed.calls or bool(parsed.errors))
    return {
        "date": dt.date.today().isoformat(),
        "state_before": before,
        "state_after": await read_state(bench.executor),
        "calls": calls,
        "answer": answer,
        "error": error,
        "turn_s": round(turn_s, 3),
        "system_prompt_tokens": await bench.llm.count_tokens([system]),
        "shown_tools": None if selection is None else list(selection.names),
        "generated_tokens": sum(g["generated_tokens"] for g in bench.llm.generations),
        "generations": bench.llm.generations,
    }


async def run_conversation(bench: Bench, spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every turn of one conversation, in one agent Conversation, judged."""
    await set_state(bench.executor, start_state(spec))
    conversation = bench.agent.new_conversation(f"bench-{spec['id']}")
    records: list[dict[str, Any]] = []
    for number, turn in enumerate(spec["turns"], start=1):
        await asyncio.sleep(bench.pause_s)
        record = {
            "conversation": spec["id"],
            "split": spec["split"],
            "turn": number,
            "turns_in_conversation": len(spec["turns"]),
            "prompt": turn["prompt"],
            "kind": turn["kind"],
            "expect": turn["expect"],
            "answer_any": turn.get("answer_any", []),
            **await run_turn(bench, conversation, turn["prompt"]),
        }
        earlier = [r["answer"] for r in records]
        record["verdict"] = asdict(judge_turn(turn, record, bench.context, earlier=earlier))
        records.append(record)
    return records


def _load_results(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text()) if path.exists() else {}
    return data if "conversations" in data else {"conversations": {}}


def _save_results(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1, default=str))
    tmp.replace(path)


def _describe_overrides(overrides: Overrides) -> Any:
    return json.loads(json.dumps(overrides, default=lambda f: f"<{f.__name__}>"))


async def _settings(bench: Bench, config: Config, threads: int | None) -> dict[str, Any]:
    """What the results were produced with (the report's judge reads some of it)."""
    agent, llm = bench.agent, bench.llm
    preamble = agent.new_conversation("bench-preamble").messages
    system: list[Message] = [{"role": "system", "content": agent.system_prompt}]
    return {
        "model": config.llm.model,
        "max_tokens": config.llm.max_tokens,
        "temperature": config.llm.temperature,
        "n_ctx": config.llm.llamacpp.n_ctx,
        "n_threads": threads,
        "grammar": agent.grammar is not None,
        "read_ahead": agent.read_ahead,
        "pause_s": bench.pause_s,
        "call_format": agent.call_format.name,
        "system_prompt": agent.system_prompt,
        "system_prompt_tokens": await llm.count_tokens(system),
        "preamble": preamble,
        "preamble_tokens": await llm.count_tokens(preamble),
        "families": dict(bench.context.families),
        "act_tools": sorted(bench.context.act_tools),
    }


async def run_variant(
    variant: str,
    conversations: Sequence[Mapping[str, Any]],
    *,
    llm_for: Callable[[Config], TimedLLM],
    results: Path,
    mode: str,
    threads: int | None = None,
    prompts_file: str = "",
    pause_s: float = 0.0,
) -> None:
    """Run ``conversations`` under ``variant`` with the model ``llm_for`` gives; ``mode``:
    fresh | resume | only (see the module docstring)."""
    path = results / f"{variant}.json"
    data = {"conversations": {}} if mode == "fresh" else _load_results(path)
    done: dict[str, Any] = data["conversations"]
    todo = [c for c in conversations if mode != "resume" or c["id"] not in done]
    async with contextlib.AsyncExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="edgeagent-bench-"))
        offline = stack.enter_context(offline_tools(Path(tmp), VARIANTS[variant]))
        config, registry, llm = offline.config, offline.tools.registry, llm_for(offline.config)
        if variant in WITH_EXTRA_TOOLS:
            add_extra_tools(registry)
        runtime = await stack.enter_async_context(
            build_runtime(config, tools=offline.tools, llm=llm)
        )
        agent, executor = runtime.agent, runtime.executor
        context = judge_context(registry, agent.system_prompt)
        bench = Bench(agent, executor, llm, context, pause_s=pause_s)
        data.update(
            variant=variant,
            prompts=prompts_file,
            overrides=_describe_overrides(VARIANTS[variant]),
            settings=await _settings(bench, config, threads),
        )
        for n, spec in enumerate(todo, start=1):
            records = await run_conversation(bench, spec)
            if n == 1:
                records[0]["cold"] = True  # the first turn of a run fills the KV cache
            done[spec["id"]] = records
            _save_results(path, data)
            for r in records:
                log.info(
                    "%s %d/%d %s.%d %-7s %s %.1fs %s -> %s",
                    variant, n, len(todo), spec["id"], r["turn"], r["kind"],
                    "ok " if r["verdict"]["right"] else "BAD", r["turn_s"],
                    r["prompt"][:40], ", ".join(c["name"] for c in r["calls"]) or "-",
                )  # fmt: skip


def _shown(path: Path) -> str:
    """``path`` relative to the repository when it is inside it."""
    path = path.resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def select(
    conversations: Sequence[dict[str, Any]], *, split: str, limit: int | None, only: str | None
) -> list[dict[str, Any]]:
    chosen = [c for c in conversations if split == "all" or c["split"] == split]
    if only:
        wanted = {i.strip() for i in only.split(",") if i.strip()}
        unknown = wanted - {c["id"] for c in conversations}
        if unknown:
            raise SystemExit(f"--only: no conversation {sorted(unknown)} in the prompt file")
        chosen = [c for c in conversations if c["id"] in wanted]
    return chosen[:limit] if limit else chosen


def main(argv: list[str] | None = None) -> int:
    from report import write_report

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--prompts", type=Path, default=PROMPTS)
    parser.add_argument("--split", choices=("dev", "holdout", "all"), default="all")
    parser.add_argument("--limit", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--only", default=None, help="rerun these conversation ids (a,b,c)")
    parser.add_argument("--variants", default=",".join(DEFAULT_VARIANTS))
    parser.add_argument("--resume", action="store_true", help="skip conversations already run")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--threads", type=int, default=THREADS)
    parser.add_argument(
        "--pause", type=float, default=0.0, help="seconds before each turn (reading, typing)"
    )
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--write", type=Path, default=None, help="write the report here")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    logging.getLogger("edgeagent").setLevel(logging.ERROR)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # the fake weather service's requests
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = sorted(set(variants) - set(VARIANTS))
    if unknown:
        parser.error(f"unknown variants {unknown}; choose from {', '.join(VARIANTS)}")
    conversations = load_conversations(args.prompts)
    if not args.report_only:
        chosen = select(conversations, split=args.split, limit=args.limit, only=args.only)
        mode = "only" if args.only else "resume" if args.resume else "fresh"
        engines = Engines(threads=args.threads)
        try:
            for variant in variants:
                asyncio.run(
                    run_variant(
                        variant,
                        chosen,
                        llm_for=engines.for_config,
                        results=args.results,
                        mode=mode,
                        threads=args.threads,
                        prompts_file=_shown(args.prompts),
                        pause_s=args.pause,
                    )
                )
        finally:
            engines.close()
    print(write_report(args.results, args.write, prompts=conversations))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
