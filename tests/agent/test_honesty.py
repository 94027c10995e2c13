"""The honesty rule: an answer states a change or a value only when a call of the turn
succeeded and returned it. Scripted model, real tools that record what they received."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from collections.abc import Callable
from typing import Annotated, Any

import pytest
from pydantic import Field

from edgeagent.agent import asks, honesty
from edgeagent.agent.checks import SideChecks
from edgeagent.agent.context import Conversation
from edgeagent.agent.decline import decline_tool
from edgeagent.agent.events import FinalAnswer, TextChunk, ToolCallEvent
from edgeagent.agent.loop import Agent
from edgeagent.agent.prompt import build_primer, build_system_prompt
from edgeagent.llm.base import InProcessLLM
from edgeagent.llm.scripted import Rule, ScriptedEngine
from edgeagent.tools import make_tool, tool, tools_from
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import USER_WORDS, NamedIn, SaidIn, Tool, ToolResult
from edgeagent.tools.words import named_place, written_otherwise
from tests.agent.scripted_agent import run_turn
from tests.agent.stub_llm import StubLLM


class Strip:
    """An LED strip that records what it was really told, with an answer template."""

    def __init__(self) -> None:
        self.color = "white"
        self.commands: list[str] = []

    @tool(kind="act", answer=lambda r: f"The LED strip is now {r['color']}.")
    def led(self, color: str) -> dict[str, Any]:
        """Set the LED strip colour."""
        if color == "banana":
            raise ValueError("unknown color 'banana'; use a CSS color name")
        self.commands.append(color)
        self.color = color
        return {"color": color}

    @tool
    def uptime(self) -> str:
        """How long the device has been up (no answer template)."""
        return "up 3 days"


def fence(name: str, **arguments: Any) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def make(
    rules: list[Rule],
    *,
    default: str = "Okay.",
    named_in: NamedIn | None = None,
    said_in: SaidIn | None = None,
) -> tuple[Agent, ScriptedEngine, Strip]:
    """An agent with a :class:`Strip`'s tools (``led`` with ``named_in``, ``said_in``)."""
    strip = Strip()
    engine = ScriptedEngine(rules, default=default, context_window=4096, chunk_size=4)
    tools = [
        dataclasses.replace(t, named_in=named_in, said_in=said_in) if t.name == "led" else t
        for t in tools_from(strip, plugin="test")
    ]
    call_format = get_call_format("fence")
    agent = Agent(
        llm=InProcessLLM(engine),
        executor=ToolExecutor(ToolRegistry(tools)),
        call_format=call_format,
        system_prompt=build_system_prompt(
            tools, manifest_format="concise", call_format=call_format
        ),
        primer=build_primer(tools, call_format=call_format),
    )
    return agent, engine, strip


def plain_agent(llm: Any, owner: object, **options: Any) -> Agent:
    """An agent with ``owner``'s tools, the fence format and a bare system prompt."""
    return Agent(
        llm=llm,
        executor=ToolExecutor(ToolRegistry(tools_from(owner, plugin="test"))),
        call_format=get_call_format("fence"),
        system_prompt="sys",
        **options,
    )


def final(events: list[Any]) -> FinalAnswer:
    answer = events[-1]
    assert isinstance(answer, FinalAnswer), events
    return answer


def streamed(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextChunk))


def test_a_successful_act_call_is_confirmed_from_its_result_without_another_generation() -> None:
    agent, engine, strip = make([(r"(?i)blue", fence("led", color="blue"))])
    events = run_turn(agent, "make it blue")
    assert strip.commands == ["blue"]
    assert final(events).text == "The LED strip is now blue."
    assert len(engine.requests) == 1  # the confirmation was not generated


def test_a_claim_without_any_call_is_not_shown_and_nothing_changes() -> None:
    agent, _, strip = make([(r"(?i)blue", "Sure! The LED strip is now blue.")])
    events = run_turn(agent, "make it blue")
    assert strip.commands == []
    answer = final(events).text
    assert "now blue" not in answer and "not change anything" in answer
    assert "now blue" not in streamed(events)  # not even streamed before the check


def test_a_claim_after_a_failed_call_becomes_the_failure() -> None:
    agent, _, strip = make(
        [
            (r"unknown color", "Done, the LED strip has been set to banana."),
            (r"(?i)banana", fence("led", color="banana")),
        ]
    )
    answer = final(run_turn(agent, "set the led to banana")).text
    assert strip.commands == []
    assert answer.startswith("Sorry, that did not work") and "banana" in answer
    assert "has been set" not in answer


def test_a_state_told_after_a_failed_call_becomes_the_failure_and_is_not_streamed() -> None:
    # "back to the middle" -> {"center": 0}, refused; the model then said the servo
    # "is already at 0°" while it still pointed at -40.
    agent, _, strip = make(
        [
            (r"unknown color", "The LED strip is already banana."),
            (r"(?i)banana", fence("led", color="banana")),
        ]
    )
    events = run_turn(agent, "set the led to banana")
    answer = final(events).text
    assert strip.commands == []
    assert answer.startswith("Sorry, that did not work") and "already" not in answer
    assert "already" not in streamed(events)


def test_a_tool_response_written_by_the_model_is_never_the_answer() -> None:
    fake = '<tool_response>{"ok": true, "result": {"color": "blue"}}</tool_response> Done.'
    agent, _, strip = make([(r"(?i)blue", fake)])
    answer = final(run_turn(agent, "make it blue")).text
    assert strip.commands == [] and "tool_response" not in answer and "Done" not in answer


def test_a_placeholder_call_is_never_run_and_never_the_answer() -> None:
    placeholder = fence("TOOL", ARG="VALUE")
    agent, _, strip = make([(r"Unknown tool", "TOOL"), (r"(?i)lamp", placeholder)])
    events = run_turn(agent, "lamp please")
    assert strip.commands == []
    assert not [e for e in events if isinstance(e, ToolCallEvent) and e.name != "TOOL"]
    assert "TOOL" not in final(events).text


@pytest.mark.parametrize(
    ("name", "told"),
    [
        ("reminder", 'Sorry, I have no "reminder" tool, so I did not do that.'),
        ("Remind Me!", "Sorry, I have no such tool, so I did not do that."),
    ],
)
def test_a_made_up_tool_then_no_answer_says_there_is_no_such_tool(name: str, told: str) -> None:
    prompt = "set me a reminder to grab snacks"
    agent, _, strip = make([(r"Unknown tool", prompt), (r"(?i)reminder", fence(name, at="9"))])
    answer = final(run_turn(agent, prompt)).text
    assert answer == told and strip.commands == []


def test_a_failed_call_then_no_answer_says_the_failure() -> None:
    prompt = "make the strip banana"
    agent, _, strip = make(
        [(r"unknown color", prompt), (r"(?i)banana", fence("led", color="banana"))]
    )
    answer = final(run_turn(agent, prompt)).text
    assert answer.startswith("Sorry, that did not work:") and "unknown color 'banana'" in answer
    assert strip.commands == []


def test_an_answer_that_repeats_the_instructions_is_replaced() -> None:
    agent, _, _ = make([(r"(?i)how", "To use a tool, reply with only the call, like this:")])
    answer = final(run_turn(agent, "how do I use you?")).text
    assert "reply with only the call" not in answer


def test_a_read_tool_without_a_template_lets_the_model_word_the_result() -> None:
    agent, engine, _ = make(
        [(r"up 3 days", "It has been up for 3 days."), (r"(?i)uptime", fence("uptime"))]
    )
    assert final(run_turn(agent, "uptime?")).text == "It has been up for 3 days."
    assert len(engine.requests) == 2


def test_plain_answers_still_stream() -> None:
    agent, _, _ = make([(r"(?i)hello", "Hello! I can set the LED strip colour for you.")])
    events = run_turn(agent, "hello")
    assert len([e for e in events if isinstance(e, TextChunk)]) > 2
    assert streamed(events) == final(events).text


def test_the_history_shows_calls_as_the_fence_the_model_writes() -> None:
    agent, _, _ = make([(r"(?i)blue", fence("led", color="blue"))])
    conversation = agent.new_conversation("s1")
    run_turn(agent, "make it blue", conversation)
    turn = conversation.messages[conversation.kept :]
    assert [m["role"] for m in turn] == ["user", "assistant", "tool", "assistant"]
    assert turn[1]["content"].startswith("```json\n{") and '"led"' in turn[1]["content"]
    assert turn[3]["content"] == "The LED strip is now blue."


def test_the_primer_survives_trimming_and_clearing() -> None:
    agent, _, _ = make([])
    conversation = agent.new_conversation("s2")
    primer = list(agent.primer)
    assert primer and primer[0]["role"] == "user"
    for prompt in ("one", "two", "three"):
        conversation.messages += [
            {"role": "user", "content": prompt},
            {"role": "assistant", "content": "ok"},
        ]
    assert conversation.drop_oldest_turn()
    assert conversation.messages[1 : conversation.kept] == primer
    assert [m["content"] for m in conversation.messages[conversation.kept :: 2]] == ["two", "three"]
    conversation.clear()
    assert conversation.messages[1:] == primer


def test_the_primer_shows_follow_ups_that_name_the_result_and_go_back() -> None:
    # With the servo and math both here, the servo's example turn is followed by one
    # that computes with its result by name (edgeagent_math.recall fills it in), then
    # one that puts the servo back ("put it back where it was" turned the LED off).
    @tool(kind="act", answer=lambda r: f"The servo is at {r['angle']}.")
    def servo(right: float = 0, back: bool = False) -> dict[str, Any]:
        """Turn the servo."""
        return {"angle": right}

    @tool(answer=lambda r: f"{r['expression']} = {r['result']}")
    def math(expression: str) -> dict[str, Any]:
        """Calculate."""
        return {}

    call_format = get_call_format("fence")
    tools = [make_tool(servo, plugin="test"), make_tool(math, plugin="test")]
    primer = build_primer(tools, call_format=call_format)
    contents = [m["content"] for m in primer]
    at = contents.index("and that times 3?")
    assert contents[at - 4] == "turn the camera 15 more degrees to the right"
    assert '"ans * 3"' in contents[at + 1] and contents[at + 3] == "45 * 3 = 135"
    back = contents.index("hmm, put it back where it was")
    assert back == at + 4 and '"back": true' in contents[back + 1]
    assert contents[back + 3] == "The servo is at 30."
    without_math = [m["content"] for m in build_primer(tools[:1], call_format=call_format)]
    assert "and that times 3?" not in without_math
    assert "hmm, put it back where it was" in without_math


def test_instructions_show_a_real_call_and_no_placeholder() -> None:
    agent, _, _ = make([])
    assert "TOOL" not in agent.system_prompt and "VALUE" not in agent.system_prompt
    assert fence("led", color="green").replace(" ", "") in agent.system_prompt.replace(" ", "")


@pytest.mark.parametrize(
    "text",
    [
        "The LED strip is now blue.",
        "I've turned the lights off.",
        "The garage door has been opened.",
        "Done, I set it to 30% brightness.",
        "The camera is now pointing left.",
        "I have moved the servo 30 degrees to the left.",
        # In the languages the model answers in (the first three from the records)
        "La luz se ha encendido en rojo con una intensidad de 60%.",
        "La luce è stata accesa con un brillo di 70.",
        "Fenster geöffnet.",
        "Das Licht ist jetzt rot.",
        "Ich habe die Kamera nach links gedreht.",
        "J'ai allumé la lampe en bleu.",
        "La lampe est maintenant bleue.",
        "A luz foi desligada.",
        "Ho spento la luce.",
        "De lamp is nu blauw.",
        "Lampan är nu blå.",
        "Światło jest teraz niebieskie.",
        "Valo on nyt vihreä.",
        "ライトを赤にしました。",
        "灯已经打开了。",
        "조명을 켰습니다.",
    ],
)
def test_claims_change_spots_claims(text: str) -> None:
    assert honesty.claims_change(text)


@pytest.mark.parametrize(
    "text",
    [
        "I can't do that here: none of my tools can open a door.",
        "Hello! How can I help?",
        "The capital of France is Paris.",
        "Which colour would you like?",
        # Answers in other languages from the records that claim nothing
        "Je ne peux pas lancer la machine à coudre.",
        "Ja, Schlangen können Farben sehen.",
        "Die Glühbirne wurde von Carl Gauss erfunden.",
        "Mi dispiace, ma non posso aiutarti con questo.",
        "È ora di andare a dormire.",
        "La capital de Perú es Lima.",
        "Je vous en prie, c'est toujours un plaisir de vous aider !",
        "承知しました。",
        "Du hast eine gute Frage gestellt.",
        "Ik heb mijn best gedaan.",
    ],
)
def test_claims_change_leaves_plain_answers_alone(text: str) -> None:
    assert not honesty.claims_change(text)


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("Das Licht ist gerade rot.", True),
        ("La lumière est déjà allumée.", True),
        ("La cámara está todavía en 30 grados.", True),
        ("La luce è ancora accesa.", True),
        ("A câmera está ainda a 30 graus.", True),
        ("De lamp staat nog aan.", True),
        ("Lampan är redan tänd.", True),
        ("Kamera jest obecnie na 30 stopniach.", True),
        ("今LEDは緑色です。", True),  # fresh57, no call, on a purple strip
        ("LED现在是绿色。", True),
        ("카메라는 30도입니다.", True),
        ("LEDを制御することはできません。", False),  # can't control the LED
        ("東京は日本の首都です。", False),  # Tokyo is Japan's capital
        ("Je vous en prie, c'est toujours un plaisir de vous aider !", False),
        ("Berlin hat ungefähr 1.3 Millionen Einwohner.", False),
    ],
)
def test_states_state_in_other_languages(text: str, state: bool) -> None:
    assert honesty.states_state(text) is state


def test_a_claim_in_another_language_without_any_call_is_not_the_answer() -> None:
    # "öffne bitte das Fenster" got "Fenster geöffnet." and no call (records).
    agent, _, strip = make([(r"(?i)fenster", "Fenster geöffnet.")])
    events = run_turn(agent, "öffne bitte das Fenster")
    assert strip.commands == []
    assert "geöffnet" not in final(events).text and "not change anything" in final(events).text
    assert "geöffnet" not in streamed(events)


def test_echoes() -> None:
    instructions = "To use a tool, reply with only the call, like this:\nshort"
    assert honesty.echoes("Call TOOL with ARG", instructions=instructions, prompt="x")
    assert honesty.echoes(
        "Turn the lamp red!", instructions=instructions, prompt="turn the lamp red"
    )
    assert honesty.echoes(
        "to use a tool, reply with only the call, like this", instructions=instructions, prompt="x"
    )
    assert not honesty.echoes("Paris.", instructions=instructions, prompt="capital of France?")


def test_conversation_start_without_primer_is_unchanged() -> None:
    conversation = Conversation.start("sys", session_id="a")
    assert conversation.kept == 1 and conversation.messages == [
        {"role": "system", "content": "sys"}
    ]


def make_with_decline(rules: list[Rule]) -> tuple[Agent, Strip]:
    strip = Strip()
    engine = ScriptedEngine(rules, default="Okay.", context_window=4096)
    tools = [*tools_from(strip, plugin="test"), decline_tool()]
    call_format = get_call_format("fence")
    agent = Agent(
        llm=InProcessLLM(engine),
        executor=ToolExecutor(ToolRegistry(tools[:-1])),
        call_format=call_format,
        system_prompt=build_system_prompt(
            tools, manifest_format="concise", call_format=call_format
        ),
        primer=build_primer(tools, call_format=call_format),
        decline=True,
    )
    return agent, strip


def test_a_decline_call_runs_nothing_and_answers_with_the_reason() -> None:
    agent, strip = make_with_decline(
        [(r"(?i)fan", fence("decline", reason="No tool controls a fan"))]
    )
    conversation = agent.new_conversation("d1")
    events = run_turn(agent, "turn on the fan", conversation)
    answer = final(events)
    assert answer.text == "I can't do that here: no tool controls a fan."
    assert answer.tool_calls == [] and strip.commands == []
    assert not [e for e in events if isinstance(e, ToolCallEvent)]
    # The history shows the refusal as a call, like every other turn.
    assert conversation.messages[-1]["content"] == answer.text
    assert '"decline"' in conversation.messages[-3]["content"]


def test_a_decline_that_claims_a_change_is_not_repeated() -> None:
    agent, _ = make_with_decline([(r"(?i)door", fence("decline", reason="The door is now open"))])
    assert "now open" not in final(run_turn(agent, "open the door")).text


def test_the_primer_refuses_with_a_decline_call_when_decline_is_offered() -> None:
    agent, _ = make_with_decline([])
    calls = [m["content"] for m in agent.primer if m["content"].startswith("```json")]
    assert any('"decline"' in c for c in calls) and any('"led"' in c for c in calls)
    assert "decline(reason: str" in agent.system_prompt


def make_checked(rules: list[Rule]) -> tuple[Agent, ScriptedEngine, Strip]:
    agent, engine, strip = make(rules)
    agent.check_target = True
    return agent, engine, strip


def test_an_acting_call_the_model_itself_says_is_off_target_is_refused() -> None:
    agent, engine, strip = make_checked(
        [
            (r'Request: "water the plants"', "no"),
            (r"(?i)plants", fence("led", color="white")),
        ]
    )
    conversation = agent.new_conversation("t1")
    answer = final(run_turn(agent, "water the plants", conversation))
    assert strip.commands == [] and answer.tool_calls == []
    assert answer.text.startswith("I can't do that here")
    check = engine.requests[-1]
    assert check.aside and len(check.messages) == 1  # asked alone, outside the conversation
    assert conversation.messages[conversation.kept :] == []  # nothing to imitate later


def test_an_acting_call_for_a_device_that_is_not_here_is_refused_without_asking() -> None:
    # "crank up the speakers too" came as the LED at 100%, and both side questions said
    # yes: a request that names a household device, and not the strip, asks for none.
    agent, engine, strip = make(
        [
            (r"Request: ", "yes"),
            (r"(?i)speakers|volets|kettle", fence("led", color="white")),
            (r"(?i)lamp", fence("led", color="white")),
        ],
        named_in=lambda request: "lamp" in request,
    )
    agent.check_target = True
    for prompt in ("crank up the speakers too", "Tu peux fermer les volets ?", "kettle on"):
        answer = final(run_turn(agent, prompt))
        assert answer.text == "I can't do that here: none of my devices can do that."
    assert strip.commands == [] and not any(r.aside for r in engine.requests)
    # The strip's own name beside another device: the side questions decide.
    final(run_turn(agent, "the lamp by the window, white please"))
    assert strip.commands == ["white"]


class Camera:
    """A camera servo that records where it was really told to point."""

    def __init__(self) -> None:
        self.angles: list[int] = []

    @tool(kind="act", answer=lambda r: f"The servo is now at {r['angle']}°.")
    def servo(self, angle: int) -> dict[str, Any]:
        """Point the camera (degrees)."""
        self.angles.append(angle)
        return {"angle": angle}


@pytest.mark.parametrize(
    ("prompt", "runs"),
    [
        ("point the camera at my cat", False),  # came as angle 90 (two blind sets)
        ("move the servo to Japan", False),
        ("servo to 90", True),
        ("turn the camera left", True),  # a side: the number is the model's reading
        # "it" is the camera, and carries no number (fresh36: "now move it to the kitchen").
        ("ok now aim it at the couch", False),
        ("point it to that angle", True),  # "that" may carry an earlier number
        ("now set it to double that", True),
    ],
)
def test_a_number_no_one_said_for_a_request_that_aims_nowhere_is_a_guess(
    prompt: str, runs: bool
) -> None:
    camera = Camera()
    engine = ScriptedEngine([(r"Request: ", "yes"), (r".", fence("servo", angle=90))])
    aimed = re.compile(r"\d|left|right").search
    tools = [dataclasses.replace(t, aimed_in=lambda r: bool(aimed(r))) for t in tools_from(camera)]
    agent = Agent(
        llm=InProcessLLM(engine),
        executor=ToolExecutor(ToolRegistry(tools)),
        call_format=get_call_format("fence"),
        system_prompt="sys",
    )
    agent.check_target = True
    answer = final(run_turn(agent, prompt)).text
    assert camera.angles == ([90] if runs else [])
    if not runs:
        assert answer == "I can't do that here: none of my devices can do that."


def test_an_acting_call_on_target_runs() -> None:
    agent, _, strip = make_checked(
        [(r'Request: "make it blue"', "yes"), (r"(?i)blue", fence("led", color="blue"))]
    )
    assert final(run_turn(agent, "make it blue")).text == "The LED strip is now blue."
    assert strip.commands == ["blue"]


def test_read_calls_are_not_checked() -> None:
    agent, engine, _ = make_checked(
        [(r"up 3 days", "Up for 3 days."), (r"(?i)uptime", fence("uptime"))]
    )
    final(run_turn(agent, "uptime?"))
    assert not any(r.aside for r in engine.requests)


class Calculator:
    """A read tool with an answer template, and a record of what it computed."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    @tool(name="math", answer=lambda r: f"{r['expression']} = {r['result']}")
    def math(self, expression: str) -> dict[str, Any]:
        """Evaluate arithmetic."""
        self.asked.append(expression)
        return {"expression": expression, "result": 391}


class GrammarAwareModel(StubLLM):
    """Answers ``said`` from memory, unless a grammar forces a call (``forced``); a side
    question gets "yes".

    Stands in for llama.cpp's constrained decoding, which the scripted engine lacks."""

    def __init__(self, *, said: str, forced: str) -> None:
        self.said = said
        self.forced = forced
        self.requests: list[Any] = []

    async def stream(self, request: Any) -> Any:
        self.requests.append(request)
        if request.aside:
            yield "yes"
        elif request.grammar:
            yield self.forced
        else:
            yield self.said


def forcing_agent(model: GrammarAwareModel, tools: object) -> Agent:
    """An agent on ``model`` with the tools of ``tools`` and a grammar for forced calls."""
    return Agent(
        llm=model,  # type: ignore[arg-type]
        executor=ToolExecutor(ToolRegistry(tools_from(tools, plugin="test"))),
        call_format=get_call_format("fence"),
        system_prompt="sys",
        call_grammar="root ::= call",
    )


def test_a_computed_number_from_memory_is_replaced_by_a_forced_call() -> None:
    calculator = Calculator()
    model = GrammarAwareModel(said="17 times 23 is 391.", forced=fence("math", expression="17*23"))
    agent = forcing_agent(model, calculator)
    answer = final(run_turn(agent, "what's 17 times 23?"))
    assert calculator.asked == ["17*23"]
    assert answer.text == "17*23 = 391"
    assert [bool(r.aside) for r in model.requests] == [False, True, False]


def test_a_sum_worked_out_from_memory_for_a_request_without_numbers_is_a_forced_call() -> None:
    # "how many seconds are there in a week?" was answered "7 * 24 * 60 * 60 = 1689600"
    # with no call (blind prompts): the request has no number, so no side question
    # asks; the sum written out is enough, and asks nothing of the model.
    calculator = Calculator()
    model = GrammarAwareModel(
        said="There are 7 * 24 * 60 * 60 = 1689600 seconds in a week.",
        forced=fence("math", expression="7*24*60*60"),
    )
    agent = forcing_agent(model, calculator)
    answer = final(run_turn(agent, "how many seconds are there in a week?"))
    assert calculator.asked == ["7*24*60*60"]
    assert answer.text == "7*24*60*60 = 391"
    assert not any(r.aside for r in model.requests)


class Strict(Calculator):
    """Refuses a number alone, as the math plugin does: no other call mends it."""

    @tool(name="math", answer=lambda r: f"{r['expression']} = {r['result']}")
    def math(self, expression: str) -> dict[str, Any] | ToolResult:
        """Evaluate arithmetic."""
        self.asked.append(expression)
        if expression.strip().isdigit():
            return ToolResult.failure("a number alone; answer without math", mendable=False)
        return {"expression": expression, "result": 8}


class Scripted(GrammarAwareModel):
    """Says each of ``said`` in turn, then the last again."""

    def __init__(self, *, said: list[str], forced: str) -> None:
        super().__init__(said=said[0], forced=forced)
        self.script = list(said)

    async def stream(self, request: Any) -> Any:
        if not request.aside and not request.grammar:
            self.said = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        async for piece in super().stream(request):
            yield piece


def test_an_answer_after_a_call_no_other_call_mends_is_not_forced_into_another() -> None:
    # "how many legs does a spider have" came as math("4"), refused as a number alone,
    # answered "A spider has 8 legs.", then forced into math("4 + 4") (fresh31).
    calculator = Strict()
    model = Scripted(
        said=[fence("math", expression="4"), "A spider has 8 legs."],
        forced=fence("math", expression="4 + 4"),
    )
    prompt = "how many legs does a spider have? asking for my 2 kids"  # a number to start from
    answer = final(run_turn(forcing_agent(model, calculator), prompt))
    assert calculator.asked == ["4"]
    assert answer.text == "A spider has 8 legs."


@pytest.mark.parametrize(
    ("text", "works"),
    [
        ("So, there are 7 * 24 * 60 * 60 = 1689600 seconds.", True),
        ("12.5 * 8 = 100", True),
        ("(2+3) * 4 = 20", True),
        ("1/2 = 0.5", True),
        ("It is 2026-11-28 today.", False),
        ("Solve 3x + 2 = 11 for x.", False),  # algebra, not a sum
        ("The strip is at 50% brightness.", False),
        ("A 16:9 screen.", False),
    ],
)
def test_writes_calculation(text: str, works: bool) -> None:
    assert honesty.writes_calculation(text) is works


class DailyForecast:
    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []

    @tool(name="weather", answer=lambda r: f"{r['place']}: {r['day']}, light rain.")
    def weather(self, location: str, day: str = "today") -> dict[str, Any]:
        """Daily forecast."""
        self.asked.append((location, day))
        return {"place": location, "day": day}


@pytest.mark.parametrize(
    "said",
    [
        "Tampereen sää on huomenna 2026-01-03.",  # blind prompts: a date from nowhere
        "Morgen wird es in Tampere bewölkt.",
        "Demain, il fera nuageux à Tampere.",
    ],
)
def test_a_forecast_told_from_memory_in_another_language_is_a_forced_call(said: str) -> None:
    forecast = DailyForecast()
    model = GrammarAwareModel(
        said=said, forced=fence("weather", location="Tampere", day="tomorrow")
    )
    agent = forcing_agent(model, forecast)
    answer = final(run_turn(agent, "Millainen sää on huomenna Tampereella?"))
    assert forecast.asked == [("Tampere", "tomorrow")]
    assert answer.text == "Tampere: tomorrow, light rain."


class FollowUpModel(GrammarAwareModel):
    """Answers each request in turn from ``answers`` (memory), unless a grammar forces a
    call; a side question gets "yes"."""

    def __init__(self, answers: list[str], *, forced: str) -> None:
        super().__init__(said="", forced=forced)
        self.answers = answers

    async def stream(self, request: Any) -> Any:
        if not request.aside and not request.grammar:
            self.said = self.answers.pop(0)
        async for chunk in super().stream(request):
            yield chunk


def follow_up_agent(model: FollowUpModel, calculator: Calculator) -> Agent:
    return Agent(
        llm=model,  # type: ignore[arg-type]
        executor=ToolExecutor(ToolRegistry(tools_from(calculator, plugin="test"))),
        call_format=get_call_format("fence"),
        system_prompt="sys",
        call_grammar="root ::= call",
    )


def test_a_follow_up_computed_from_memory_from_the_turn_before_is_a_forced_call() -> None:
    calculator = Calculator()
    model = FollowUpModel(
        ["Nice!", "That is 2.244 kilograms."], forced=fence("math", expression="2244/1000")
    )
    agent = follow_up_agent(model, calculator)
    conversation = agent.new_conversation("s")
    assert final(run_turn(agent, "I used 2244 grams of flour", conversation)).text == "Nice!"
    answer = final(run_turn(agent, "and what's that in kilos?", conversation))
    assert calculator.asked == ["2244/1000"]
    assert answer.text == "2244/1000 = 391"


def test_a_follow_up_answered_with_the_turn_befores_numbers_only_is_left_alone() -> None:
    calculator = Calculator()
    model = FollowUpModel(["Nice!", "You used 2244 grams."], forced=fence("math", expression="1"))
    agent = follow_up_agent(model, calculator)
    conversation = agent.new_conversation("s")
    final(run_turn(agent, "I used 2244 grams of flour", conversation))
    answer = final(run_turn(agent, "how much did I say?", conversation))
    assert calculator.asked == []
    assert answer.text == "You used 2244 grams."
    assert not any(r.aside for r in model.requests)


class TitledCalculator:
    """A titled read tool: the topic question checks its calls."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    @tool(name="math", title="a math problem", answer=lambda r: f"= {r['result']}")
    def math(self, expression: str) -> dict[str, Any]:
        """Evaluate arithmetic."""
        self.asked.append(expression)
        return {"result": {"45*9": 405, "405*4": 1620}.get(expression, 0)}


def calorie_agent(rules: list[Rule]) -> tuple[Agent, TitledCalculator]:
    calculator = TitledCalculator()
    engine = ScriptedEngine(
        [
            *rules,
            (r'Request: "45 minutes at 9 a minute\?"', "yes"),
            (r"^45 minutes", fence("math", expression="45*9")),
            (r"^and if I do that", fence("math", expression="405*4")),
            (r"^and the capital", fence("math", expression="405*4")),
            (r"^who wrote", fence("math", expression="405*4")),
        ],
        default="no",
        context_window=4096,
    )
    return plain_agent(InProcessLLM(engine), calculator, check_target=True), calculator


def test_a_follow_up_call_carrying_the_turn_befores_result_is_checked_with_that_turn() -> None:
    # Asked alone, the follow-up is no math problem; asked with the turn before, it is.
    agent, calculator = calorie_agent(
        [(r'Request: "45 minutes at 9 a minute\? and if I do that 4 times a week\?"', "yes")]
    )
    conversation = agent.new_conversation("s")
    final(run_turn(agent, "45 minutes at 9 a minute?", conversation))
    answer = final(run_turn(agent, "and if I do that 4 times a week?", conversation))
    assert calculator.asked == ["45*9", "405*4"]
    assert answer.text == "= 1620"


def test_a_follow_up_after_a_chat_turn_is_checked_with_the_last_turn_that_ran_a_tool() -> None:
    # "how many seconds are in a week", "who decided how long a second is?", then "ok
    # and in three weeks?" (fresh49): asked with the chat turn, the call carried nothing.
    agent, calculator = calorie_agent(
        [
            (r"^who decided", "The SI did."),
            (r'Request: "45 minutes at 9 a minute\? and if I do that 4 times a week\?"', "yes"),
        ]
    )
    conversation = agent.new_conversation("s")
    final(run_turn(agent, "45 minutes at 9 a minute?", conversation))
    final(run_turn(agent, "who decided how long a second is?", conversation))
    answer = final(run_turn(agent, "and if I do that 4 times a week?", conversation))
    assert calculator.asked == ["45*9", "405*4"]
    assert answer.text == "= 1620"


def test_a_call_carrying_an_earlier_result_is_still_refused_when_both_turns_say_no() -> None:
    agent, calculator = calorie_agent([])
    conversation = agent.new_conversation("s")
    final(run_turn(agent, "45 minutes at 9 a minute?", conversation))
    answer = final(run_turn(agent, "and the capital of Peru?", conversation))
    assert calculator.asked == ["45*9"]
    assert answer.text == "I can't do that here: math is for a math problem, not for this."


def test_a_call_carrying_an_earlier_result_for_a_request_that_goes_on_from_nothing_is_refused() -> (
    None
):
    # Asked with the turn before, the model would say yes: the request itself neither
    # refers back, nor holds a number, nor opens with "and", so it is not asked again.
    agent, calculator = calorie_agent([(r'Request: "45 minutes at 9 a minute\? who wrote', "yes")])
    conversation = agent.new_conversation("s")
    final(run_turn(agent, "45 minutes at 9 a minute?", conversation))
    answer = final(run_turn(agent, "who wrote pride and prejudice", conversation))
    assert calculator.asked == ["45*9"]
    assert answer.text == "I can't do that here: math is for a math problem, not for this."


@pytest.mark.parametrize(
    ("request_", "goes_on"),
    [
        ("and if I do that 4 times a week?", True),
        ("now knock 10% off", True),
        ("y la mitad?", True),
        ("und morgen?", True),
        ("multiply it by six", True),
        ("who wrote pride and prejudice", False),
        ("what's the capital of Peru?", False),
        ("tell me a joke", False),
    ],
)
def test_continues(request_: str, goes_on: bool) -> None:
    assert honesty.continues(request_) is goes_on


def test_new_numbers() -> None:
    assert honesty.new_numbers("17 times 23 is 391", "what's 17 times 23?") == ["391"]
    assert honesty.new_numbers("Paris.", "capital of France?") == []
    assert honesty.new_numbers("It is 1,000.", "is it 1000?") == []


def test_has_number() -> None:
    assert honesty.has_number("what's nineteen times six") and honesty.has_number("6!")
    assert not honesty.has_number("who wrote Romeo and Juliet?")


class Forecast:
    @tool(name="weather", title="the weather or the forecast")
    def weather(self, location: str) -> str:
        """Weather for a place."""
        raise AssertionError("a read tool refused by its check must not run")


def forecast_agent(rules: list[Rule]) -> tuple[Agent, ScriptedEngine]:
    engine = ScriptedEngine(
        [(r'Request: "capital of Norway\?"', "no"), *rules],
        default="Okay.",
        context_window=4096,
    )
    agent = plain_agent(InProcessLLM(engine), Forecast(), check_target=True)
    return agent, engine


def test_a_titled_read_tool_is_checked_and_its_refusal_names_it() -> None:
    agent, engine = forecast_agent([(r"(?i)norway", fence("weather", location="Norway"))])
    conversation = agent.new_conversation("s")
    answer = final(run_turn(agent, "capital of Norway?", conversation))
    assert answer.tool_calls == []
    assert (
        answer.text
        == "I can't do that here: weather is for the weather or the forecast, not for this."
    )
    assert sum(bool(r.aside) for r in engine.requests) == 1
    assert conversation.messages[conversation.kept :] == []  # nothing to imitate later


PLANTS = "I can't do that here: none of my tools can water plants."


def test_an_answer_copied_from_the_primer_for_another_request_is_not_shown() -> None:
    agent, _ = forecast_agent([(r"(?i)world cup|water the plants", PLANTS)])
    agent.primer = (
        {"role": "user", "content": "water the plants"},
        {"role": "assistant", "content": PLANTS},
    )
    answer = final(run_turn(agent, "who won the 2018 World Cup?"))
    assert answer.text == "Sorry, I did not understand that. Could you say it another way?"
    assert final(run_turn(agent, "water the plants")).text == PLANTS  # its own request


def test_copies_example_only_for_another_request() -> None:
    primer = [
        {"role": "user", "content": "water the plants"},
        {"role": "assistant", "content": PLANTS},
    ]
    copied = PLANTS
    assert honesty.copies_example(copied, prompt="who won the 2018 World Cup?", examples=primer)
    assert not honesty.copies_example(copied, prompt="Water the plants!", examples=primer)
    assert not honesty.copies_example("France won.", prompt="who won?", examples=primer)


class Machine:
    """Read tools with titles, as the shell wrappers have: three need no arguments."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    @tool(name="free", title="Free memory", answer=lambda r: f"memory: {r}")
    def free(self) -> str:
        """Show free memory."""
        self.ran.append("free")
        return "512 MB"

    @tool(name="df", title="Disk space", answer=lambda r: f"disk: {r}")
    def df(self) -> str:
        """Show free disk space."""
        self.ran.append("df")
        return "12 GB"

    @tool(name="uptime", title="Uptime")
    def uptime(self) -> str:
        """Show how long the system has been up."""
        self.ran.append("uptime")
        return "3 days"

    @tool(name="cat", title="Show a file")
    def cat(self, path: str) -> str:
        """Show a file."""
        self.ran.append("cat")
        return "text"


DISK = "how much disk space is left?"


def machine_agent(answers: dict[str, str]) -> tuple[Agent, ScriptedEngine, Machine]:
    """The model calls ``free`` for DISK; ``answers``: title -> its side answer."""
    rules: list[Rule] = [
        (re.escape(f'Request: "{DISK}"\nIs this request about {title}?'), answer)
        for title, answer in answers.items()
    ]
    engine = ScriptedEngine(
        [*rules, (r"disk space", fence("free"))], default="Okay.", context_window=4096
    )
    machine = Machine()
    agent = plain_agent(InProcessLLM(engine), machine, check_target=True)
    return agent, engine, machine


def test_a_refused_read_tool_gives_way_to_the_one_other_that_fits() -> None:
    agent, engine, machine = machine_agent({"Free memory": "no", "Disk space": "yes"})
    conversation = agent.new_conversation("s")
    answer = final(run_turn(agent, DISK, conversation))
    assert machine.ran == ["df"]
    assert answer.text == "disk: 12 GB"
    assert [c["name"] for c in answer.tool_calls] == ["df"]
    # The history shows the call that ran, for the model to copy next time.
    assert '"name": "df"' in conversation.messages[-3]["content"]
    # cat needs a path the model never wrote: it is not asked about.
    assert not any("Show a file" in str(r.messages) for r in engine.requests)


def test_no_read_tool_runs_instead_when_none_or_two_fit() -> None:
    for df, uptime in (("no", "no"), ("yes", "yes")):
        agent, _, machine = machine_agent({"Free memory": "no", "Disk space": df, "Uptime": uptime})
        answer = final(run_turn(agent, DISK))
        assert machine.ran == []
        assert answer.text == "I can't do that here: free is for Free memory, not for this."


@pytest.mark.parametrize(
    "other",
    [
        # "and after twelve hours?" sent to math, refused by its title, ran the shell's
        # uptime wrapper, which the instead question said fits.
        lambda t: dataclasses.replace(t, extra={"wrapped": "shell"}),
        # "is that warm for them this time of year?" after a forecast, sent to math and
        # refused, read the LED strip's state, another plugin's tool (fresh69).
        lambda t: t.with_plugin("other"),
    ],
    ids=["runs another tool", "of another plugin"],
)
def test_a_refused_call_gives_way_only_to_a_tool_that_runs_the_same_one(
    other: Callable[[Tool], Tool],
) -> None:
    _, engine, machine = machine_agent({"Free memory": "no", "Disk space": "yes"})
    tools = [other(t) if t.name == "df" else t for t in tools_from(machine, plugin="test")]
    agent = Agent(
        llm=InProcessLLM(engine),
        executor=ToolExecutor(ToolRegistry(tools)),
        call_format=get_call_format("fence"),
        system_prompt="sys",
        check_target=True,
    )
    answer = final(run_turn(agent, DISK))
    assert machine.ran == []
    assert answer.text == "I can't do that here: free is for Free memory, not for this."


class TitledStrip:
    def __init__(self) -> None:
        self.commands: list[str] = []

    @tool(kind="act", title="the LED strip", answer=lambda r: f"The LED strip is now {r}.")
    def led(self, color: str) -> str:
        """Set the LED strip colour."""
        self.commands.append(color)
        return color


def titled_agent(topic: str, capability: str) -> tuple[Agent, TitledStrip]:
    strip = TitledStrip()
    engine = ScriptedEngine(
        [
            (r"Is this request about the LED strip\?", topic),
            (r"Device: the LED strip\.\nRequest: .*\nCan this device do", capability),
            (r"(?i)fan|blue", fence("led", color="blue")),
        ],
        default="Okay.",
        context_window=4096,
    )
    agent = plain_agent(InProcessLLM(engine), strip, check_target=True)
    return agent, strip


def test_an_acting_call_runs_only_when_the_device_can_do_it_too() -> None:
    # "turn on the fan" is "about" the LED strip to the model (it has lights that
    # turn on); asked whether the strip can do it, it says no.
    agent, strip = titled_agent("yes", "no")
    answer = final(run_turn(agent, "turn on the fan"))
    assert strip.commands == [] and answer.tool_calls == []
    assert answer.text == "I can't do that here: none of my devices can do that."
    agent, strip = titled_agent("yes", "yes")
    assert final(run_turn(agent, "make it blue")).text == "The LED strip is now blue."
    assert strip.commands == ["blue"]


@pytest.mark.parametrize(
    "text",
    [
        "The LED is currently green.",
        "It's still at 30 degrees.",
        "The lamp is currently off.",
        "The servo angle is already at 0°.",
        # A device named with where it is or what it shows, no "currently" (fresh51).
        "The servo is at 30°.",
        "The LED strip is showing red at 40% brightness.",
        "The lights are off.",
        "The camera is pointing left.",
        "The servo's in the middle.",
    ],
)
def test_states_state_spots_a_state_told_as_it_is_now(text: str) -> None:
    assert honesty.states_state(text)


@pytest.mark.parametrize(
    "text",
    [
        "Paris is the capital of France.",
        "I can't do that here.",
        "It is red in the photo.",
        "The meeting is at 5 pm.",
        "Morning light is at its best before nine.",
        "The servo can turn from -90 to 90 degrees.",
    ],
)
def test_states_state_leaves_other_answers_alone(text: str) -> None:
    assert not honesty.states_state(text)


class ReadableStrip:
    @tool(kind="act", title="the LED strip")
    def led(self, color: str) -> str:
        """Set the LED strip colour."""
        raise AssertionError("a state question must not change the strip")

    @tool(name="led_state", answer=lambda r: f"The LED strip is {r}.")
    def led_state(self) -> str:
        """Read the LED strip."""
        return "blue"


@pytest.mark.parametrize(
    "said", ["The LED is currently green.", "The LED strip is showing green at 40% brightness."]
)
def test_a_device_state_told_from_memory_is_replaced_by_a_read_call(said: str) -> None:
    # Tells the LED's colour from memory unless a grammar forces a call.
    model = GrammarAwareModel(said=said, forced=fence("led_state"))
    agent = plain_agent(model, ReadableStrip(), call_grammar="root ::= call")
    answer = final(run_turn(agent, "what colour is the light right now?"))
    assert answer.text == "The LED strip is blue."  # what the tool read, not "green"
    assert [c["name"] for c in answer.tool_calls] == ["led_state"]


class Places:
    def __init__(self) -> None:
        self.asked: list[str] = []

    @tool(name="weather", answer=lambda r: f"Weather for {r}.")
    def weather(
        self, location: Annotated[str, Field(description="place", json_schema_extra=USER_WORDS)]
    ) -> str:
        """Weather for a place."""
        self.asked.append(location)
        return location


def asking_places(*script: tuple[str, str]) -> tuple[Places, Agent, Conversation]:
    """An agent with the weather of :class:`Places` whose model, for a prompt matching
    each pattern, asks the weather for its place."""
    places = Places()
    engine = ScriptedEngine(
        [(pattern, fence("weather", location=place)) for pattern, place in script],
        default="Okay.",
        context_window=4096,
    )
    agent = plain_agent(InProcessLLM(engine), places)
    return places, agent, agent.new_conversation("w")


def test_a_place_no_user_message_named_is_asked_for_not_made_up() -> None:
    places, agent, conversation = asking_places(
        (r"Tokyo", "Tokyo"),
        (r"hate rain", "Oslo"),  # the primer's city
        (r"Múnich", "Munich"),
        (r"Paris", "Paris, France"),
        (r"Gdyni", "Gdynia"),
        (r"Tampereella", "Tampere"),
    )
    assert final(run_turn(agent, "weather in Tokyo", conversation)).text == "Weather for Tokyo."
    kept = list(conversation.messages)
    answer = final(run_turn(agent, "ugh, I hate rain", conversation))
    assert answer.text == "Which location do you mean? I use only a location you name."
    assert answer.tool_calls == [] and places.asked == ["Tokyo"]
    assert conversation.messages == kept  # nothing for the model to copy later
    # The user's own words, however the model spells them, are not made up.
    assert final(run_turn(agent, "¿qué tiempo hace en Múnich?", conversation)).tool_calls
    assert final(run_turn(agent, "and Paris?", conversation)).tool_calls
    assert places.asked == ["Tokyo", "Munich", "Paris, France"]
    # Nor is a name the user inflected ("w Gdyni", "Tampereella"), in its own form.
    assert final(run_turn(agent, "Jaka będzie pogoda w Gdyni?", conversation)).tool_calls
    assert final(run_turn(agent, "Millainen sää on Tampereella?", conversation)).tool_calls
    assert places.asked[-2:] == ["Gdynia", "Tampere"]


def test_a_place_nobody_named_is_the_one_the_request_names() -> None:
    # "weather in Osaka on sunday?" came as Oslo, the primer's city (fresh18, fresh55).
    places, agent, conversation = asking_places((r"Osaka", "Oslo"), (r"Lyon or", "Oslo"))
    answer = final(run_turn(agent, "weather in Osaka on sunday?", conversation))
    assert places.asked == ["Osaka"] and answer.text == "Weather for Osaka."
    # Two places named: which one is the user's to say.
    answer = final(run_turn(agent, "in Lyon or in Nice?", conversation))
    assert answer.text == "Which location do you mean? I use only a location you name."
    assert places.asked == ["Osaka"]


def test_a_place_written_in_another_script_is_said_in_the_models_translation() -> None:
    # "в Москве" came as Moscow, "στην Αθήνα" as Athens, and both were asked back as
    # places nobody named (fresh57, fresh60); with no place named, the model's "Tokyo"
    # or "Oslo" still is.
    places, agent, conversation = asking_places(
        (r"Москве", "Moscow"),
        (r"Αθήνα", "Athens"),
        (r"서울", "Seoul"),
        (r"明日の天気", "Tokyo"),
        (r"Будет ли", "Moscow"),
    )
    asked = "Which location do you mean? I use only a location you name."
    for request_ in ("Какая погода будет в Москве в понедельник?", "Τι καιρό στην Αθήνα;"):
        assert final(run_turn(agent, request_, agent.new_conversation("o"))).tool_calls
    assert final(run_turn(agent, "서울 오늘 날씨 어때?", conversation)).tool_calls
    assert places.asked == ["Moscow", "Athens", "Seoul"]
    for request_ in ("明日の天気は？", "Будет ли дождь сегодня?"):
        assert final(run_turn(agent, request_, agent.new_conversation("n"))).text == asked
    assert places.asked == ["Moscow", "Athens", "Seoul"]


@pytest.mark.parametrize(
    ("name", "request_", "written"),
    [
        ("Moscow", "Какая погода будет в Москве в понедельник?", True),
        ("Saint Petersburg", "Какая погода в Санкт-Петербурге?", True),
        ("Athens", "Τι καιρό θα κάνει στην Αθήνα αύριο;", True),
        ("Seoul", "서울 오늘 날씨 어때?", True),
        ("Beijing", "北京明天天气怎么样？", True),
        ("Berlin", "ベルリンの天気", True),
        ("Tokyo", "明日の天気は？", False),  # no place named: the model's own
        ("Oslo", "明天会下雨吗？", False),
        ("Budapest", "Будет ли дождь сегодня?", False),  # a sentence's capital
        ("Moscow", "какая погода в москве", False),  # no capital: no name
        ("Tokyo", "東京の明日の天気は？", False),  # kanji read as Chinese: not read
    ],
)
def test_a_name_written_in_another_script(name: str, request_: str, written: bool) -> None:
    assert written_otherwise(name, request_) is written


@pytest.mark.parametrize(
    ("request_", "place"),
    [
        ("weather in Osaka on sunday?", "Osaka"),
        ("forecast for New York tomorrow", "New York"),
        ("Wetter in München morgen", "München"),
        ("météo à Aix-en-Provence", "Aix-en-Provence"),
        ("In Porto, will it rain?", "Porto"),
        ("in Paris or in Rome", None),  # two
        ("weather in march", None),  # no name
        ("rain for Sunday?", None),  # a day
        ("what is it like in the Alps", None),  # "the" first
        ("weather tomorrow", None),
    ],
)
def test_the_one_place_a_request_names(request_: str, place: str | None) -> None:
    assert named_place(request_) == place


@pytest.mark.parametrize(
    ("said", "answer"),
    [("yes", "yes"), ("y", "yes"), ("Yes.", "yes"), ("n", "no"), ("No", "no"), ("maybe", "")],
)
def test_a_side_question_is_decided_by_its_first_token(said: str, answer: str) -> None:
    # Under the yes/no grammar the first token already decides ("y" can only become
    # "yes"), so one token is asked for; a word that is neither is no answer at all.
    engine = ScriptedEngine([(r"Is this request about", said)], default="")
    checks = SideChecks(llm=InProcessLLM(engine), registry=ToolRegistry())
    question = honesty.target_question("make it blue", "the LED strip")
    assert asyncio.run(checks.ask(question, session="s")) == answer
    assert [r.max_tokens for r in engine.requests] == [1]


@pytest.mark.parametrize(
    ("request_", "question"),
    [
        ("what did I write in notes.txt again?", True),
        ("can you show me the log and clear it?", True),
        ("ok show me the todo list", True),
        ("how long has it been running since the last reboot", True),
        ("ok delete it, I don't need it anymore", False),
        ("wipe the logs dir, it's cluttered", False),
        ("disk is filling up, just delete everything in the logs folder", False),
        # an order asked politely (the reader question let "free" run for the first)
        ("can you free some up by clearing the apt cache?", False),
        ("can you clear the log", False),
        ("could you please delete todo.md?", False),
        # the same in other languages ("Kan du radera alla loggfiler?" ran df; fresh45)
        ("Kan du radera alla loggfiler?", False),
        ("Kannst du bitte die Logdateien löschen?", False),
        ("¿Puedes borrar notes.txt?", False),
        ("Peux-tu supprimer les logs ?", False),
        ("Kan du visa vad som står i notes.txt?", True),
        ("Kannst du mir zeigen, was in notes.txt steht?", True),
        ("¿Puedes decirme cuánto espacio queda?", True),
        ("Möchtest du das Log löschen?", True),
    ],
)
def test_a_request_put_as_a_question_or_a_read_is_told_from_an_order(
    request_: str, question: bool
) -> None:
    assert asks.asks_a_question(request_) is question


@pytest.mark.parametrize(
    ("request_", "change"),
    [
        ("Radera alla filer i loggmappen", True),
        ("ta bort todo.md", True),
        ("verwijder de logbestanden", True),
        ("poista lokitiedostot", True),
        ("smaž všechny logy", True),
        ("удали notes.txt", True),
        ("διάγραψε το notes.txt", True),
        ("installa htop", True),
        ("reinicia el sistema", True),
        ("ログを削除して", True),
        ("ライトを消して", False),  # switches the light off
        # reading, in the same languages, asks no change
        ("visa innehållet i notes.txt", False),
        ("hoeveel regels heeft data.csv", False),
        ("покажи notes.txt", False),
        ("silindir kaç derece", False),
        # a backup is a copy made; a backup read is none (fresh74)
        ("how would i make a backup of it then?", True),
        ("can you back my notes up", True),
        ("what is in the backup folder", False),
    ],
)
def test_a_change_is_told_in_the_languages_people_ask_in(request_: str, change: bool) -> None:
    assert asks.asks_a_change(request_) is change


class Reader:
    def __init__(self) -> None:
        self.read: list[list[str]] = []

    @tool(name="grep", title="Search files", answer=lambda r: str(r))
    def grep(self, arguments: list[str]) -> str:
        """Search files."""
        self.read.append(arguments)
        return "notes.txt:1:Buy a new servo."


@pytest.mark.parametrize(
    ("request_", "said"),
    [
        # fresh34: a claim about the file with nothing read.
        ("is servo mentioned anywhere in notes.txt?", "No, the servo is not mentioned."),
        # fresh12: a refusal of a read the tools can do.
        ("anything about servo in notes.txt?", "I can't do that here: I can't read files."),
    ],
)
def test_a_question_about_a_named_file_answered_unread_is_a_forced_read(
    request_: str, said: str
) -> None:
    reader = Reader()
    model = GrammarAwareModel(said=said, forced=fence("grep", arguments=["servo", "notes.txt"]))
    answer = final(run_turn(forcing_agent(model, reader), request_))
    assert reader.read == [["servo", "notes.txt"]]
    assert "Buy a new servo" in answer.text


@pytest.mark.parametrize(
    "request_",
    ["can you delete notes.txt?", "add 'buy batteries' to my todo.md", "rm todo.md its done"],
)
def test_a_change_asked_of_a_named_file_is_not_forced_into_a_read(request_: str) -> None:
    reader = Reader()
    model = GrammarAwareModel(
        said="I can't do that here: none of my tools can change files.",
        forced=fence("grep", arguments=["x", "notes.txt"]),
    )
    answer = final(run_turn(forcing_agent(model, reader), request_))
    assert reader.read == []
    assert answer.text.startswith("I can't do that here")
