"""Tool selection: the manifest stays within ``[agent] max_manifest_tokens``.

Remote MCP servers can bring dozens of tools, and every manifest line is a token the
conversation cannot use. When the whole manifest fits the budget, nothing changes: the
system prompt is the one :func:`edgeagent.compose.build_agent` built, byte for byte.
When it does not, each turn shows

* every tool that is not a remote server's (``Tool.plugin`` not starting with ``mcp:``:
  the installed plugins, ``.tool`` wrappers, ``decline``) and the tools or plugins named
  in ``[agent] always_tools``, in registry order, first: that part of the system prompt
  never changes, so llama.cpp's prefix cache keeps it;
* then the remote tools the request is about, by keyword retrieval (BM25 over each
  tool's name, title, description and parameters; a few dozen short documents need no
  embedding model, which a Pi has no memory for beside the LLM), best first, as many as
  fit the budget. A tool that matches only on words common to many tools (scoring under
  :data:`MIN_RELATIVE_SCORE` of the best) is left out: it would only distract.

Where they sit (``[agent] selected_tools``): by default in the system prompt, after the
local tools; there, when a turn's selection differs from what llama.cpp's KV cache holds,
the rest of the system prompt, the primer and the conversation are evaluated again (a
warm turn took 9.4 s at p50 against 4.0 s with every tool shown). With
``"after_primer"`` the system prompt shows the always-shown tools only, so it and the
primer are the same for every turn and the daemon primes them once (``Agent.prepare``),
and the remote tools are a short system message right after the primer
(:func:`edgeagent.agent.prompt.build_tools_note`): only it and the turns after it are
evaluated again. Faster, but Qwen2.5-Coder-1.5B then takes the remote tools, which sit
closer to the request, for local ones more often (docs/benchmarks.md, "Many tools").

In a conversation the tools shown so far stay (the union, in the order they were first
shown, new ones appended), so a follow-up ("and make it warmer") still has the tool the
first turn used. When the union would not fit, the tools the current request is about
come first, then the most recently shown ones.

Tokens are counted by the model's own counter (``LLM.count_tokens``): the tokenizer on
llama.cpp and the Hailo; the http engine estimates 4 characters a token, and concise
manifests measured 3.4-3.8 characters a Qwen token, so there a budget of 600 is about
650 real tokens. The final manifest is measured once more and trimmed, so it is within
the budget even where the tokenizer merges across lines.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from edgeagent.tools.tool import Tool

log = logging.getLogger(__name__)

REMOTE_PREFIX = "mcp:"
"""``Tool.plugin`` of a remote MCP server's tools: ``mcp:<server>``."""
MIN_RELATIVE_SCORE = 0.3
"""A remote tool is shown only when it scores at least this share of the best tool."""
_K1 = 1.2
_B = 0.75
_WORD = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# Words that say nothing about which tool is meant: a common English stop list, less
# "off" (a device word more often than not); "on" stays in it ("on Friday", "on my
# calendar" outnumber "turn on", and "turn" finds that tool anyway).
_STOPWORDS = frozenset(
    {
        "a", "about", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at",
        "be", "been", "but", "by", "can", "could", "did", "do", "does", "for", "from",
        "get", "give", "had", "has", "have", "he", "her", "here", "hers", "him", "his",
        "how", "i", "if", "in", "into", "is", "it", "its", "just", "let", "me", "more",
        "much", "my", "no", "not", "now", "of", "ok", "okay", "on", "or", "our", "out",
        "please", "s", "set", "she", "should", "show", "so", "some", "tell", "than",
        "that", "the", "their", "them", "then", "there", "these", "they", "this",
        "those", "to", "too", "up", "us", "use", "very", "want", "was", "we", "were",
        "what", "when", "where", "which", "who", "why", "will", "with", "would", "you",
        "your",
    }
)  # fmt: skip


TokenCount = Callable[[str], Awaitable[int]]
"""Tokens of a text, by the model's own tokenizer."""


def is_remote(tool: Tool) -> bool:
    """Whether ``tool`` comes from a remote MCP server (``[mcp.servers.<name>]``)."""
    return tool.plugin.startswith(REMOTE_PREFIX)


def _stem(word: str) -> str:
    """A crude English stem: enough to match "lights" with "light", "timers" with
    "timer", "playing" with "play"."""
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + keep
    return word


def words(text: str) -> list[str]:
    """The stemmed keywords of ``text``: camelCase and snake_case split, lower case,
    stop words dropped."""
    text = _CAMEL.sub(" ", text)
    found = (w.lower() for w in _WORD.findall(text))
    return [_stem(w) for w in found if w not in _STOPWORDS]


def tool_words(tool: Tool) -> list[str]:
    """What a tool is found by: its name (twice: it is the best summary), title,
    description, and each parameter's name, description and allowed values."""
    parts = [tool.name, tool.name, tool.title, tool.description]
    properties: dict[str, Any] = tool.parameters.get("properties", {})
    for name, spec in properties.items():
        parts.append(name)
        if isinstance(spec, dict):
            parts.append(str(spec.get("description", "")))
            parts += [str(v) for v in spec.get("enum", [])]
    return words(" ".join(parts))


class KeywordIndex:
    """Okapi BM25 over the tools' words."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        self.docs = {t.name: Counter(tool_words(t)) for t in tools}
        lengths = [sum(d.values()) for d in self.docs.values()]
        self.mean_length = sum(lengths) / len(lengths) if lengths else 0.0
        frequency: Counter[str] = Counter()
        for doc in self.docs.values():
            frequency.update(doc.keys())
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in frequency.items()}

    def scores(self, query: str) -> dict[str, float]:
        """Each tool's score for ``query`` (only tools that match at all)."""
        terms = set(words(query))
        out: dict[str, float] = {}
        for name, doc in self.docs.items():
            length = sum(doc.values())
            score = 0.0
            for term in terms & doc.keys():
                tf = doc[term]
                norm = _K1 * (1 - _B + _B * length / (self.mean_length or 1))
                score += self.idf[term] * tf * (_K1 + 1) / (tf + norm)
            if score > 0:
                out[name] = score
        return out


def ranked(index: KeywordIndex, query: str, candidates: Collection[str]) -> list[str]:
    """The ``candidates`` the query is about, best first (ties by name); tools scoring
    under :data:`MIN_RELATIVE_SCORE` of the best are left out."""
    scores = {n: s for n, s in index.scores(query).items() if n in candidates}
    if not scores:
        return []
    floor = MIN_RELATIVE_SCORE * max(scores.values())
    return sorted((n for n, s in scores.items() if s >= floor), key=lambda n: (-scores[n], n))


@dataclass(frozen=True)
class TurnTools:
    """What one turn runs with when a selection chose its tools."""

    tools: tuple[Tool, ...]
    """The tools the manifest shows, in its order."""
    system_prompt: str
    """The always-shown tools' system prompt: the same for every turn."""
    note: str | None = None
    """The message after the primer that shows the chosen remote tools (None: none)."""
    grammar: str | None = None
    call_grammar: str | None = None
    recheck_grammar: str | None = None
    recheck_without: Mapping[str, str] = field(default_factory=dict)
    recheck_elsewhere: Mapping[str, str] = field(default_factory=dict)
    act_grammar: str | None = None
    native_tools: tuple[dict[str, Any], ...] | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tools)


TurnBuilder = Callable[[Sequence[Tool], Sequence[Tool]], TurnTools]
"""The prompt, note and grammars for the always-shown tools and the chosen remote ones
(the composition root's)."""


class ToolSelector:
    """Chooses each turn's tools within the manifest budget (see the module docstring)."""

    def __init__(
        self,
        tools: Sequence[Tool],
        *,
        budget: int,
        render: Callable[[Sequence[Tool]], str],
        note: Callable[[Sequence[Tool]], str] | None = None,
        build: TurnBuilder,
        always: Collection[str] = (),
    ) -> None:
        self.tools = list(tools)
        self.budget = budget
        self.render = render
        self.note = note
        self.build = build
        pinned = set(always)
        known = {t.name for t in self.tools} | {t.plugin for t in self.tools}
        for name in sorted(pinned - known):
            log.warning(
                "[agent] always_tools names %r, which is no loaded tool or plugin; loaded "
                "remote tools: %s. Check its spelling (a server's plugin is mcp:<server>)",
                name, ", ".join(t.name for t in self.tools if is_remote(t)) or "none",
            )  # fmt: skip
        self.always = [
            t for t in self.tools if not is_remote(t) or t.name in pinned or t.plugin in pinned
        ]
        always_names = {t.name for t in self.always}
        self.optional = {t.name: t for t in self.tools if t.name not in always_names}
        self.index = KeywordIndex(list(self.optional.values()))
        self._costs: dict[str, int] | None = None
        self._overhead = 0
        self._base = 0
        self._note = 0
        self._fits = False
        self._built: dict[tuple[str, ...], TurnTools] = {}

    async def _measure(self, count: TokenCount) -> dict[str, int]:
        """Each optional tool's manifest tokens, and the always-shown part's, once."""
        if self._costs is not None:
            return self._costs
        self._overhead = overhead = await count("")
        whole = await count(self.render(self.tools)) - overhead
        self._fits = whole <= self.budget
        self._base = await count(self.render(self.always)) - overhead
        if self.note is not None:
            self._note = await count(self.note([])) - overhead
        empty = await count(self.render([])) - overhead
        costs = {}
        for name, tool in self.optional.items():
            costs[name] = await count(self.render([tool])) - overhead - empty
        self._costs = costs
        if not self._fits:
            log.info(
                "the manifest of all %d tools takes %d tokens, over [agent] "
                "max_manifest_tokens = %d: each turn shows %d tools (%d tokens) and the "
                "remote ones it is about",
                len(self.tools), whole, self.budget, len(self.always), self._base,
            )  # fmt: skip
        if self._base > self.budget:
            log.warning(
                "[agent] max_manifest_tokens = %d, but the tools always shown (every tool "
                "not from an MCP server, and [agent] always_tools) take %d tokens; they are "
                "all shown and no remote tool is. Raise the budget, or disable tools with "
                "[tools] disabled",
                self.budget, self._base,
            )  # fmt: skip
        return costs

    async def select(
        self, prompt: str, *, shown: Sequence[str] | None, count: TokenCount
    ) -> TurnTools | None:
        """The turn's tools for ``prompt`` after a conversation showed ``shown`` (None:
        all, or none yet); ``None`` when every tool fits and nothing changes."""
        costs = await self._measure(count)
        if self._fits:
            return None
        earlier = [n for n in (shown or ()) if n in self.optional]
        wanted = ranked(self.index, prompt, self.optional.keys())
        priority = wanted + [n for n in reversed(earlier) if n not in wanted]
        room = self.budget - self._base - self._note
        chosen: list[str] = []
        for name in priority:
            if costs[name] <= room:
                chosen.append(name)
                room -= costs[name]
        # Earlier tools keep their places (the cached prefix); new ones follow, best first.
        order = [n for n in earlier if n in chosen] + [n for n in chosen if n not in earlier]
        # The sum of single lines can be off by a token where lines merge: measure the
        # whole and drop the least wanted until it fits.
        while order and await self._tokens(order, count) > self.budget:
            order.remove(max(order, key=priority.index))
        return self._turn(order)

    async def stable(self, count: TokenCount) -> TurnTools | None:
        """The turn with no remote tool: its system prompt starts every conversation;
        ``None`` when every tool fits."""
        await self._measure(count)
        return None if self._fits else self._turn(())

    async def _tokens(self, order: Sequence[str], count: TokenCount) -> int:
        """The manifest tokens of the shown tools (the system prompt's and the note's)."""
        chosen = [self.optional[n] for n in order]
        if self.note is None:
            return await count(self.render(self.always + chosen)) - self._overhead
        return self._base + await count(self.note(chosen)) - self._overhead

    def _turn(self, order: Sequence[str]) -> TurnTools:
        key = tuple(order)
        turn = self._built.get(key)
        if turn is None:
            turn = self.build(self.always, [self.optional[n] for n in order])
            if len(self._built) >= 64:  # a long-running daemon sees many combinations
                self._built.clear()
            self._built[key] = turn
        return turn
