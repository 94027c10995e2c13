"""A turn's figures (edgeagent.agent.meter): what the trace shows as first token, model
and tool time, and tokens, measured on the scripted engine with a slow model and a
slow tool."""

from __future__ import annotations

from edgeagent.agent.events import ErrorEvent, FinalAnswer, TurnStats, event_to_dict
from edgeagent.frontends.client import event_from_line
from tests.agent.scripted_agent import call, make_agent, run_turn


def test_a_turn_reports_time_to_first_token_model_and_tool_time_and_tokens() -> None:
    agent, _, _ = make_agent(
        [("timed out", "The sensor did not answer."), ("^read", call("slow_sensor"))],
        chunk_size=4,
        chunk_delay_s=0.05,
    )
    final = run_turn(agent, "read the sensor")[-1]
    assert isinstance(final, FinalAnswer)
    stats = final.stats
    assert stats is not None
    assert stats.first_token_s is not None and 0.05 <= stats.first_token_s < 0.5
    assert 0.2 <= stats.tool_s < 1.0  # slow_sensor times out after 0.2 s
    assert stats.generate_s >= 0.05 * 2  # two generations, each waits for its first chunk
    assert stats.prompt_tokens is not None and stats.prompt_tokens > 10
    answer_chunks = -(-len("The sensor did not answer.") // 4)
    call_chunks = -(-len(call("slow_sensor")) // 4)
    assert stats.output_tokens == call_chunks + answer_chunks


def test_an_error_ending_a_turn_carries_the_figures_too() -> None:
    agent, _, _ = make_agent([(".*", call("set_led", color="red"))], max_steps=2)
    last = run_turn(agent, "loop forever")[-1]
    assert isinstance(last, ErrorEvent) and "max_steps" in last.message
    assert last.stats is not None and last.stats.output_tokens > 0


def test_stats_go_over_the_socket_and_come_back_and_are_absent_when_none() -> None:
    final = FinalAnswer("ok", stats=TurnStats(first_token_s=0.1, generate_s=0.2, tool_s=0.3))
    line = {**event_to_dict(final), "id": "1"}
    assert line["stats"]["tool_s"] == 0.3
    assert event_from_line(line) == final
    assert "stats" not in event_to_dict(FinalAnswer("ok"))
    assert "stats" not in event_to_dict(ErrorEvent("x"))
