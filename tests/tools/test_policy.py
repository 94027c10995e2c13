"""The call policy applies to what actually runs: tools, wrappers, aliases, plugins.

Each row is a front end, a policy and a tool; the verdict is what the executor does
with a real call (the shell below really records what it was asked to run).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from edgeagent.errors import ConfigError
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.policy import CallPolicy
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import Tool, make_tool, tool
from edgeagent.tools.wrapped import load_wrapped_tools


class Host:
    def __init__(self) -> None:
        self.ran: list[str] = []

    def shell(self, command: str) -> str:
        self.ran.append(command)
        return f"ran {command}"


def build(tmp_path: Path) -> tuple[ToolRegistry, Host]:
    host = Host()

    @tool(wrap=lambda template, args: {"command": template.replace("{arguments}", " ".join(args))})
    def shell(command: str) -> str:
        """Run a read-only command."""
        return host.shell(command)

    @tool(kind="act", wrap=lambda template, args: {"color": args[0]})
    def led(color: str) -> str:
        """Set the LED colour."""
        host.ran.append(f"led {color}")
        return color

    registry = ToolRegistry([make_tool(shell, plugin="shell"), make_tool(led, plugin="led")])
    files = tmp_path / "tools.d"
    files.mkdir()
    (files / "grep.tool").write_text(
        "Search files.\n\n@title Search\n@name grep\n@wrapped shell\n"
        "@command grep -rn {arguments}\n"
    )
    (files / "files.tool").write_text("@name files\n@wrapped shell\n")  # an alias
    (files / "lamp.tool").write_text("@name lamp\n@wrapped led\n")
    (files / "peek.tool").write_text("@name peek\n@wrapped files\n")  # an alias of an alias
    assert load_wrapped_tools(files, registry) == []
    return registry, host


CALLS = {
    "shell": {"command": "cat secret.txt"},
    "grep": {"arguments": ["token", "."]},
    "files": {"command": "cat secret.txt"},
    "peek": {"command": "cat secret.txt"},
    "led": {"color": "red"},
    "lamp": {"color": "red"},
}


def run(registry: ToolRegistry, policy: CallPolicy, name: str, frontend: str) -> bool:
    result = asyncio.run(
        ToolExecutor(registry, policy=policy).execute(
            ToolCall(name, CALLS[name]), frontend=frontend
        )
    )
    return result.ok


DEFAULTS: dict[str, Any] = {"allow": {}, "deny": {}, "confirm_act": ["chat"]}

# (front end, policy overrides, tool, may run)
TABLE = [
    # The shipped defaults: MQTT may not reach the shell through any name.
    ("mqtt", {}, "shell", False),
    ("mqtt", {}, "grep", False),
    ("mqtt", {}, "files", False),
    ("mqtt", {}, "peek", False),
    ("mqtt", {}, "led", True),
    ("mqtt", {}, "lamp", True),
    ("socket", {}, "shell", True),
    ("socket", {}, "grep", True),
    ("cli", {}, "files", True),
    # A rule on the wrapped tool covers every wrapper and alias of it.
    ("socket", {"deny": {"socket": ["shell"]}}, "grep", False),
    ("socket", {"deny": {"socket": ["shell"]}}, "files", False),
    ("socket", {"deny": {"socket": ["shell"]}}, "peek", False),
    ("socket", {"deny": {"socket": ["shell"]}}, "led", True),
    # ... and a rule may name the plugin.
    ("socket", {"deny": {"socket": ["led"]}}, "lamp", False),
    # Denying a wrapper leaves its target alone.
    ("socket", {"deny": {"socket": ["grep"]}}, "grep", False),
    ("socket", {"deny": {"socket": ["grep"]}}, "shell", True),
    # Deny wins over allow.
    ("socket", {"allow": {"socket": ["grep"]}, "deny": {"socket": ["shell"]}}, "grep", False),
    # An allow list admits only what it names (or what runs it).
    ("socket", {"allow": {"socket": ["led"]}}, "lamp", True),
    ("socket", {"allow": {"socket": ["led"]}}, "shell", False),
    ("socket", {"allow": {"socket": ["led"]}}, "peek", False),
    ("socket", {"allow": {"socket": ["*"]}}, "peek", True),
    ("socket", {"deny": {"socket": ["*"]}}, "led", False),
    # Naming a front end replaces its default: the owner can give MQTT the shell back.
    ("mqtt", {"deny": {"mqtt": []}}, "grep", True),
    # Naming another front end keeps MQTT's default.
    ("mqtt", {"deny": {"socket": ["led"]}}, "grep", False),
]


@pytest.mark.parametrize(("frontend", "overrides", "name", "runs"), TABLE)
def test_policy_table(
    tmp_path: Path, frontend: str, overrides: dict[str, Any], name: str, runs: bool
) -> None:
    registry, host = build(tmp_path)
    policy = CallPolicy.from_config(**{**DEFAULTS, **overrides})
    assert run(registry, policy, name, frontend) is runs
    assert bool(host.ran) is runs  # nothing ran when refused


def test_the_refusal_names_the_rule_and_what_it_runs(tmp_path: Path) -> None:
    registry, _ = build(tmp_path)
    policy = CallPolicy.from_config(**DEFAULTS)
    result = asyncio.run(
        ToolExecutor(registry, policy=policy).execute(
            ToolCall("grep", CALLS["grep"]), frontend="mqtt"
        )
    )
    assert not result.ok
    assert result.error == (
        "tool 'grep' is not allowed from mqtt (it runs 'shell'); "
        "[tools.policy] deny.mqtt lists 'shell'"
    )


def test_a_call_named_after_a_command_is_judged_as_the_shell(tmp_path: Path) -> None:
    # The model calls `cat` as if it were a tool; it runs through the shell, so the
    # shell's rule applies.
    registry, host = build(tmp_path)
    executor = ToolExecutor(registry, policy=CallPolicy.from_config(**DEFAULTS))
    registry_tool: Tool = registry.get("shell")
    registry_tool.extra["commands"] = ("cat",)
    call = executor.resolve(ToolCall("cat", {"path": "secret.txt"}))
    result = asyncio.run(executor.execute(call, frontend="mqtt"))
    assert not result.ok and host.ran == []


@pytest.mark.parametrize("frontend", ["chat"])
def test_confirmation_applies_to_wrapped_acting_tools(tmp_path: Path, frontend: str) -> None:
    registry, host = build(tmp_path)
    asked: list[str] = []

    async def no(t: Tool, args: dict[str, Any]) -> bool:
        asked.append(t.name)
        return False

    policy = CallPolicy.from_config(**DEFAULTS, confirm=no)
    assert run(registry, policy, "lamp", frontend) is False
    assert asked == ["lamp"] and host.ran == []
    assert run(registry, policy, "lamp", "socket") is True  # only chat asks


@pytest.mark.parametrize("key", ["allow", "deny"])
def test_a_misspelled_front_end_is_a_config_error(key: str) -> None:
    with pytest.raises(ConfigError, match="front end 'mqqt'; expected one of mqtt"):
        CallPolicy.from_config(**{**DEFAULTS, key: {"mqqt": ["shell"]}})


def test_rules_that_name_nothing_are_reported(tmp_path: Path) -> None:
    registry, _ = build(tmp_path)
    policy = CallPolicy.from_config(**{**DEFAULTS, "deny": {"mqtt": ["shel"]}})
    assert policy.unknown_rules(registry) == ["deny.mqtt: 'shel'"]


def test_describe_says_what_each_front_end_may_call(tmp_path: Path) -> None:
    registry, _ = build(tmp_path)
    lines = CallPolicy.from_config(**DEFAULTS).describe(registry)
    assert lines["mqtt"] == "lamp, led; not files, grep, peek, shell"
    assert lines["socket"] == "every tool"
    assert lines["chat"] == "every tool; acting tools ask first"


def test_a_front_end_that_must_confirm_but_cannot_ask_is_refused_not_waved_through(
    tmp_path: Path,
) -> None:
    """confirm_act = ["mqtt"] on a daemon: nobody can answer, so the acting call is
    refused with the reason, rather than run as if the rule were not there."""
    registry, _ = build(tmp_path)
    policy = CallPolicy.from_config(**{**DEFAULTS, "confirm_act": ["mqtt"]})
    result = asyncio.run(
        ToolExecutor(registry, policy=policy).execute(
            ToolCall("led", CALLS["led"]), frontend="mqtt"
        )
    )
    assert not result.ok
    assert "confirm_act lists mqtt" in (result.error or "")
    assert "no one to ask" in (result.error or "")
    assert run(registry, policy, "led", "socket") is True  # other front ends as before
