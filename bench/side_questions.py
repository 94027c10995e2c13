"""The side questions alone: how often the model, asked in one constrained word, says
yes to a real device request and no to a request for a device that is not there.

The checks before an acting call (edgeagent/agent/checks.py) ask the question of
``target_question`` and then that of ``capability_question``; a "no" to either refuses
the call. Here each question is asked alone for requests written for this benchmark
(none of them is in bench/prompts/), and so is the pair, as the agent asks it; and so
is ``topic_request_last``, tried as the only question on 2026-11-26 and not kept:

    .venv/bin/python bench/side_questions.py [--follow-ups | --corrections | --files]

It prints, per device, the real requests let through and the absent-device requests
refused; then, for a read tool's call on a refusal's second look (the topic question,
then ``reader_question``), requests to read files let through and requests to change
them refused. Greedy, so the figures repeat exactly on the same model and machine.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from edgeagent.agent.checks import SideChecks  # noqa: E402
from edgeagent.agent.honesty import (  # noqa: E402
    capability_question,
    reader_question,
    target_question,
)
from edgeagent.config_file import load_config  # noqa: E402
from edgeagent.llm.base import Engine, InProcessLLM  # noqa: E402
from edgeagent.llm.select import EngineSpec, create_engine, select_engine_spec  # noqa: E402
from edgeagent.tools.executor import ToolCall  # noqa: E402
from edgeagent.tools.registry import ToolRegistry  # noqa: E402
from edgeagent.tools.tool import make_tool, tool  # noqa: E402

# The shipped tools' titles (plugins/edgeagent_led, plugins/edgeagent_servo).
LED = "the LED strip (lights, lamp, colors, brightness)"
SERVO = "the servo that turns the camera (angles, left, right)"

LED_REQUESTS = [
    "switch the lamp to yellow", "dim it to 10 percent", "lights off please", "make it blue",
    "can you brighten the strip", "turn the light back on", "set colour to teal", "go purple",
    "a bit warmer white maybe", "pulse the leds green", "lamp at half brightness", "off",
    "the light is too bright", "rouge s'il vous plaît", "pon la luz en verde",
    "mach das Licht aus", "set the strip to #ff8800", "make the first three pixels red",
    "brighter", "lights to max", "change it to pink", "kill the lights",
    "gimme some orange light", "turn the leds on",
]  # fmt: skip
SERVO_REQUESTS = [
    "pan the camera left 20 degrees", "center the camera", "look right",
    "rotate the servo to 45", "a little more to the left", "point it straight ahead",
    "turn the camera 10 degrees right", "servo to -30", "swing all the way right",
    "tilt back to the middle", "gira la cámara a la izquierda", "move the arm to 60 degrees",
    "back to zero", "look a bit further left",
]  # fmt: skip
ABSENT = [
    "switch on the heater", "turn off the tv", "open the garage", "close the blinds",
    "start the coffee machine", "turn the fan to high", "fan off", "lock the front door",
    "run the vacuum", "turn up the speaker", "set the thermostat to 21", "boil the kettle",
    "open the window", "ring the doorbell", "turn on the air conditioner",
    "start the dishwasher", "turn on the sprinkler", "arm the alarm", "dim the tv backlight",
    "mute the radio", "allume le ventilateur", "schalte die Heizung ein",
    "turn on the humidifier", "open the curtains", "feed the cat", "play some jazz",
]  # fmt: skip

# A second set, written on 2026-11-26 when the question moved the request last: requests
# with values and other phrasings, and absent devices that carry a value.
LED_MORE = [
    "lamp to forty percent", "could you make the lights a soft pink", "strip on, full blast",
    "switch the leds to cyan please", "lower the brightness to 5",
    "turn the light green and dim it", "lights: violet", "put the lamp on 75%",
    "make the colour warm orange", "less bright please", "light off now",
    "i want the strip white again", "metti la luce rossa", "bitte das Licht auf blau",
    "can the lamp glow yellow", "blink the strip red", "brightness 100",
    "set led colour #00ff00",
]  # fmt: skip
SERVO_MORE = [
    "turn the camera 45 degrees to the right", "aim the servo at 0", "face left",
    "rotate it back to the centre", "camera to 80 degrees", "nudge the camera right a little",
    "swing the servo to minus 60", "tourne la caméra à droite", "point straight",
    "go to 30 degrees", "look a tiny bit up to the left", "pan right by 15", "reset the servo",
    "dreh die Kamera nach links",
]  # fmt: skip
ABSENT_MORE = [
    "set the fan to 50%", "tilt the solar panel to 45 degrees",
    "raise the blinds to 30 percent", "turn the oven to 180 degrees",
    "dim the ceiling fan light to 20%", "rotate the antenna 90 degrees",
    "set the aquarium heater to 25", "move the robot arm left", "open the valve halfway",
    "turn the radio volume to 7", "point the satellite dish north",
    "heat the pool to 28 degrees", "set the printer bed to 60",
    "spin the washing machine at 1200", "turn on the porch light", "make the kettle blue",
    "pan the security camera in the garage left", "brew coffee at 90 degrees",
]  # fmt: skip

# Follow-ups (2026-11-27): a request after an earlier one that used the device, written
# for this benchmark. Blind prompt sets had "now 30 back the other way" and "make them
# crimson" refused by the capability question, asked without the earlier request.
LED_FOLLOW_UPS = [
    ("turn the lamp blue", "now make them scarlet"),
    ("set the strip to 60 percent", "hmm, lower it to a quarter"),
    ("lights on please", "salmon would be nice"),
    ("make the lamp orange", "and drop the glow to 15"),
    ("strip to green", "actually go with olive"),
    ("set the lights to warm white", "brighter, like 90"),
    ("lamp to purple", "try plum instead"),
    ("turn the strip red", "a touch dimmer, 40%"),
]
SERVO_FOLLOW_UPS = [
    ("pan the camera 20 degrees left", "now 40 the opposite way"),
    ("point the camera at 30", "and 15 more"),
    ("turn the camera right 10 degrees", "keep going, another 25"),
    ("camera to the centre", "swing over to 50 on the right"),
    ("rotate the servo left 30", "undo that"),
    ("aim the camera at -20", "shift it 10 back"),
    ("look left 15 degrees", "same again"),
    ("point the camera straight ahead", "now hard left"),
]
ABSENT_FOLLOW_UPS = [
    (LED, "turn the lamp blue", "now switch the fan on too"),
    (LED, "set the strip to 60 percent", "and lower the blinds to a quarter"),
    (LED, "make the lights orange", "put the kettle on as well"),
    (LED, "lights to 30%", "also set the heater to 22"),
    (LED, "strip to green", "and the tv to channel 5"),
    (LED, "lamp to purple", "make the speaker louder, 40%"),
    (LED, "turn the strip red", "now the porch light, same colour"),
    (LED, "lights on please", "and start the robot vacuum"),
    (SERVO, "pan the camera 20 degrees left", "now open the garage door"),
    (SERVO, "point the camera at 30", "and tilt the solar panel 15 more"),
    (SERVO, "turn the camera right 10 degrees", "rotate the antenna the same way"),
    (SERVO, "camera to the centre", "also lock the front door"),
    (SERVO, "aim the camera at -20", "now turn the heating up by 2"),
    (SERVO, "look left 15 degrees", "move the desk fan to face me"),
    (SERVO, "rotate the servo left 30", "close the curtains halfway"),
    (SERVO, "point the camera straight ahead", "and the doorbell cam 20 left"),
]

# Corrections (2026-11-28): a request that names only the new value of the turn before,
# written for this benchmark. Blind prompt sets had "no wait, gold" and "nah, crimson"
# refused: asked alone, the model said they were not about the LED strip, or that it
# could not do them.
LED_CORRECTIONS = [
    ("make the strip yellow", "no wait, amber"),
    ("lamp to blue", "nah, navy"),
    ("set the lights to pink", "actually, hot pink"),
    ("turn the strip green", "hmm no, teal"),
    ("lights to 70 percent", "no, 50"),
    ("make it violet", "scratch that, indigo"),
    ("strip to orange", "coral instead"),
    ("Licht auf rot", "nein, lieber orange"),
    # the turn before was about something else
    ("what's 12 times 12", "actually, back to the old colour please"),
    ("is it raining in Leeds", "no wait, set the strip to warm white"),
]
SERVO_CORRECTIONS = [
    ("point the camera at 40", "no, 20"),
    ("pan left 30 degrees", "actually make that 45"),
    ("camera to the right, 60", "nah, 30 is enough"),
    ("turn the camera to -10", "wait, -30"),
    ("look right 20 degrees", "no, the other way"),
    ("aim the camera at 15", "hmm, 25 instead"),
]
ABSENT_CORRECTIONS = [
    (LED, "make the strip yellow", "no wait, the fan, switch the fan on"),
    (LED, "lamp to blue", "actually, open the blinds instead"),
    (LED, "lights to 70 percent", "no, I meant the heater to 70"),
    (LED, "turn the strip green", "nah, play some jazz instead"),
    (LED, "set the lights to pink", "no, tell me a joke"),
    (LED, "strip to orange", "actually what time is it in Tokyo"),
    (SERVO, "point the camera at 40", "no, close the garage door"),
    (SERVO, "pan left 30 degrees", "actually, turn the tv on instead"),
    (SERVO, "camera to the right, 60", "wait, lock the front door"),
    (SERVO, "aim the camera at 15", "nah, water the plants instead"),
]


async def corrections(checks: SideChecks) -> None:
    """The table for corrections: the checks as shipped (``--corrections``)."""
    cells, wrong = await _scored(
        shipped_off_target(checks),
        (
            [(LED, e, r, True) for e, r in LED_CORRECTIONS],
            [(SERVO, e, r, True) for e, r in SERVO_CORRECTIONS],
            [(d, e, r, False) for d, e, r in ABSENT_CORRECTIONS],
        ),
    )
    print()
    print("| LED corrections run | servo corrections run | absent refused | wrong |")
    print("|---:|---:|---:|---|")
    print(f"| {' | '.join(cells)} | {', '.join(wrong)} |", flush=True)


def with_earlier(question: Question, earlier: str) -> Question:
    """``question`` with the earlier request of the conversation before the request."""

    def asked(prompt: str, device: str) -> str:
        text = question(prompt, device)
        return text.replace("Request:", f'Earlier request: "{earlier}"\nRequest:', 1)

    return asked


async def follow_ups(checks: SideChecks) -> None:
    """The table for follow-ups: the two questions as the agent asks them, without and
    with the earlier request (``--follow-ups``)."""
    variants: dict[str, Callable[[str], list[Question]]] = {
        "as asked now": lambda earlier: [target_question, capability_question],
        "the earlier request in both": lambda earlier: [
            with_earlier(target_question, earlier),
            with_earlier(capability_question, earlier),
        ],
        "the earlier request in the capability question": lambda earlier: [
            target_question,
            with_earlier(capability_question, earlier),
        ],
    }
    shipped = shipped_off_target(checks)
    cases = (
        [(LED, e, r, True) for e, r in LED_FOLLOW_UPS],
        [(SERVO, e, r, True) for e, r in SERVO_FOLLOW_UPS],
        [(d, e, r, False) for d, e, r in ABSENT_FOLLOW_UPS],
    )
    print()
    print("| questions | LED follow-ups run | servo follow-ups run | absent refused | wrong |")
    print("|---|---:|---:|---:|---|")
    rows: dict[str, Callable[[str, str, str], Awaitable[bool]]] = {
        label: _asking(checks, questions) for label, questions in variants.items()
    }
    rows[
        "as shipped (off_target: a 'no' to a request that says it or them is asked again "
        "with the earlier request before it)"
    ] = shipped
    for label, ran_for in rows.items():
        cells, wrong = await _scored(ran_for, cases)
        print(f"| {label} | {' | '.join(cells)} | {', '.join(wrong)} |", flush=True)


Case = tuple[str, str, str, bool]
"""A device title, the earlier request, the request, and whether the call should run."""


async def _scored(
    ran_for: Callable[[str, str, str], Awaitable[bool]], groups: Sequence[Sequence[Case]]
) -> tuple[list[str], list[str]]:
    """Per group, "right/total" of ``ran_for`` against each case's wish, and the
    requests it got wrong ("(refused)" before one that should have run)."""
    cells, wrong = [], []
    for group in groups:
        right = 0
        for device, earlier, request, want in group:
            ran = await ran_for(earlier, request, device)
            right += ran == want
            if ran != want:
                wrong.append(request if ran else f"(refused) {request}")
        cells.append(f"{right}/{len(group)}")
    return cells, wrong


def _asking(
    checks: SideChecks, questions: Callable[[str], list[Question]]
) -> Callable[[str, str, str], Awaitable[bool]]:
    async def ran(earlier: str, request: str, device: str) -> bool:
        return await passes(checks, questions(earlier), request, device)

    return ran


def shipped_off_target(checks: SideChecks) -> Callable[[str, str, str], Awaitable[bool]]:
    """Whether ``SideChecks.off_target`` lets a call of the device run, with the earlier
    request as the turn before (stand-in acting tools with the shipped titles)."""

    @tool(name="led", kind="act", title=LED)
    def led() -> str:
        """The LED strip (a stand-in)."""
        return ""

    @tool(name="servo", kind="act", title=SERVO)
    def servo() -> str:
        """The camera servo (a stand-in)."""
        return ""

    shipped = SideChecks(llm=checks.llm, registry=ToolRegistry([make_tool(led), make_tool(servo)]))
    names = {LED: "led", SERVO: "servo"}

    async def ran(earlier: str, request: str, device: str) -> bool:
        call = ToolCall(names[device], {})
        refused = await shipped.off_target(
            request, [call], session="bench", earlier=(earlier, earlier)
        )
        return refused is None

    return ran


# The shell wrappers' titles (config/tools.d) and requests that only read files or
# change them: a read tool can serve the first kind, never the second.
READERS = ["List directory", "Show a file", "Search files"]
READ_REQUESTS = [
    "display the todo list", "what's in notes.txt then?", "any files about soldering?",
    "is the memory nearly full?", "which files mention milk?", "show the last lines of the log",
    "list the logs folder", "how many lines does data.csv have?", "print notes.txt",
    "read me the todo file", "find every markdown file", "how full is the disk?",
    "open notes.txt so I can read it", "count the words in todo.md",
]  # fmt: skip
CHANGE_REQUESTS = [
    "delete the logs folder", "delete notes.txt", "rename notes.txt to old.txt",
    "append a line to todo.md", "truncate app.log", "create a file called plan.txt",
    "empty the trash", "move data.csv into logs", "wipe the todo list", "remove the old photos",
    "write 'hello' into notes.txt", "clear the log file", "copy todo.md to backup.md",
    "chmod +x run.sh",
]  # fmt: skip

Question = Callable[[str, str], str]


def topic_request_last(prompt: str, device: str) -> str:
    """The topic question with the request last, so that every question about one
    device shares all the tokens before it (the side context keeps their KV states):
    tried as the only question before a call on 2026-11-26, not kept (see
    docs/benchmarks_accuracy.md)."""
    return f'Answer yes or no: is this request about {device}?\nRequest: "{prompt}"'


async def passes(checks: SideChecks, questions: list[Question], prompt: str, device: str) -> bool:
    """Whether the call would run: a "yes" to every question, asked in turn."""
    for question in questions:
        if await checks.ask(question(prompt, device), session="bench") != "yes":
            return False
    return True


def shipped_checks() -> tuple[SideChecks, Engine]:
    """The side questions on the shipped config's model, alone (no tools), on 2 threads,
    and that model's engine (to close); also used by bench/state_titles.py and
    bench/read_titles.py."""
    config = load_config(ROOT / "config" / "edgeagent.toml")
    spec = select_engine_spec(config)
    engine = create_engine(EngineSpec(spec.backend, {**spec.options, "n_threads": 2}))
    return SideChecks(llm=InProcessLLM(engine), registry=ToolRegistry()), engine


async def topic_yes(checks: SideChecks, prompts: list[str], title: str) -> list[str]:
    """The ``prompts`` the topic question, asked alone of ``title``, says yes to (the
    title probes: bench/state_titles.py, bench/read_titles.py, bench/math_titles.py)."""
    return [p for p in prompts if await checks.ask(target_question(p, title), session="p") == "yes"]


async def main() -> int:
    checks, engine = shipped_checks()
    asked: dict[str, list[Question]] = {
        "topic (target_question)": [target_question],
        "capability (capability_question)": [capability_question],
        "both, as the agent asks": [target_question, capability_question],
        "topic with the request last, tried alone": [topic_request_last],
    }
    sets = (
        ("first set", LED_REQUESTS, SERVO_REQUESTS, ABSENT),
        ("second set", LED_MORE, SERVO_MORE, ABSENT_MORE),
    )
    try:
        if "--follow-ups" in sys.argv:
            await follow_ups(checks)
            return 0
        if "--corrections" in sys.argv:
            await corrections(checks)
            return 0
        if "--files" in sys.argv:
            await files(checks)
            return 0
        print(
            "| question | set | LED requests run | servo requests run | absent, LED refused "
            "| absent, servo refused | let through | seconds |"
        )
        print("|---|---|---:|---:|---:|---:|---|---:|")
        for label, questions in asked.items():
            for name, led, servo, absent in sets:
                start = time.perf_counter()
                cells, through = [], set()
                for device, prompts, want in (
                    (LED, led, True),
                    (SERVO, servo, True),
                    (LED, absent, False),
                    (SERVO, absent, False),
                ):
                    right = 0
                    for prompt in prompts:
                        ran = await passes(checks, questions, prompt, device)
                        right += ran == want
                        if ran != want:
                            through.add(prompt if ran else f"(refused) {prompt}")
                    cells.append(f"{right}/{len(prompts)}")
                seconds = time.perf_counter() - start
                print(
                    f"| {label} | {name} | {' | '.join(cells)} "
                    f"| {', '.join(sorted(through))} | {seconds:.0f} |",
                    flush=True,
                )
        await readers(checks)
    finally:
        engine.close()
    return 0


async def readers(checks: SideChecks) -> None:
    """The table for a read tool's call on a second look (checks.off_target, strict)."""
    asked: dict[str, list[Question]] = {
        "reader (reader_question)": [reader_question],
        "topic, then reader, as the agent asks": [target_question, reader_question],
    }
    print()
    print("| question | read tool | reads run | changes refused | changes let through |")
    print("|---|---|---:|---:|---|")
    for label, questions in asked.items():
        for title in READERS:
            reads = [await passes(checks, questions, p, title) for p in READ_REQUESTS]
            through = [p for p in CHANGE_REQUESTS if await passes(checks, questions, p, title)]
            refused = len(CHANGE_REQUESTS) - len(through)
            print(
                f"| {label} | {title} | {sum(reads)}/{len(READ_REQUESTS)} "
                f"| {refused}/{len(CHANGE_REQUESTS)} | {', '.join(through)} |"
            )


# Requests that read a file they name by its stem, not its name ("my todo list" for
# todo.md), and requests that ask something else of such a file; each with the file
# the model's call would read. Written for this probe (--files), not from bench/prompts/.
FILE_READS = [
    ("what's on my todo list", "todo.md"), ("show me the todo list", "todo.md"),
    ("read me my to-do list please", "todo.md"), ("what did I put on the todo list?", "todo.md"),
    ("remind me what's in my notes", "notes.txt"), ("anything left on my todo list?", "todo.md"),
    ("what's in the notes file", "notes.txt"), ("read my notes out loud", "notes.txt"),
    ("what does the app log say", "logs/app.log"), ("show me the data file", "data.csv"),
    ("open my todo list", "todo.md"), ("todo list pls", "todo.md"),
]  # fmt: skip
FILE_OTHERS = [
    ("translate notes.txt to French", "notes.txt"), ("add eggs to my todo list", "todo.md"),
    ("who wrote Pride and Prejudice?", "pride.txt"),
    ("what should I put on my todo list?", "todo.md"), ("make my notes shorter", "notes.txt"),
    ("is a todo list a good idea?", "todo.md"), ("delete the todo list", "todo.md"),
    ("email my notes to Sam", "notes.txt"), ("summarise my notes in one word", "notes.txt"),
    ("print the todo list on paper", "todo.md"), ("how do I make a todo list app?", "todo.md"),
    ("sort my todo list alphabetically", "todo.md"),
]  # fmt: skip
FILE_TITLES = ("Show what a file contains", "List directory", "First lines of a file")


async def files(checks: SideChecks) -> None:
    """The topic question for a read of a file the request names by its stem: of the
    shipped wrappers' titles alone, and with the file after the title, as
    ``checks.off_target`` asks it."""
    print("| title | file named | reads run | others let through | those |")
    print("|---|---|---:|---:|---|")

    async def yes(prompt: str, topic: str) -> bool:
        return await checks.ask(target_question(prompt, topic), session="f") == "yes"

    for title in FILE_TITLES:
        for shown in (False, True):
            reads = [p for p, f in FILE_READS if await yes(p, f"{title} ({f})" if shown else title)]
            through = [
                p for p, f in FILE_OTHERS if await yes(p, f"{title} ({f})" if shown else title)
            ]
            print(
                f"| {title} | {'yes' if shown else 'no'} | {len(reads)}/{len(FILE_READS)} "
                f"| {len(through)}/{len(FILE_OTHERS)} | {', '.join(through)} |",
                flush=True,
            )


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
