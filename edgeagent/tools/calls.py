"""Tool call formats: one setting decides the prompt instructions AND the parser.

``get_call_format("fence")`` asks the model for a Markdown ```` ```json ```` fence holding
``{"name": ..., "arguments": {...}}`` (what Qwen2.5-Coder writes by itself);
``get_call_format("json")`` for ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``;
``get_call_format("xml")`` for
``<tool_call><function=NAME><parameter=KEY>value</parameter></function></tool_call>``.
The history shows past calls in the same format, because a small model imitates what
the conversation shows it more than what the instructions tell it.
Whatever was asked for, the parser accepts every shape small models really write:

* a Markdown ```json fence holding the call and no tags (what Qwen2.5-Coder-1.5B does:
  its ``<tool_call>`` token is untrained, see docs/architecture.md),
* ``<tool_call>``/``<tools>`` wrappers, a missing closing tag, ``<function=...>`` blocks,
* bare call JSON in the text, a JSON list of calls, several calls in one turn,
* almost-JSON (single quotes, trailing commas), ``arguments`` given as a JSON string,
  ``parameters``/``args`` instead of ``arguments``, OpenAI's ``{"function": {...}}``.

JSON that is not call-shaped (no ``name`` plus arguments) stays text. One scanner serves
both :meth:`CallFormat.parse` and :class:`CallMarkupFilter`, so the streamed text is
exactly the parsed text, however the output is split into chunks.

The call tags (:data:`CALL_TAGS`) are spelled here and nowhere else: the engines that
must treat them specially (the Hailo's plain-text spelling, llama.cpp's special tokens,
native calls over HTTP) receive them from here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from edgeagent.errors import ConfigError
from edgeagent.llm.text import held_tail
from edgeagent.tools.executor import ToolCall
from edgeagent.tools.jsonish import argument_words, json_end, loads_lenient

CallFormatName = Literal["fence", "json", "xml"]
CALL_FORMATS: tuple[str, ...] = ("fence", "json", "xml")
CALL_TAGS: tuple[str, str] = ("<tool_call>", "</tool_call>")
"""The tags around a call: what the json and xml formats write, and what the parser
always reads (Qwen's ``<tool_call>``, a special token in its vocabulary)."""
DEFAULT_OPEN, DEFAULT_CLOSE = CALL_TAGS
FUNCTION_OPEN = "<function="
FUNCTION_CLOSE = "</function>"
FENCE = "```"
# Fence languages whose content may be nothing but calls; other fences (python, bash)
# are only hidden when they hold calls and nothing else.
_CALL_FENCE_LANGS = frozenset({"", "json", "json5", "jsonc", "tool_call", "tool_code", "xml"})
_ARG_KEYS = ("arguments", "parameters", "args", "input")
_BRACE = re.compile(r"\{\s*[\"']|\[\s*\{\s*[\"']")
_BRACE_PREFIX = re.compile(r"(\{\s*|\[\s*(\{\s*)?)$")
_ATTEMPT_NAME = re.compile(r"[\"']name[\"']\s*:")
_ATTEMPT_ARGS = re.compile(r"[\"'](arguments|parameters)[\"']\s*:")
_FUNCTION_TAG = re.compile(r"<function=\s*([^>]*?)\s*>")
_PARAMETER = re.compile(
    r"<parameter=\s*([^>]+?)\s*>(.*?)(?:</parameter>|(?=<parameter=)|(?=</function>)|\Z)",
    re.DOTALL,
)
_JSON_SCALAR = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null")
_NEED_MORE = -1


@dataclass(frozen=True)
class ParsedOutput:
    """Model output split into tool calls and the answer text around them."""

    calls: list[ToolCall]
    text: str
    errors: list[str] = field(default_factory=list)
    """Malformed call attempts, worded so the agent can show them to the model."""


@dataclass
class _Span:
    kind: Literal["text", "call"]
    raw: str
    calls: list[ToolCall] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _snippet(raw: str) -> str:
    flat = " ".join(raw.split())
    return flat if len(flat) <= 80 else flat[:77] + "..."


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _looks_like_attempt(raw: str) -> bool:
    return bool(_ATTEMPT_NAME.search(raw) and _ATTEMPT_ARGS.search(raw))


def _decode_arguments(name: str, args: Any) -> tuple[dict[str, Any] | None, str | None]:
    if args is None:
        return {}, None
    if isinstance(args, str):
        if not args.strip():
            return {}, None
        try:
            args = loads_lenient(args, close=True)
        except ValueError:
            return None, f"arguments of {name!r} must be a JSON object, got {_snippet(args)!r}"
    words = argument_words(args)
    if words is not None:
        # Qwen2.5-Coder writes {"name": "df", "arguments": []} for "no arguments", and a
        # list for a .tool wrapper's one list parameter, which is named "arguments".
        return ({"arguments": words} if words else {}), None
    if not isinstance(args, dict):
        return None, f"arguments of {name!r} must be a JSON object, got {args!r}"
    return args, None


def _one_call(obj: dict[str, Any], *, lenient: bool) -> tuple[bool, ToolCall | None, str | None]:
    """``(call_shaped, call, error)`` for one decoded JSON object."""
    arg_keys: tuple[str, ...] = _ARG_KEYS
    fn = obj.get("function")
    if isinstance(fn, dict) and "name" in fn:  # OpenAI's {"type": "function", "function": ...}
        obj, arg_keys = fn, ("arguments",)  # "parameters" there would be a tool definition
    name = obj.get("name", obj.get("tool"))
    if not isinstance(name, str):
        return False, None, None
    key = next((k for k in arg_keys if k in obj), None)
    if key is None:
        if lenient and set(obj) <= {"name", "tool"}:
            key = ""
        else:
            return False, None, None
    raw_args = obj.get(key) if key else None
    echoed_definition = key == "parameters" and "description" in obj
    if echoed_definition and isinstance(raw_args, dict) and "properties" in raw_args:
        return False, None, None
    name = name.strip().removeprefix("functions.")
    if not name:
        return True, None, f"tool call without a tool name: {_snippet(json.dumps(obj))}"
    args, error = _decode_arguments(name, raw_args)
    if args is None:
        return True, None, error
    return True, ToolCall(name=name, arguments=args), None


def _calls_from(value: Any, *, lenient: bool) -> tuple[bool, list[ToolCall], list[str]]:
    if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
        value = value["tool_calls"]
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(item, dict) for item in items):
        return False, [], []
    calls: list[ToolCall] = []
    errors: list[str] = []
    for item in items:
        shaped, call, error = _one_call(item, lenient=lenient)
        if not shaped:
            return False, [], []
        if call is not None:
            calls.append(call)
        if error:
            errors.append(error)
    return True, calls, errors


def _xml_value(raw: str) -> Any:
    value = raw.strip()
    if _JSON_SCALAR.fullmatch(value) or value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _function_call(raw: str) -> tuple[list[ToolCall], list[str]]:
    match = _FUNCTION_TAG.match(raw)
    name = match.group(1).strip("\"' ") if match else ""
    if not name:
        return [], [f"<function=...> without a tool name: {_snippet(raw)}"]
    body = raw[match.end() :] if match else ""
    args: dict[str, Any] = {}
    for m in _PARAMETER.finditer(body):
        key, value = m.group(1).strip("\"' "), m.group(2)
        if "=" in key and not value.strip():
            # Qwen2.5-Coder-1.5B often writes <parameter=color=red></parameter>: the value
            # inside the tag and nothing between the tags.
            key, _, value = key.partition("=")
            key, value = key.strip("\"' "), value.strip("\"' ")
        args[key] = _xml_value(value)
    return [ToolCall(name=name, arguments=args)], []


class _Scanner:
    """Splits model output into text spans and call spans.

    With ``final=False`` it stops at the first place where the decision needs more
    output (an unclosed fence, a half-written tag) and reports how much it consumed.
    """

    def __init__(self, open_tag: str, close_tag: str) -> None:
        wrappers = [(open_tag, close_tag), (DEFAULT_OPEN, DEFAULT_CLOSE), ("<tools>", "</tools>")]
        self.wrappers = dict(wrappers)
        self.stray = frozenset(self.wrappers.values()) | {FUNCTION_CLOSE}
        self.literals = sorted({*self.wrappers, *self.stray, FUNCTION_OPEN, FENCE}, key=len)
        alternatives = [re.escape(m) for m in reversed(self.literals)] + [_BRACE.pattern]
        self.marker = re.compile("|".join(alternatives))

    def scan(self, buf: str, *, final: bool, lenient: bool = False) -> tuple[list[_Span], int]:
        spans: list[_Span] = []
        i = 0
        while i < len(buf):
            match = self.marker.search(buf, i)
            if match is None:
                end = len(buf) if final else self._safe_end(buf, i)
                if end > i:
                    spans.append(_Span("text", buf[i:end]))
                return spans, end
            j = match.start()
            if j > i:
                spans.append(_Span("text", buf[i:j]))
            span = self._resolve(buf, j, match.group(), final=final, lenient=lenient)
            if span is None:
                return spans, j
            spans.append(span)
            i = j + len(span.raw)
        return spans, i

    def _safe_end(self, buf: str, i: int) -> int:
        """Where decided text ends: hold back a tail that may start a marker."""
        tail = buf[i:]
        hold = held_tail(tail, self.literals)
        brace = _BRACE_PREFIX.search(tail)
        if brace:
            hold = max(hold, len(brace.group()))
        return len(buf) - hold

    def _resolve(
        self, buf: str, j: int, marker: str, *, final: bool, lenient: bool
    ) -> _Span | None:
        if marker in self.wrappers:
            return self._wrapper(buf, j, marker, final=final)
        if marker in self.stray:
            return _Span("call", marker)
        if marker == FUNCTION_OPEN:
            end = self._function_end(buf, j, final=final)
            if end == _NEED_MORE:
                return None
            calls, errors = _function_call(buf[j:end])
            return _Span("call", buf[j:end], calls, errors)
        if marker == FENCE:
            return self._fence(buf, j, final=final)
        return self._json(buf, j, final=final, lenient=lenient)

    def _unit_end(self, buf: str, p: int, *, final: bool) -> int | None:
        """End of the call-like unit (JSON value, fence, <function=>) at ``p``; or None."""
        if buf[p] in "{[":
            end = json_end(buf, p)
            return end if end is not None else (len(buf) if final else _NEED_MORE)
        if buf.startswith(FENCE, p):
            k = buf.find(FENCE, p + len(FENCE))
            return k + len(FENCE) if k != -1 else (len(buf) if final else _NEED_MORE)
        if buf.startswith(FUNCTION_OPEN, p):
            return self._function_end(buf, p, final=final)
        rest = buf[p:]
        if not final and (FENCE.startswith(rest) or FUNCTION_OPEN.startswith(rest)):
            return _NEED_MORE
        return None

    def _function_end(self, buf: str, j: int, *, final: bool) -> int:
        k = buf.find(FUNCTION_CLOSE, j)
        if k != -1:
            return k + len(FUNCTION_CLOSE)
        if not final:
            return _NEED_MORE
        # No </function>: the call ends after its last parameter, so text after it stays.
        last = buf.rfind("</parameter>", j)
        if last != -1:
            return last + len("</parameter>")
        tag = _FUNCTION_TAG.match(buf, j)
        return tag.end() if tag else len(buf)

    def _wrapper(self, buf: str, j: int, open_tag: str, *, final: bool) -> _Span | None:
        close_tag = self.wrappers[open_tag]
        body = j + len(open_tag)
        p = _skip_ws(buf, body)
        if p == len(buf):
            if not final:
                return None
            return _Span("call", buf[j:], errors=[f"{open_tag} with no tool call after it"])
        unit_end = self._unit_end(buf, p, final=final)
        if unit_end == _NEED_MORE:
            return None
        if unit_end is None:
            # Not quoting what follows: it is shown as text, and a chunk-dependent
            # message would differ between streaming and parsing.
            error = f"{open_tag} must be followed by a JSON tool call or <function=NAME>"
            return _Span("call", buf[j:body], errors=[error])
        q = _skip_ws(buf, unit_end)
        if buf.startswith(close_tag, q):
            end = q + len(close_tag)
        elif not final and close_tag.startswith(buf[q:]):
            return None  # the closing tag may still be on its way
        else:
            end = unit_end  # closing tag missing: whatever follows is text
        inner, _ = self.scan(buf[p:unit_end], final=True, lenient=True)
        calls = [c for s in inner for c in s.calls]
        errors = [e for s in inner for e in s.errors]
        if not calls and not errors:
            errors = [f"could not read a tool call from {_snippet(buf[p:unit_end])!r}"]
        return _Span("call", buf[j:end], calls, errors)

    def _fence(self, buf: str, j: int, *, final: bool) -> _Span | None:
        start = j + len(FENCE)
        k = buf.find(FENCE, start)
        if k == -1 and not final:
            return None
        end = len(buf) if k == -1 else k + len(FENCE)
        content = buf[start : len(buf) if k == -1 else k]
        lang_match = re.match(r"[\w+.-]*", content)
        lang = lang_match.group() if lang_match else ""
        # In a call fence, {"name": "uptime"} with no arguments is a call too.
        lenient = lang.lower() in _CALL_FENCE_LANGS
        inner, _ = self.scan(content[len(lang) :], final=True, lenient=lenient)
        calls = [c for s in inner for c in s.calls]
        errors = [e for s in inner for e in s.errors]
        other = "".join(s.raw for s in inner if s.kind == "text")
        if (calls or errors) and (lang.lower() in _CALL_FENCE_LANGS or not other.strip()):
            return _Span("call", buf[j:end], calls, errors)
        return _Span("text", buf[j:end])

    def _json(self, buf: str, j: int, *, final: bool, lenient: bool) -> _Span | None:
        end = json_end(buf, j)
        if end is None and not final:
            return None
        raw = buf[j:] if end is None else buf[j:end]
        try:
            value = loads_lenient(raw, close=end is None)
        except ValueError:
            if _looks_like_attempt(raw):
                return _Span(
                    "call", raw, errors=[f"could not parse tool call JSON {_snippet(raw)!r}"]
                )
            return _Span("text", raw)
        shaped, calls, errors = _calls_from(value, lenient=lenient)
        if not shaped:
            return _Span("text", raw)
        return _Span("call", raw, calls, errors)


class _TextAssembler:
    """Joins text spans, tidying the whitespace where call markup was cut out.

    Trailing whitespace is held until more text follows, so a call at the end leaves no
    dangling blank lines, and the result is the same however the text was chunked.
    """

    def __init__(self) -> None:
        self._started = False
        self._pending_ws = ""
        self._gap = False

    def add(self, span: _Span) -> str:
        if span.kind == "call":
            self._gap = self._started
            return ""
        text = span.raw
        body = text.strip()
        if not body:
            self._pending_ws += text
            return ""
        lead = text[: len(text) - len(text.lstrip())]
        trail = text[len(text.rstrip()) :]
        ws = self._pending_ws + lead
        if not self._started:
            out = body
        elif self._gap:
            newlines = ws.count("\n")
            out = ("\n\n" if newlines >= 2 else "\n" if newlines else " ") + body
        else:
            out = ws + body
        self._started, self._gap, self._pending_ws = True, False, trail
        return out


class CallMarkupFilter:
    """Shows answer text as it streams and hides call markup, even split across chunks.

    Only a tail that may start call markup is held back (a ``<``, a backtick, an open
    brace followed by a quote); a fence is held until it closes, then shown if it holds
    no call. Text after a call is never swallowed. ``calls``/``errors`` collect what was
    hidden.
    """

    def __init__(self, scanner: _Scanner) -> None:
        self._scanner = scanner
        self._buffer = ""
        self._text = _TextAssembler()
        self.calls: list[ToolCall] = []
        self.errors: list[str] = []

    def feed(self, chunk: str) -> str:
        self._buffer += chunk
        return self._drain(final=False)

    def flush(self) -> str:
        return self._drain(final=True)

    def _drain(self, *, final: bool) -> str:
        spans, used = self._scanner.scan(self._buffer, final=final)
        self._buffer = self._buffer[used:]
        for span in spans:
            self.calls.extend(span.calls)
            self.errors.extend(span.errors)
        return "".join(self._text.add(span) for span in spans)


@dataclass(frozen=True)
class CallFormat:
    """A call format: the prompt's instructions and the parser, from one setting."""

    name: CallFormatName
    open_tag: str = DEFAULT_OPEN
    close_tag: str = DEFAULT_CLOSE

    def _scanner(self) -> _Scanner:
        return _Scanner(self.open_tag, self.close_tag)

    @property
    def marker(self) -> str:
        """The text every call starts with (what a grammar waits for)."""
        return FENCE if self.name == "fence" else self.open_tag

    @property
    def end_marker(self) -> str:
        return FENCE if self.name == "fence" else self.close_tag

    def instructions(self, example: ToolCall) -> str:
        """How to call a tool, shown with a real call: nothing a model could copy as a
        placeholder (a call named ``TOOL`` once followed every real call)."""
        return (
            "To use a tool, reply with only the call, like this:\n"
            f"{self.render_call([example])}\n"
            "You then get the tool's result."
        )

    def parse(self, text: str) -> ParsedOutput:
        spans, _ = self._scanner().scan(text, final=True)
        assembler = _TextAssembler()
        answer = "".join(assembler.add(span) for span in spans)
        calls = [c for s in spans for c in s.calls]
        errors = [e for s in spans for e in s.errors]
        return ParsedOutput(calls=calls, text=answer, errors=errors)

    def stream_filter(self) -> CallMarkupFilter:
        """A filter for one streamed output: the answer text shown, the calls collected."""
        return CallMarkupFilter(self._scanner())

    def render_call(self, calls: Sequence[ToolCall]) -> str:
        """The assistant message that stands for ``calls`` in the history."""
        if self.name == "fence":
            return "\n".join(f"{FENCE}json\n{_call_json(c)}\n{FENCE}" for c in calls)
        if self.name == "json":
            return "\n".join(
                f"{self.open_tag}"
                f"{json.dumps({'name': c.name, 'arguments': c.arguments}, ensure_ascii=False)}"
                f"{self.close_tag}"
                for c in calls
            )
        return "\n".join(
            f"{self.open_tag}<function={c.name}>"
            + "".join(f"<parameter={k}>{_xml_text(v)}</parameter>" for k, v in c.arguments.items())
            + f"</function>{self.close_tag}"
            for c in calls
        )


def _call_json(call: ToolCall) -> str:
    return json.dumps({"name": call.name, "arguments": call.arguments}, ensure_ascii=False)


def _xml_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def get_call_format(
    name: str, *, open_tag: str = DEFAULT_OPEN, close_tag: str = DEFAULT_CLOSE
) -> CallFormat:
    """The call format named by ``[agent] call_format``."""
    if name not in CALL_FORMATS:
        raise ConfigError(
            f"Unknown call format {name!r}; expected one of {', '.join(CALL_FORMATS)} "
            f"(set [agent] call_format)"
        )
    if not open_tag.strip() or not close_tag.strip() or open_tag == close_tag:
        raise ConfigError(
            f"Call markers must be two different non-empty strings, got {open_tag!r} and "
            f"{close_tag!r}"
        )
    return CallFormat(name, open_tag, close_tag)  # type: ignore[arg-type]
