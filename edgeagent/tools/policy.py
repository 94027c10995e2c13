"""Who may call what: the call policy, checked before every tool call.

A rule names a tool, a plugin, or ``"*"``. It applies to what actually runs: a wrapped
tool or an alias runs its target, so a rule on ``shell`` also covers ``grep``, ``ls``
and any ``files.tool`` that wraps it, and a rule on a plugin covers all its tools.

Each front end starts from a default (:data:`DEFAULT_DENY`); a front end named in
``[tools.policy]`` gets exactly what the config says instead. MQTT is the one front end
reachable from other machines (any client the broker lets in, Home Assistant too), so
by default it may not use the shell or the tools that wrap it. The socket's trust comes
from its file mode (owner and ``[socket] group``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from edgeagent.errors import ConfigError
from edgeagent.tools.tool import Tool, ToolKind

Confirm = Callable[[Tool, dict[str, Any]], Awaitable[bool]]

FRONT_ENDS = ("mqtt", "socket", "chat", "cli", "mcp", "dashboard")
"""The front ends a rule may name: ``mqtt`` (Home Assistant too), ``socket`` (``edgeagent
ask`` and other local clients), ``chat`` (the REPL), ``cli`` (``edgeagent tools call``),
``mcp`` (MCP clients of ``edgeagent mcp serve`` or of the daemon's ``[mcp]`` server),
``dashboard`` (the console in the simulators' dashboard)."""

DEFAULT_DENY: Mapping[str, tuple[str, ...]] = {
    "mqtt": ("shell",),
    "mcp": ("shell",),
    "dashboard": ("shell",),
}
"""Broker clients, MCP clients and the dashboard may not read the host: no shell, no
wrapper of it. The dashboard is a loopback web page any local user can open, which the
socket's file mode would not let in."""


def runs_as(tool: Tool) -> frozenset[str]:
    """Every name a rule can use for ``tool``: its own, its plugin's, and those of the
    tools it runs (a wrapper's target, an alias's original) and their plugins."""
    return frozenset({tool.name, tool.plugin, *tool.runs_as})


@dataclass(frozen=True)
class Verdict:
    """What the policy says about one tool from one front end."""

    allowed: bool
    reason: str = ""
    confirm: bool = False


class CallPolicy:
    """Decides, before every call, whether a front end may use a tool.

    ``allow``/``deny`` map a front end to rule names (see the module docs). Deny wins; a
    front end with an ``allow`` list may use only what it lists. ``confirm_act`` front
    ends ask ``confirm`` before an acting tool runs.
    """

    def __init__(
        self,
        *,
        allow: Mapping[str, Iterable[str]] | None = None,
        deny: Mapping[str, Iterable[str]] | None = None,
        confirm_act: Iterable[str] = (),
        confirm: Confirm | None = None,
    ) -> None:
        self.allow = {k: tuple(v) for k, v in (allow or {}).items()}
        self.deny = {k: tuple(v) for k, v in (deny or {}).items()}
        self.confirm_act = frozenset(confirm_act)
        self.confirm = confirm

    @classmethod
    def from_config(
        cls,
        *,
        allow: Mapping[str, list[str]],
        deny: Mapping[str, list[str]],
        confirm_act: Iterable[str],
        confirm: Confirm | None = None,
    ) -> CallPolicy:
        """The defaults, with each front end the config names replaced by its entry.

        ``deny = {mqtt = []}`` gives MQTT the shell; ``deny = {socket = ["servo"]}``
        leaves MQTT's default as it is. Raise :class:`ConfigError` for a front end that
        does not exist (a typo would otherwise leave it unrestricted).
        """
        for key, table in (("allow", allow), ("deny", deny)):
            for front_end in table:
                if front_end not in FRONT_ENDS:
                    raise ConfigError(
                        f"tools.policy.{key} names front end {front_end!r}; expected one of "
                        f"{', '.join(FRONT_ENDS)}"
                    )
        for front_end in confirm_act:
            if front_end not in FRONT_ENDS:
                raise ConfigError(
                    f"tools.policy.confirm_act names front end {front_end!r}; expected one "
                    f"of {', '.join(FRONT_ENDS)}"
                )
        return cls(
            allow=allow,
            deny={**DEFAULT_DENY, **deny},
            confirm_act=confirm_act,
            confirm=confirm,
        )

    def verdict(self, tool: Tool, *, frontend: str) -> Verdict:
        names = runs_as(tool)
        denied = [r for r in self.deny.get(frontend, ()) if r == "*" or r in names]
        if denied:
            via = "" if denied[0] in ("*", tool.name) else f" (it runs {denied[0]!r})"
            return Verdict(
                False,
                f"tool {tool.name!r} is not allowed from {frontend}{via}; "
                f"[tools.policy] deny.{frontend} lists {denied[0]!r}",
            )
        allowed = self.allow.get(frontend)
        if allowed is not None and not any(r == "*" or r in names for r in allowed):
            return Verdict(
                False,
                f"tool {tool.name!r} is not allowed from {frontend}; "
                f"[tools.policy] allow.{frontend} does not list it",
            )
        asks = tool.kind is ToolKind.ACT and frontend in self.confirm_act
        return Verdict(True, confirm=asks)

    async def check(self, tool: Tool, arguments: dict[str, Any], *, frontend: str) -> str | None:
        """``None`` when the call may go ahead, else the reason it may not."""
        verdict = self.verdict(tool, frontend=frontend)
        if not verdict.allowed:
            return verdict.reason
        if not verdict.confirm:
            return None
        if self.confirm is None:
            # Nobody to ask (a daemon's front ends): running it unasked would make the
            # rule a silent no-op, so the call is refused and the reason says why.
            return (
                f"tool {tool.name!r} needs the user's confirmation ([tools.policy] "
                f"confirm_act lists {frontend}), and {frontend} has no one to ask; take "
                f"{frontend} out of confirm_act, or deny it the tool"
            )
        if not await self.confirm(tool, arguments):
            return f"the user declined to run {tool.name!r}"
        return None

    def unknown_rules(self, tools: Iterable[Tool]) -> list[str]:
        """Rule names that match no loaded tool or plugin: a typo leaves a tool open.
        (A default rule for a plugin that is not installed is not a problem.)"""
        known = set().union(*(runs_as(t) for t in tools)) | {"*"}
        found = []
        for key, table in (("allow", self.allow), ("deny", self.deny)):
            for front_end, rules in table.items():
                defaults = DEFAULT_DENY.get(front_end, ()) if key == "deny" else ()
                found += [
                    f"{key}.{front_end}: {r!r}" for r in rules if r not in known | set(defaults)
                ]
        return found

    def describe(self, tools: Iterable[Tool]) -> dict[str, str]:
        """Per front end, in words: what it may call (``edgeagent config check``)."""
        tools = sorted(tools, key=lambda t: t.name)
        lines: dict[str, str] = {}
        for front_end in FRONT_ENDS:
            verdicts = {t.name: self.verdict(t, frontend=front_end) for t in tools}
            ok = [n for n, v in verdicts.items() if v.allowed]
            no = [n for n, v in verdicts.items() if not v.allowed]
            text = "every tool" if not no else (", ".join(ok) or "no tool")
            if no:
                text += f"; not {', '.join(no)}"
            if front_end in self.confirm_act:
                text += "; acting tools ask first"
            lines[front_end] = text
        return lines
