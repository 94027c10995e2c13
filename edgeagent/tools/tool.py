"""The plugin author's API: a typed function (or method) becomes a :class:`Tool`.

.. code-block:: python

    @tool(kind="act")
    def led(color: Annotated[str, Field(description="CSS name or #rrggbb")]) -> dict:
        \"\"\"Set the LED strip colour.\"\"\"

The first docstring paragraph is the model-facing description; the signature becomes a
pydantic model and a JSON schema (:mod:`edgeagent.tools.schema`).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Protocol, TypeVar, overload, runtime_checkable

from pydantic import BaseModel

from edgeagent.errors import ToolDefinitionError
from edgeagent.tools.schema import build_arguments_model

F = TypeVar("F", bound=Callable[..., Any])
AnswerTemplate = Callable[[Any], str]
"""Turns a tool's successful result into the sentence the user reads (see ``answer=``)."""
Reread = Callable[[dict[str, Any], str], "dict[str, Any] | None"]
"""A call's arguments as the user's request says them (``arguments, request ->
arguments``), or ``None`` to run them as the model wrote them (see :attr:`Tool.reread`)."""

Recall = Callable[[dict[str, Any], Sequence[Any]], "dict[str, Any] | None"]
"""A call's arguments with the names of earlier results filled in (``arguments,
earlier -> arguments``: ``earlier`` holds the conversation's successful results, the
latest last), or ``None`` to run them as the model wrote them (see :attr:`Tool.recall`)."""

NamedIn = Callable[[str], bool]
"""Whether a request names a tool's device itself (see :attr:`Tool.named_in`)."""
SaidIn = Callable[[str], Collection[Any]]
"""The values a request says in a tool's own terms (see :attr:`Tool.said_in`)."""
AskedIn = Callable[[str], bool]
"""Whether a request asks what a read tool answers (see :attr:`Tool.asked_in`)."""
AimedIn = Callable[[str], bool]
"""Whether a request says where an acting tool's device should go (see
:attr:`Tool.aimed_in`)."""
UndoneIn = Callable[[str], bool]
"""Whether a request asks an acting tool's device to undo its last change (see
:attr:`Tool.undone_in`)."""
GivenIn = Callable[[str], bool]
"""Whether a request gives the values a read tool works on (see :attr:`Tool.given_in`)."""
WrapAsked = Callable[[str], "AskedIn | None"]
"""The :attr:`Tool.asked_in` of a ``.tool`` wrapper of a command ``template``, or
``None`` where it answers whatever its topic question says (see
:attr:`Tool.asked_wrapped`)."""
WrapReread = Callable[[str, list[str], str], "list[str] | None"]
"""A ``.tool`` wrapper's argument list as the user's request says it (``template,
arguments, request -> arguments``), or ``None`` to run it as the model wrote it (see
:attr:`Tool.reread_wrapped`)."""

DEFAULT_TIMEOUT_S = 10.0
_MARK = "__edgeagent_tool__"


class ToolKind(StrEnum):
    """Whether a tool only reads the world or acts on it."""

    READ = "read"
    ACT = "act"


@dataclass(frozen=True)
class ToolResult:
    """The one shape every tool call ends in, success or failure."""

    ok: bool
    result: Any = None
    error: str | None = None
    mendable: bool = False
    """A failure that the same request may mend with other arguments (arguments the tool
    refused, a file that is not there): not a refusal, an unknown tool or a timeout.
    Never shown to the model."""

    @classmethod
    def success(cls, result: Any) -> ToolResult:
        return cls(ok=True, result=result)

    @classmethod
    def failure(cls, error: str, *, mendable: bool = False) -> ToolResult:
        return cls(ok=False, error=error, mendable=mendable)

    def to_dict(self) -> dict[str, Any]:
        if self.ok:
            return {"ok": True, "result": self.result}
        return {"ok": False, "error": self.error}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str)


@runtime_checkable
class WrapHandler(Protocol):
    """Turns a wrapped tool's ``arguments`` list into the wrapped tool's own arguments.

    Only tools that declare a wrap handler can be wrapped by ``.tool`` files.
    """

    def __call__(self, command_template: str, arguments: list[str]) -> dict[str, Any]: ...


_USER_WORDS_KEY = "x-user-words"
USER_WORDS: dict[str, Any] = {_USER_WORDS_KEY: True}
"""``Field(json_schema_extra=USER_WORDS)``: the value must be the user's own words (a
place, a name), never one the model supplies; see :attr:`Tool.user_words`."""


@dataclass(frozen=True)
class Tool:
    """A callable the model may use, with its schema and metadata."""

    name: str
    description: str
    parameters: dict[str, Any]
    """JSON schema of the arguments (an ``object`` schema)."""
    func: Callable[..., Any]
    arguments_model: type[BaseModel]
    kind: ToolKind = ToolKind.READ
    timeout_s: float = DEFAULT_TIMEOUT_S
    plugin: str = "?"
    title: str = ""
    wrap: WrapHandler | None = None
    answer: AnswerTemplate | None = None
    """Builds the user's answer from a successful result, so a confirmation is never
    generated by the model (it cannot claim what the result does not say)."""
    extra: dict[str, Any] = field(default_factory=dict)
    runs_as: tuple[str, ...] = ()
    """The tools this one runs, and their plugins (a wrapper's target, an alias's
    original): the call policy applies their rules too."""
    idempotent: bool = False
    """An acting tool whose repeated call with the same arguments changes nothing more
    (setting a colour: yes; turning by 30 degrees: no). MCP clients see it as
    ``idempotentHint``."""
    reread: Reread | None = None
    """Reads the turn's request again for a value the model is known to translate
    wrongly (weather: a day named in another language), before the call runs."""
    recall: Recall | None = None
    """Fills in what a call names of the conversation's earlier results (math: ``ans``,
    the last result's number, which the model does not copy right), before it runs."""
    named_in: NamedIn | None = None
    """Whether a request names this tool's device or topic itself ("kill the shop
    light" for the LED strip, "will it rain in Oslo" for the forecast): the side
    questions ask nothing of a call that holds only values the request said (for a
    read tool, only numbers it said; :meth:`~edgeagent.agent.checks.SideChecks.
    off_target`)."""
    said_in: SaidIn | None = None
    """The values a request says in this tool's own terms, whatever its words: the LED's
    colours named in another language as CSS names ("blau" is ``blue``), and the colour
    it shows now. A value among them counts as said; and an acting call with a text
    value that no user message said, for a request that does not name the device
    (:attr:`named_in`), is a guess and does not run
    (:meth:`~edgeagent.agent.checks.SideChecks.off_target`)."""
    aimed_in: AimedIn | None = None
    """Whether a request says where this acting tool's device should go, or by how much
    (the servo: a number, a side, the centre, back, further): a call with a number no
    user message said, for a request that says none of it and refers back to nothing,
    is a guess and does not run (:meth:`~edgeagent.agent.checks.SideChecks.off_target`).
    "point the camera at my cat" came as ``angle: 90`` (two blind sets), "move the servo
    to Japan" as 90, and both side questions said yes."""
    undone_in: UndoneIn | None = None
    """Whether a request asks this acting tool's device to undo its last change ("hmm
    no, undo that", "go back to where it was"): a call of it, where its device is the
    one the conversation changed last, faces no side question
    (:meth:`~edgeagent.agent.checks.SideChecks.off_target`). Asked of the request
    alone, the capability question said the LED strip could not "undo that" and the
    servo could not "go back to where it was" (blind prompts)."""
    asked_in: AskedIn | None = None
    """Whether a request asks what this titled read tool answers: a call for a request
    that does not is off its topic, refused without the topic question and looked at
    again among its siblings (:meth:`~edgeagent.agent.checks.SideChecks.off_target`).
    The shell's ``wc`` answers a count: "what's on my todo list?" came as ``wc todo``,
    and the topic question said yes (blind prompts). A tool with user's words
    (:attr:`user_words`) asks it only of a call that carries them all from an earlier
    turn: the weather's, "guess i'm packing a raincoat then" after a forecast came as
    that forecast again."""
    given_in: GivenIn | None = None
    """Whether a request gives the values this titled read tool works on (math: a
    number, in digits or words): a call holding a number that nothing in the
    conversation said, for a request that gives none, works on what the model knows,
    and runs only where the model, asked alone, says the request is
    :attr:`given_otherwise` (:meth:`~edgeagent.agent.checks.SideChecks.off_target`).
    "how many planets are in the solar system?" came as ``math`` with ``50 * 3``, and
    the topic question said yes (fresh72); "how many seconds are in a week" is a unit
    conversion."""
    given_otherwise: str = ""
    """What a request that gives no values may still ask of this tool (math: "a unit
    conversion"); see :attr:`given_in`."""
    in_english: tuple[str, ...] = ()
    """The parameters whose values this tool's service finds best in English (the
    weather's ``location``: Open-Meteo ranks villages called "北京" above Beijing): a
    value written in another script is given as the model's English name for it, where
    that is how it reads (:mod:`edgeagent.agent.english`)."""
    reread_wrapped: WrapReread | None = None
    """A wrappable tool's :attr:`reread` for the ``.tool`` files that wrap it, which
    see only their argument list (the shell: ``wc`` asked for lines runs ``wc -l``)."""
    asked_wrapped: WrapAsked | None = None
    """A wrappable tool's :attr:`asked_in` for each ``.tool`` file that wraps it, given
    its command template (the shell: a ``wc`` answers only a request for a count;
    every other wrapper, what its topic question says)."""

    @property
    def is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.func)

    @property
    def wrappable(self) -> bool:
        return self.wrap is not None

    @property
    def user_words(self) -> tuple[str, ...]:
        """The parameters marked :data:`USER_WORDS`: the agent runs no call whose value
        for one of them is in none of the user's messages (a made-up place)."""
        properties: dict[str, Any] = self.parameters.get("properties", {})
        return tuple(
            name
            for name, spec in properties.items()
            if isinstance(spec, dict) and spec.get(_USER_WORDS_KEY) is True
        )

    def with_plugin(self, plugin: str) -> Tool:
        return replace(self, plugin=plugin)


@dataclass(frozen=True)
class _ToolMark:
    name: str | None
    description: str | None
    param_descriptions: dict[str, str] | None
    kind: ToolKind
    timeout_s: float
    title: str
    wrap: WrapHandler | None
    answer: AnswerTemplate | None = None
    idempotent: bool = False


@overload
def tool(func: F, /) -> F: ...


@overload
def tool(
    func: None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    param_descriptions: dict[str, str] | None = None,
    kind: ToolKind | str = ToolKind.READ,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    title: str = "",
    wrap: WrapHandler | None = None,
    answer: AnswerTemplate | None = None,
    idempotent: bool = False,
) -> Callable[[F], F]: ...


def tool(
    func: F | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    param_descriptions: dict[str, str] | None = None,
    kind: ToolKind | str = ToolKind.READ,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    title: str = "",
    wrap: WrapHandler | None = None,
    answer: AnswerTemplate | None = None,
    idempotent: bool = False,
) -> F | Callable[[F], F]:
    """Mark a function or method as a tool. Usable bare (``@tool``) or with options.

    ``param_descriptions`` override what the docstring says about a parameter.
    ``kind="act"`` marks tools that change the world (the call policy may ask first).
    ``wrap`` makes the tool wrappable by ``.tool`` files.
    ``answer`` turns a successful result into the user's answer (``result -> str``); a
    turn whose calls all have one ends with that text instead of another generation.
    ``idempotent=True`` says that repeating an acting call with the same arguments
    changes nothing more (MCP's ``idempotentHint``).
    """

    def mark(f: F) -> F:
        setattr(
            f,
            _MARK,
            _ToolMark(
                name,
                description,
                param_descriptions,
                ToolKind(kind),
                timeout_s,
                title,
                wrap,
                answer,
                idempotent,
            ),
        )
        return f

    return mark(func) if func is not None else mark


def make_tool(func: Callable[..., Any], *, plugin: str = "?") -> Tool:
    """Build a :class:`Tool` from a function or bound method (marked or not)."""
    mark: _ToolMark = getattr(func, _MARK, None) or _ToolMark(
        None, None, None, ToolKind.READ, DEFAULT_TIMEOUT_S, "", None
    )
    name: str = mark.name or str(getattr(func, "__name__", ""))
    if not name.isidentifier():
        raise ToolDefinitionError(
            f"Tool name {name!r} is not an identifier; use letters, digits, _"
        )
    model, schema, doc_description = build_arguments_model(
        func, name=name, param_descriptions=mark.param_descriptions
    )
    description = mark.description or doc_description
    if not description:
        raise ToolDefinitionError(
            f"Tool {name!r} has no description; give it a docstring or description=..."
        )
    return Tool(
        name=name,
        description=description,
        parameters=schema,
        func=func,
        arguments_model=model,
        kind=mark.kind,
        timeout_s=mark.timeout_s,
        plugin=plugin,
        title=mark.title,
        wrap=mark.wrap,
        answer=mark.answer,
        idempotent=mark.idempotent,
    )


def tools_from(obj: object, *, plugin: str = "?") -> list[Tool]:
    """All methods of ``obj`` marked with :func:`tool`, as tools bound to ``obj``."""
    found: list[Tool] = []
    for attr in dir(type(obj)):
        member = getattr(type(obj), attr, None)
        if callable(member) and hasattr(member, _MARK):
            found.append(make_tool(getattr(obj, attr), plugin=plugin))
    return found
