"""The baseline: Hailo's example approach to tool calling, on the same engine.

What Hailo's example agent does (see docs/benchmarks_accuracy.md), reproduced here:

* the system prompt carries Qwen's ``# Tools`` section with the full OpenAI-JSON
  function list inside ``<tools></tools>``, and every tool description is written in
  the example's style ("CRITICAL: You MUST ...", the function name spelled out),
* the schemas follow its rules (no ``default``/``minimum``/``maximum``),
* the model is told to answer with ``<tool_call>{...}</tool_call>``, and the parser
  accepts *only* that: a call in a Markdown fence or as bare JSON is plain text,
* there is no feedback: one generation; a call that does not parse is never shown to
  the model again. A parsed call runs, its result goes back once inside
  ``<tool_response>`` tags, and the model's next reply is the answer.

On the Hailo the host tokenizer parses the rendered template, so ``<tool_call>`` in
the prompt is Qwen's special token; here the engine is opened with
``plain_markers=False`` to match.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from edgeagent.llm.base import GenerateRequest, Message
from edgeagent.tools.executor import ToolCall

# Descriptions in the style of Hailo's tool_*.py modules (our own words).
BASELINE_TOOLS: list[dict[str, Any]] = [
    {
        "name": "led",
        "description": (
            "CRITICAL: You MUST use this tool for ANY request about the LED, the LED strip, "
            "the lights or the lamp. NEVER say you changed the light without calling it. "
            "The function name is 'led' (use this exact name in tool calls). "
            "Use 'on' to switch the light on (true) or off (false). Use 'color' for the "
            "color as a CSS color name such as 'red' or a hex code such as '#ff8800'. "
            "Use 'brightness' for the intensity in percent from 0 to 100. "
            "Use 'first' and 'last' ONLY to change a range of pixels (0-based). "
            "Use 'effect' ONLY when the user asks to blink or pulse. "
            "IMPORTANT: Only pass the parameters that the user wants to change."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "on": {"type": "boolean", "description": "true = on, false = off"},
                "color": {"type": "string", "description": "Color name or #rrggbb hex code"},
                "brightness": {"type": "integer", "description": "Brightness 0-100 percent"},
                "first": {"type": "integer", "description": "First pixel index (0-based)"},
                "last": {"type": "integer", "description": "Last pixel index (0-based)"},
                "effect": {
                    "type": "string",
                    "enum": ["blink", "pulse"],
                    "description": "Animation: 'blink' or 'pulse'",
                },
            },
            "required": [],
        },
    },
    {
        "name": "servo",
        "description": (
            "CRITICAL: You MUST use this tool for ALL requests to move, turn, rotate or point "
            "the servo or the arm. The function name is 'servo' (use this exact name). "
            "Use 'angle' for an ABSOLUTE position in degrees from -90 (far left) to 90 "
            "(far right); 0 is the center. Use 'move' for a RELATIVE movement in degrees: "
            "negative values move left, positive values move right. "
            "IMPORTANT: When the user says 'by N degrees' or 'N degrees to the left/right', "
            "you MUST use 'move', NOT 'angle'. NEVER pass both."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "angle": {"type": "number", "description": "Absolute angle in degrees"},
                "move": {"type": "number", "description": "Relative movement in degrees"},
            },
            "required": [],
        },
    },
    {
        "name": "weather",
        "description": (
            "CRITICAL: You MUST use this tool for ALL questions about weather, temperature, "
            "rain, snow, wind or forecasts. NEVER guess the weather. "
            "The function name is 'weather' (use this exact name in tool calls). "
            "The 'location' parameter is the city or place name. The 'day' parameter is the "
            "number of days from today: 0 = today, 1 = tomorrow, 2 = the day after "
            "tomorrow, and so on up to 15. You MUST calculate 'day' relative to today."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "City or place name, e.g. 'Paris'"},
                "day": {"type": "integer", "description": "Days from today (0 = today)"},
            },
            "required": ["location"],
        },
    },
    {
        "name": "shell",
        "description": (
            "CRITICAL: You MUST use this tool to answer ANY question about the system, its "
            "files, disk space, memory, processes or uptime. NEVER invent command output. "
            "The function name is 'shell' (use this exact name in tool calls). "
            "Only read-only commands are allowed: ls, cat, head, tail, grep, find, wc, df, "
            "du, uptime, free, date, uname, ps. Pipes and redirections are NOT allowed."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The command line, e.g. 'df -h'"},
            },
            "required": ["command"],
        },
    },
    {
        "name": "math",
        "description": (
            "CRITICAL: You MUST use this tool for ALL arithmetic and math. "
            "NEVER calculate math directly - ALWAYS call this tool. "
            "The function name is 'math' (use this exact name in tool calls). "
            "Put the whole calculation in 'expression' using + - * / ** and functions such "
            "as sqrt, sin, cos, log, factorial and the constant pi."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "expression": {
                    "type": "string",
                    "description": "Math expression, e.g. 'sqrt(2)*3'",
                },
            },
            "required": ["expression"],
        },
    },
]

PERSONA = "You are a helpful assistant. Answer the user's questions and use tools when needed."


def build_baseline_prompt(tools: list[dict[str, Any]] | None = None) -> str:
    """Qwen2.5's own tool section (as its chat template writes it) with the tools above."""
    entries = [{"type": "function", "function": t} for t in (tools or BASELINE_TOOLS)]
    block = "\n".join(json.dumps(e, ensure_ascii=False) for e in entries)
    return (
        f"{PERSONA}\n\n# Tools\n\nYou may call one or more functions to assist with the user "
        f"query.\n\nYou are provided with function signatures within <tools></tools> XML "
        f"tags:\n<tools>\n{block}\n</tools>\n\nFor each function call, return a json object "
        f"with function name and arguments within <tool_call></tool_call> XML tags:\n"
        f'<tool_call>\n{{"name": <function-name>, "arguments": <args-json-object>}}\n'
        f"</tool_call>"
    )


_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


@dataclass
class BaselineParse:
    calls: list[ToolCall] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def parse_tagged(text: str) -> BaselineParse:
    """Only ``<tool_call>{json}</tool_call>``; anything else is text (the example's parser)."""
    out = BaselineParse()
    for match in _TAGGED.finditer(text):
        try:
            obj = json.loads(match.group(1))
        except ValueError as exc:
            out.errors.append(f"bad JSON in <tool_call>: {exc}")
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
            out.errors.append("call without a name")
            continue
        args = obj.get("arguments", {})
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                out.errors.append("arguments not JSON")
                continue
        if not isinstance(args, dict):
            out.errors.append("arguments not an object")
            continue
        out.calls.append(ToolCall(obj["name"], args))
    return out


# (messages, max_tokens) -> raw text; the benchmark times the generation inside it.
Generate = Callable[[list[Message], int], Awaitable[str]]
Execute = Callable[[ToolCall], Awaitable[dict[str, Any]]]


@dataclass
class BaselineTurn:
    calls: list[dict[str, Any]] = field(default_factory=list)
    raws: list[str] = field(default_factory=list)
    parse_errors: list[str] = field(default_factory=list)
    answer: str = ""


async def run_baseline_turn(
    prompt: str, *, system_prompt: str, generate: Generate, execute: Execute, max_tokens: int
) -> BaselineTurn:
    """One turn as the example agent runs it: at most one call round, no error feedback."""
    turn = BaselineTurn()
    messages: list[Message] = [
        {"role": "system", "content": system_prompt},
        {"role": "user", "content": prompt},
    ]
    raw = await generate(messages, max_tokens)
    turn.raws.append(raw)
    parsed = parse_tagged(raw)
    turn.parse_errors = parsed.errors
    if not parsed.calls:
        turn.answer = raw.strip()
        return turn
    results = []
    for call in parsed.calls:
        result = await execute(call)
        turn.calls.append({"name": call.name, "arguments": call.arguments, **result})
        results.append(json.dumps(result, ensure_ascii=False))
    messages.append({"role": "assistant", "content": raw})
    messages.append(
        {"role": "user", "content": "".join(f"<tool_response>{r}</tool_response>" for r in results)}
    )
    raw2 = await generate(messages, max_tokens)
    turn.raws.append(raw2)
    turn.answer = raw2.strip()
    return turn


def as_request(messages: list[Message], max_tokens: int) -> GenerateRequest:
    return GenerateRequest(messages=messages, max_tokens=max_tokens, temperature=0.0)
