"""A computation on the value the turn before set: "now half of that", after "lights on
full brightness", ran ``math`` of ``100 / 2`` alone and the strip stayed at 100 (fresh56);
"10 more" after a servo turn the same (fresh53)."""

from __future__ import annotations

import dataclasses
from typing import Any

from edgeagent.agent.carried import sets_from_device
from edgeagent.agent.events import FinalAnswer
from edgeagent.tools.registry import ToolRegistry
from tests.agent.scripted_agent import run_turn
from tests.agent.test_then_acts import (
    Script,
    Strip,
    fence,
    scripted_agent,
    strip_and_calc,
)


def conversation(strip: Strip, script: Script, *prompts: str) -> list[FinalAnswer]:
    agent = scripted_agent(script, strip_and_calc(strip), act_grammar="act")
    session = agent.new_conversation("s")
    answers = []
    for prompt in prompts:
        events = run_turn(agent, prompt, session)
        assert isinstance(events[-1], FinalAnswer), events
        answers.append(events[-1])
    return answers


def test_half_of_the_level_just_set_sets_the_strip_to_it() -> None:
    strip = Strip()
    script = Script(
        fence("led", brightness=100),
        fence("math", expression="100 / 2"),
        fence("led", brightness=50),
    )
    answers = conversation(strip, script, "lights on full brightness", "now half of that")
    assert strip.set == [100, 50]
    assert answers[-1].text == "= 50\nThe strip is now at 50%."
    assert script.requests[-1].grammar == "act"  # the step after must call an acting tool


def test_a_chat_turn_between_does_not_lose_the_level() -> None:
    strip = Strip()
    script = Script(
        fence("led", brightness=80),
        "Glad you like it!",
        fence("math", expression="80 + 10"),
        fence("led", brightness=90),
    )
    conversation(strip, script, "strip to 80", "nice, thanks", "10 more")
    assert strip.set == [80, 90]


def test_a_question_about_half_of_it_only_computes() -> None:
    strip = Strip()
    script = Script(fence("led", brightness=100), fence("math", expression="100 / 2"))
    answers = conversation(strip, script, "lights on full brightness", "what's half of that?")
    assert strip.set == [100] and answers[-1].text == "= 50"
    assert len(script.requests) == 2


def test_a_computation_after_a_computation_sets_nothing() -> None:
    # "double that" after 48 * 25 is about the product, even with the strip set before.
    strip = Strip()
    script = Script(
        fence("led", brightness=40),
        fence("math", expression="48 * 25"),
        fence("math", expression="1200 * 2"),
    )
    answers = conversation(strip, script, "strip to 40", "48 times 25", "double that")
    assert strip.set == [40] and answers[-1].text == "= 2400"


def test_numbers_the_request_says_itself_set_nothing() -> None:
    strip = Strip()
    script = Script(fence("led", brightness=100), fence("math", expression="30 + 12"))
    answers = conversation(strip, script, "strip to 100", "now 30 plus 12")
    assert strip.set == [100] and answers[-1].text == "= 42"


def registry() -> ToolRegistry:
    return ToolRegistry(strip_and_calc(Strip()))


def record(name: str, ok: bool = True, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments, "ok": ok}


EARLIER = 'lights on full\n{"ok": true, "result": 100}\nThe strip is now at 100%.'


def test_only_reads_of_another_plugin_that_take_the_turn_befores_number() -> None:
    reads = [record("math", expression="100 / 2")]
    assert sets_from_device(registry(), reads, "half that", followed=EARLIER, acted=["led"])
    # The turn before acted on nothing, or only read.
    assert not sets_from_device(registry(), reads, "half that", followed=EARLIER, acted=[])
    assert not sets_from_device(
        registry(), reads, "half that", followed=EARLIER, acted=["led_state"]
    )
    # The read failed, or was of the device itself.
    failed = [record("math", ok=False, expression="100 / 2")]
    assert not sets_from_device(registry(), failed, "half that", followed=EARLIER, acted=["led"])
    own = [record("led_state")]
    assert not sets_from_device(registry(), own, "half that", followed=EARLIER, acted=["led"])
    # The number is the request's own, or the earlier turn's is not in the call.
    said = [record("math", expression="100 / 4")]
    assert not sets_from_device(registry(), said, "100 by 4", followed=EARLIER, acted=["led"])
    other = [record("math", expression="7 * 3")]
    assert not sets_from_device(registry(), other, "and 7 x 3", followed=EARLIER, acted=["led"])


def test_the_computed_value_is_set_as_computed_not_read_again_from_the_request() -> None:
    # "10 more" after a servo turn: the model set the computed -20, and the servo's
    # reread took the request's 10 as the size of a turn (fresh53).
    strip = Strip()
    tools = strip_and_calc(strip)
    reread_led = dataclasses.replace(
        tools[0], reread=lambda arguments, request: {"brightness": 10} if "10" in request else None
    )
    script = Script(
        fence("led", brightness=30),
        fence("math", expression="30 + 10"),
        fence("led", brightness=40),
    )
    agent = scripted_agent(script, [reread_led, *tools[1:]], act_grammar="act")
    session = agent.new_conversation("s")
    run_turn(agent, "strip to 30", session)
    events = run_turn(agent, "10 more", session)
    assert strip.set == [30, 40]
    assert isinstance(events[-1], FinalAnswer) and events[-1].text.endswith("at 40%.")
