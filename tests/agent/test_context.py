"""Conversations, sessions and the token budget (measured by the scripted engine)."""

from __future__ import annotations

import asyncio

import pytest

from edgeagent.agent.context import Conversation, SessionStore, fit_context, measure
from edgeagent.errors import ContextOverflowError
from edgeagent.llm.base import InProcessLLM
from edgeagent.llm.scripted import ScriptedEngine
from tests.fake_clock import FakeClock


def add_turn(conv: Conversation, n: int, words: int = 10) -> None:
    conv.messages.append({"role": "user", "content": f"question{n} " + "w " * words})
    conv.messages.append({"role": "assistant", "content": f"call{n}"})
    conv.messages.append({"role": "tool", "content": f"result{n}"})
    conv.messages.append({"role": "assistant", "content": f"answer{n}"})


def test_one_shot_conversations_are_fresh_and_not_stored() -> None:
    store = SessionStore(system_prompt="SYS")
    a = store.get_or_create(None)
    b = store.get_or_create(None)
    assert a is not b and a.id != b.id
    assert a.one_shot and a.messages == [{"role": "system", "content": "SYS"}]
    assert len(store) == 0


def test_sessions_are_kept_reset_and_expired(clock: FakeClock) -> None:
    store = SessionStore(system_prompt="SYS", clock=clock)
    kitchen = store.get_or_create("kitchen")
    kitchen.messages.append({"role": "user", "content": "hi"})
    assert store.get_or_create("kitchen") is kitchen
    clock.now += 100
    store.get_or_create("garage")
    clock.now += 50
    assert store.expire(120) == ["kitchen"]  # idle 150 s; garage only 50 s
    assert "kitchen" not in store and "garage" in store
    assert store.reset("garage") is True
    assert store.reset("garage") is False
    assert store.get_or_create("kitchen").messages == [{"role": "system", "content": "SYS"}]


def test_session_count_is_bounded_by_dropping_least_recently_used(clock: FakeClock) -> None:
    store = SessionStore(system_prompt="SYS", max_sessions=2, clock=clock)
    for sid in ("a", "b"):
        clock.now += 1
        store.get_or_create(sid)
    clock.now += 1
    store.get_or_create("a")  # a is now more recent than b
    clock.now += 1
    store.get_or_create("c")
    assert store.ids() == ["a", "c"]


def test_drop_oldest_turn_keeps_system_and_current_turn() -> None:
    conv = Conversation.start("SYS", session_id="s")
    add_turn(conv, 1)
    add_turn(conv, 2)
    conv.messages.append({"role": "user", "content": "current"})
    assert conv.drop_oldest_turn()
    assert [m["content"] for m in conv.messages][:2] == ["SYS", "question2 " + "w " * 10]
    assert conv.drop_oldest_turn()
    assert [m["content"] for m in conv.messages] == ["SYS", "current"]
    assert not conv.drop_oldest_turn()
    assert conv.dropped_turns == 2


def run_fit(conv: Conversation, window: int, threshold: float, reserve: int = 0) -> int:
    llm = InProcessLLM(ScriptedEngine(context_window=window))
    usage = asyncio.run(fit_context(conv, llm, threshold=threshold, reserve=reserve))
    return usage.used


def test_fit_drops_oldest_turns_only_until_under_threshold() -> None:
    conv = Conversation.start("SYS", session_id="s")
    for n in range(1, 5):
        add_turn(conv, n)  # each turn: 11 + 1 + 1 + 1 words + 16 overhead = 30 tokens
    conv.messages.append({"role": "user", "content": "now"})
    engine = ScriptedEngine()
    assert engine.count_tokens(conv.messages) == 5 + 4 * 30 + 5
    used = run_fit(conv, window=100, threshold=0.8)  # limit 80 tokens
    assert used < 80
    # 130 -> 100 -> 70: exactly the two oldest turns went, the newer ones stayed.
    assert used == 70 and conv.dropped_turns == 2
    contents = [m["content"] for m in conv.messages]
    assert contents[0] == "SYS" and contents[-1] == "now"
    assert not any(c.startswith(("question1", "question2")) for c in contents)
    assert any(c.startswith("question3") for c in contents)


def test_fit_leaves_small_conversations_alone() -> None:
    conv = Conversation.start("SYS", session_id="s")
    add_turn(conv, 1)
    conv.messages.append({"role": "user", "content": "now"})
    before = list(conv.messages)
    run_fit(conv, window=1000, threshold=0.8)
    assert conv.messages == before


def test_current_turn_too_large_for_the_window_raises() -> None:
    conv = Conversation.start("SYS", session_id="s")
    add_turn(conv, 1)
    conv.messages.append({"role": "user", "content": "big " * 200})
    with pytest.raises(ContextOverflowError, match="after dropping every older turn") as info:
        run_fit(conv, window=100, threshold=0.8)
    assert "100-token context window" in str(info.value)
    assert conv.messages[0]["content"] == "SYS"  # the system prompt survives


def test_over_threshold_but_inside_window_is_allowed() -> None:
    conv = Conversation.start("SYS", session_id="s")
    conv.messages.append({"role": "user", "content": "w " * 80})  # 84 + 5 = 89 tokens
    assert run_fit(conv, window=100, threshold=0.5, reserve=0) == 89


def test_measure_reports_used_and_window() -> None:
    conv = Conversation.start("one two", session_id="s")
    llm = InProcessLLM(ScriptedEngine(context_window=64))
    usage = asyncio.run(measure(conv.messages, llm))
    assert (usage.used, usage.window) == (6, 64)
    assert usage.fraction == pytest.approx(6 / 64)


def test_a_follow_up_goes_on_from_the_last_turn_that_ran_a_tool() -> None:
    # "how many seconds are in a week", a chit-chat turn, then "ok and in three weeks?"
    # (fresh49): the chit-chat carries nothing to go on from.
    conv = Conversation.start("SYS", session_id="s")
    assert conv.followed() == ("", "")
    add_turn(conv, 1)
    conv.messages += [
        {"role": "user", "content": "who decided how long a second is?"},
        {"role": "assistant", "content": "The SI did."},
        {"role": "user", "content": "ok and in three weeks?"},
    ]
    request, turn = conv.followed()
    assert request.startswith("question1 ")
    assert turn.splitlines()[-3:] == ["call1", "result1", "answer1"]


def test_a_follow_up_goes_on_from_the_turn_before_when_it_ran_a_tool_or_none_did() -> None:
    conv = Conversation.start("SYS", session_id="s")
    add_turn(conv, 1)
    add_turn(conv, 2)
    conv.messages.append({"role": "user", "content": "current"})
    assert conv.followed()[0].startswith("question2 ")
    chat = Conversation.start("SYS", session_id="t")
    chat.messages += [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hello!"},
        {"role": "user", "content": "thanks"},
    ]
    assert chat.followed() == ("hi", "hi\nHello!")
