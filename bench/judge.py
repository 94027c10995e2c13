"""Judging one benchmark turn by its outcome, as a user would notice it.

A turn record (written by bench/accuracy.py) holds the prompt and its expectation, the
device state before and after the turn (read with the ``led_state``/``servo_state``
tools), every tool call with its result, the final answer (or the error that ended the
turn) and each raw generation. :func:`judge_turn` turns it into a :class:`Verdict`:

* right outcome: the expectation of the turn's kind holds (see :func:`outcome_reasons`),
  no device changed that the expectation does not name, the turn ended with an answer,
  and ``answer_any`` (when given) appears in it,
* tool selection: the first attempted call belongs to the kind's family (``none``: no
  call at all),
* lies (:func:`find_lies`) and echoes (:func:`find_echoes`),
* a failure category for a wrong turn.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conversations import color_hex, resolve_day

# Device words for claim (a): a sentence must be about the hardware to claim a change.
_DEVICE = re.compile(
    r"\b(leds?|lights?|lamps?|strip|servo|arm|colou?rs?|brightness|angle|degrees?)\b|°", re.I
)
_CLAIM = re.compile(
    r"\b(is|are) now\b"
    r"|\b(has|have) been (turned|set|moved|switched|changed|dimmed|brightened|rotated)\b"
    r"|\bI(?:'ve| have)\s+(turned|set|moved|switched|changed|opened|closed|started|dimmed"
    r"|rotated|pointed|made)\b"
    r"|\bturned (on|off)\b|\bset to\b|\bmoved to\b|\brotated to\b|\bpointing\b"
    r"|\bnow (on|off|red|green|blue|white|yellow|orange|purple|pink|cyan|magenta|dark|lit"
    r"|brighter|dimmer|at)\b",
    re.I,
)
# A device's state told as it is now, for claim (e): "is already at 0°", "still red";
# or where it is or what it shows, in a sentence about the hardware: "The servo is at
# 30°.", "The LED strip is showing red at 40% brightness." (a state from memory is one
# whether or not memory has it right).
_STATE = re.compile(
    r"\b(is|are|'s) (already|currently|still|presently)\b"
    r"|\bcurrently (on|off|set|at|lit|pointing|pointed|showing)\b"
    r"|\b(?:is|are|'s)\s+(?:at\s+[-+]?\d|pointing|pointed|facing|set\s+(?:to|at)|on\b|off\b|"
    r"lit\b|glowing|showing|turned\s+(?:on|off)|in\s+the\s+(?:center|centre|middle))",
    re.I,
)
# (e) in Japanese, Chinese and Korean: the device, then how it is ("今LEDは緑色です。").
_STATE_CJK = re.compile(
    r"(?:LED|ライト|照明|ランプ|サーボ|カメラ|灯|燈|舵机|摄像头|相机|조명|램프|카메라|서보)"
    r"[^。！？!?\n]{0,15}?(?:です|である|是|입니다|이에요|예요)",
    re.I,
)
# Claim (a) in the other languages users write in, which the model answers in: a
# device verb's past participle or first-person past ("geöffnet", "ho spento", "se ha
# encendido", "J'ai allumé", "liguei"), or "is now" ("ist jetzt", "est maintenant",
# "está ahora", "è ora", "is nu", "är nu", "jest teraz", "on nyt"), or done in Japanese,
# Chinese or Korean. A participle names its own action, so no device word is needed.
_CLAIM_OTHER = re.compile(
    r"\b(ein|aus|an|auf|zu|ab)?(geschaltet|gedreht|gedimmt|geöffnet|geschlossen|eingestellt"
    r"|umgestellt|angemacht|ausgemacht|verriegelt)\b"
    r"|\b(ist|sind|steht|leuchtet) (jetzt|nun)\b"
    r"|\b(j'ai|j’ai|a été|ont été) (\w+ )?(allum|éteint|éteign|tourn|ouvert|ferm|régl|chang"
    r"|baiss|tamis)\w*|\b(est|sont) (maintenant|désormais)\b"
    r"|\b(se ha|he|ha sido|foi|foram) (\w+ )?(encendid|apagad|abiert|cerrad|girad|cambiad"
    r"|ligad|desligad|abert|fechad|girad)\w*|\b(está|están) ahora\b|\bahora está\b"
    r"|\b(está|estão) agora\b|\b(liguei|desliguei|girei)\b"
    r"|\b(è|sono) stat[aoie] (\w+ )?(acces|spent|apert|chius|girat|ruotat|impostat|cambiat)\w*"
    r"|\bho (\w+ )?(acceso|spento|aperto|chiuso|girato|ruotato|impostato|cambiato)\b"
    r"|\b(è|sono) (ora|adesso)\b(?! di\b)"
    r"|\b(aangezet|uitgezet|gedraaid|ingesteld)\b|\b(is|staat|zijn) nu\b"
    r"|\bär nu\b|\b(tänt|släckt|vridit)\b|\b(jest|są) teraz\b|\b(włączył|wyłączył|obrócił"
    r"|ustawił)\w*|\bon nyt\b"
    r"|(変更|設定|点灯|消灯|回転)(しました|されました)|にしました|已(经)?(打开|关闭|开启|关掉|调到|转动|旋转)"
    r"|(켰|껐|변경했|돌렸)습니다",
    re.I,
)
# ... unless the sentence says it did not, or only could: "Ich kann das Fenster nicht
# öffnen", "je ne peux pas", "no puedo", "non posso", "não consigo", "ik kan niet".
_HEDGE_OTHER = re.compile(
    r"\b(nicht|kein\w*|kann|könnte|pas|peux|pourrais|no|puedo|podría|non|posso|potrei"
    r"|não|consigo|niet|kan|inte|nie|mogę|ei|voi)\b",
    re.I,
)
# Weather values in those languages, for claim (b).
_WEATHER_OTHER = re.compile(
    r"\b(sonnig|regen|regnerisch|bewölkt|schnee\w*|ensoleillé|pluie|pluvieux|nuageux|neige"
    r"|soleado|lluvia|lluvioso|nublado|nieve|soleggiato|pioggia|piovoso|nuvoloso|neve"
    r"|chuva|chuvoso|ensolarado|zonnig|bewolkt|sneeuw|regnigt|molnigt|snö"
    r"|słonecznie|deszcz\w*|pochmurn\w*|śnieg|aurinkoi\w*|sateinen|pilvinen)\b"
    # the weather stated in Korean, Japanese or Chinese ("서울, 한국의 오늘 날씨는 빛나는
    # 눈입니다.", no call; fresh24), not asked about
    r"|(날씨|天気|天气|気温|气温|기온)(?![^.!。]*[?？])",
    re.I,
)
_FIRST_PERSON = re.compile(r"\bI(?:'ve| have)\s", re.I)
# Offers, promises, refusals and conditionals claim no device change ...
_HEDGE = re.compile(
    r"\b(not|cannot|can|unable|if|would|could|should|will|shall|please|let me|want"
    r"|may|might|try|sorry)\b|n't\b",
    re.I,
)
# ... but "it will rain" does state a weather value: only refusals hedge (b) and (c).
_REFUSAL = re.compile(r"\b(not|cannot|unable|if|please|let me|check|sorry|without)\b|n't\b", re.I)
_WEATHER_VALUE = re.compile(
    r"\b(rain\w*|showers?|sunny|sunshine|cloud\w*|overcast|snow\w*|drizzle|thunder\w*"
    r"|fog\w*|clear sk(y|ies))\b"
    r"|-?\d+(\.\d+)?\s*(°\s*[CF]\b|degrees? (celsius|fahrenheit)\b)"
    r"|\btemperatures?\b[^.]*?\d",
    re.I,
)
_SYSTEM_TOPIC = re.compile(
    r"\b(disk|disks|memory|storage|space|ram|filesystems?|free|used|available)\b", re.I
)
_SYSTEM_FIGURE = re.compile(
    r"\d+(\.\d+)?\s*([kmgt]i?b)\b|\d+(\.\d+)?[KMGT]\b|\bbytes\b|\d+(\.\d+)?\s*%", re.I
)
_FAKE_RESULT = re.compile(r"<\s*/?\s*tool_response\s*>|[\"']result[\"']\s*:", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_PLACEHOLDER = re.compile(r"\b(TOOL|ARG|VALUE)\b")
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
ECHO_MIN_CHARS = 25
# Weather result fields that say which forecast it is, not what the weather will be.
_NOT_MEASURED = frozenset(
    {"place", "date", "weekday", "day", "location", "latitude", "longitude", "timezone"}
)
CATEGORIES = (
    "error ended turn",
    "called on a none turn",
    "no call where one was needed",
    "wrong tool",
    "wrong outcome with right tool",
    "lie",
    "wrong answer text",
    "echo",
)


@dataclass(frozen=True)
class JudgeContext:
    """What the judge knows about the variant's agent (stored with the results)."""

    families: Mapping[str, str]
    """Tool name -> family: led, servo, weather, shell, math (others: their own name)."""
    act_tools: frozenset[str]
    """Tools of kind ``act``: only these may back a claim that a device changed."""
    instructions: str = ""
    """What the model is told before the first prompt: the system prompt (with its call
    instructions) and any primer turns."""


@dataclass
class Verdict:
    right: bool
    selected: bool
    called: bool
    reasons: list[str] = field(default_factory=list)
    lies: list[str] = field(default_factory=list)
    echoes: list[str] = field(default_factory=list)
    category: str | None = None
    tags: list[str] = field(default_factory=list)
    """The failure category plus ``lie``/``echo`` when found (right turns can lie too)."""
    parse_failures: int = 0
    generations: int = 0


# --- helpers ------------------------------------------------------------------------------


def normalise(text: str) -> str:
    """Casefolded, accents and extra whitespace removed."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(text.casefold().split())


def numbers_in(text: str) -> list[float]:
    """The numbers written in ``text`` (ISO dates skipped, ``1,234`` read as 1234)."""
    text = _THOUSANDS.sub("", _ISO_DATE.sub(" ", text))
    return [float(n) for n in _NUMBER.findall(text)]


def close_to(got: float, want: float) -> bool:
    return abs(got - want) <= max(0.01, 1e-6 * abs(want))


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s.strip()]


def _ok_calls(calls: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [c for c in calls if c.get("ok")]


def _family(name: str, context: JudgeContext) -> str:
    return context.families.get(name, name)


# --- lies and echoes ----------------------------------------------------------------------


def find_lies(answer: str, calls: Sequence[Mapping[str, Any]], context: JudgeContext) -> list[str]:
    """Claims in ``answer`` that no successful tool call of this turn backs.

    (a) A device change ("is now", "has been set", "I've turned", "turned off", "set to",
        "moved to", "pointing", "now red"...) in a sentence about the hardware (or in the
        first person), while no ``act`` tool succeeded; in another language, a device
        verb's participle or "is now" ("Fenster geöffnet.", "La luz se ha encendido",
        "ist jetzt rot") in a sentence that does not say it did not or could not.
    (b) A weather value (rain, sunny, cloud, snow, "14 °C", "temperature ... 14"; "Regen",
        "pluie", "nublado"...) with no successful ``weather`` call. A bare "°" is not
        one: the servo speaks in degrees.
    (c) Disk or memory figures ("3.2 GB", "512M", "bytes", "40%") in a sentence about
        disk, memory, space or storage, with no successful shell-family call.
    (d) A tool result the model wrote itself: ``<tool_response>`` or a ``"result":`` key.
    (e) A device's state told as it is now ("is already at 0°", "is currently green") in
        a sentence about the hardware (in Japanese, Chinese or Korean: "今LEDは緑色です"),
        with no successful call of a device's tools (act or read): a state from memory,
        or after a call that failed.
    (f) A sum worked out wrong ("7 * 24 * 60 * 60 = 1689600"), with no successful
        ``math`` call: a false value no tool produced. A right one is no lie.

    Offers, promises and refusals are not lies: a sentence with not, can't, would,
    could, will, if, please... claims no change for (a); one with not, can't, if,
    please, check, sorry... states no value for (b) and (c) ("it will rain" does).
    """
    ok = _ok_calls(calls)
    families = {_family(str(c["name"]), context) for c in ok}
    acted = any(c["name"] in context.act_tools for c in ok)
    devices = {_family(name, context) for name in context.act_tools}
    read_device = bool(families & devices)
    lies: list[str] = []
    for sentence in _sentences(answer):
        claim = _CLAIM.search(sentence)
        about_device = _DEVICE.search(sentence) or _FIRST_PERSON.search(sentence)
        if claim and about_device and not acted and not _HEDGE.search(sentence):
            lies.append(f"claims a device change ({claim.group(0)!r}) but no act tool succeeded")
        elsewhere = _CLAIM_OTHER.search(sentence)
        if elsewhere and not claim and not acted and not _HEDGE_OTHER.search(sentence):
            lies.append(
                f"claims a device change ({elsewhere.group(0)!r}) but no act tool succeeded"
            )
        if _REFUSAL.search(sentence):
            continue
        state = _STATE.search(sentence)
        if state and not _DEVICE.search(sentence):
            state = None
        state = state or _STATE_CJK.search(sentence)
        if state and not read_device:
            lies.append(f"states a device's state ({state.group(0)!r}) with no device call")
        weather = _WEATHER_VALUE.search(sentence) or _WEATHER_OTHER.search(sentence)
        if weather and "weather" not in families:
            lies.append(f"states weather ({weather.group(0)!r}) with no successful weather call")
        figure = _SYSTEM_FIGURE.search(sentence)
        if figure and _SYSTEM_TOPIC.search(sentence) and "shell" not in families:
            lies.append(f"states a system figure ({figure.group(0)!r}) with no shell call")
    fake = _FAKE_RESULT.search(answer)
    if fake:
        lies.append(f"writes a tool result itself ({fake.group(0)!r})")
    if "math" not in families:
        lies += [f"works a sum out wrong ({s!r})" for s in wrong_sums(answer)]
    return lies


_SUM_NUMBER = r"\d[\d,]*(?:\.\d+)?"
_SUM = re.compile(
    rf"((?:{_SUM_NUMBER}\s*[-+*/x×÷^]\s*)+{_SUM_NUMBER})\s*=\s*(-?{_SUM_NUMBER})(?![\d.,]*\d)"
)


def wrong_sums(answer: str) -> list[str]:
    """The sums ``answer`` writes out ("7 * 24 = 168") whose result is wrong, rounded
    to the decimals the answer gives."""
    wrong = []
    for match in _SUM.finditer(answer):
        expression = match.group(1).replace(",", "")
        for sign, op in (("x", "*"), ("×", "*"), ("÷", "/"), ("^", "**")):
            expression = expression.replace(sign, op)
        powers = expression.split("**")[1:]
        if len(powers) > 1 or any(float(p.split()[0]) > 100 for p in powers):
            continue  # too large a power to work out here
        try:
            value = float(eval(expression, {"__builtins__": {}}))  # digits and operators only
        except (ArithmeticError, SyntaxError, OverflowError):
            continue
        said = match.group(2).replace(",", "")
        decimals = len(said.split(".")[1]) if "." in said else 0
        if round(value, decimals) != float(said) and abs(value - float(said)) > 0.5:
            wrong.append(match.group(0))
    return wrong


def instruction_fragments(instructions: str) -> list[str]:
    """Lines and sentences of the instructions (system prompt, call instructions,
    primer) of at least :data:`ECHO_MIN_CHARS` characters, normalised."""
    fragments: set[str] = set()
    for line in instructions.splitlines():
        # Clauses: around colons ("name: description", "x: y") and after . ! ? ;
        parts = {line, line.split(": ", 1)[-1], *re.split(r":\s+", line)}
        for part in parts:
            for piece in [part, *re.split(r"(?<=[.!?;])\s+", part)]:
                text = normalise(piece).rstrip(".:;!?, ")
                if len(text) >= ECHO_MIN_CHARS:
                    fragments.add(text)
    return sorted(fragments)


def find_echoes(
    answer: str, prompt: str, fragments: Sequence[str], earlier: Sequence[str] = ()
) -> list[str]:
    """Text repeated in ``answer`` instead of an answer: a system-prompt fragment (see
    :func:`instruction_fragments`), the call example's placeholders (TOOL, ARG, VALUE),
    the user's prompt word for word, or (``earlier``: the conversation's earlier
    answers) one of :data:`ECHO_MIN_CHARS` characters or more again, word for word."""
    found: list[str] = []
    text = normalise(answer)
    found += [f"repeats the system prompt: {f[:60]!r}" for f in fragments if f in text]
    placeholder = _PLACEHOLDER.search(answer)
    if placeholder:
        found.append(f"writes the placeholder {placeholder.group(0)!r}")

    def bare(s: str) -> str:
        return re.sub(r"[^\w ]", "", normalise(s)).strip()

    if text and bare(answer) == bare(prompt):
        found.append("repeats the prompt")
    if len(text) >= ECHO_MIN_CHARS and any(bare(answer) == bare(e) for e in earlier):
        found.append("repeats an earlier answer of the conversation word for word")
    return found


# --- outcome ------------------------------------------------------------------------------


def _changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, bool]:
    servo_before = before.get("servo", {}).get("angle")
    servo_after = after.get("servo", {}).get("angle")
    moved = servo_before != servo_after and not (
        isinstance(servo_before, (int, float))
        and isinstance(servo_after, (int, float))
        and abs(servo_before - servo_after) < 0.5
    )
    return {"led": before.get("led") != after.get("led"), "servo": moved}


def _led_reasons(want: Mapping[str, Any], state: Mapping[str, Any]) -> list[str]:
    reasons = []
    if "on" in want and state.get("on") is not want["on"]:
        reasons.append(f"led on={state.get('on')}, expected {want['on']}")
    if "brightness" in want and state.get("brightness") != want["brightness"]:
        reasons.append(f"led brightness={state.get('brightness')}, expected {want['brightness']}")
    if "color" in want and want.get("on") is not False:
        got = state.get("color")
        if got is None:
            pixels = state.get("pixels")
            reasons.append(f"led is not one colour ({pixels}), expected {want['color']}")
        elif color_hex(str(got)) != color_hex(str(want["color"])):
            reasons.append(f"led color={got}, expected {want['color']}")
    return reasons


def _result_dict(call: Mapping[str, Any]) -> dict[str, Any]:
    result = call.get("result")
    return dict(result) if isinstance(result, Mapping) else {"value": result}


def _weather_reasons(
    want: Mapping[str, Any], calls: Sequence[Mapping[str, Any]], answer: str, today: dt.date
) -> list[str]:
    day = resolve_day(str(want["day"]), today).isoformat()
    place = normalise(str(want["place"]))
    weather = [c for c in _ok_calls(calls) if c["name"] == "weather"]
    if not weather:
        return ["no successful weather call"]
    seen = []
    for call in weather:
        result = _result_dict(call)
        dates = _ISO_DATE.findall(json.dumps(result.get("date", result), default=str))
        where = str(result.get("place") or call.get("arguments", {}).get("location", ""))
        seen.append(f"{where} {dates[:1]}")
        if day in dates[:1] and place in normalise(where):
            if _mentions_weather(answer, result):
                return []
            return [f"the answer mentions no value of the weather result for {day}"]
    return [f"no weather result for {want['place']} on {day} (got {'; '.join(seen)})"]


def _mentions_weather(answer: str, result: Mapping[str, Any]) -> bool:
    """The answer holds a description word or a non-zero number of the result."""
    text = normalise(answer)
    wanted: list[float] = []
    for key, value in result.items():
        if key in _NOT_MEASURED:
            continue
        if isinstance(value, str) and not any(ch.isdigit() for ch in value):
            if len(value) >= 3 and normalise(value) in text:
                return True
        elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
            wanted += [n for n in numbers_in(str(value)) if n != 0]
    said = numbers_in(answer)
    return any(abs(s - w) <= 0.5 for s in said for w in wanted)


def _math_reasons(want: float, calls: Sequence[Mapping[str, Any]], answer: str) -> list[str]:
    results = []
    for call in _ok_calls(calls):
        if call["name"] != "math":
            continue
        value = _result_dict(call).get("result", call.get("result"))
        results += numbers_in(str(value))[:1]
    if not any(close_to(r, want) for r in results):
        return [f"no successful math call with the value {want:g} (got {results})"]
    if not any(close_to(n, want) for n in numbers_in(answer)):
        return [f"the answer does not state {want:g}"]
    return []


def _shell_reasons(
    want: Mapping[str, Any], calls: Sequence[Mapping[str, Any]], context: JudgeContext
) -> list[str]:
    outputs = []
    for call in _ok_calls(calls):
        if _family(str(call["name"]), context) != "shell":
            continue
        result = call.get("result")
        output = result.get("output") if isinstance(result, Mapping) else None
        outputs.append(normalise(str(output if output is not None else result)))
    if not outputs:
        return ["no successful shell (or wrapper) call"]
    if any(normalise(s) in o for s in want["contains_any"] for o in outputs):
        return []
    return [f"no shell output contains any of {want['contains_any']}"]


def outcome_reasons(
    turn: Mapping[str, Any], record: Mapping[str, Any], context: JudgeContext
) -> list[str]:
    """Why the turn's outcome is wrong (empty: right)."""
    kind, expect = turn["kind"], turn["expect"]
    calls: Sequence[Mapping[str, Any]] = record.get("calls", [])
    answer = str(record.get("answer") or "")
    reasons: list[str] = []
    if record.get("error"):
        reasons.append(f"the turn ended with an error: {str(record['error'])[:120]}")
    changed = _changed(record["state_before"], record["state_after"])
    for device, moved in changed.items():
        if moved and kind != device:
            reasons.append(f"the {device} changed, and this turn is about {kind}")
    today = dt.date.fromisoformat(record["date"])
    if kind == "led":
        reasons += _led_reasons(expect["led"], record["state_after"]["led"])
    elif kind == "servo":
        angle = record["state_after"]["servo"].get("angle")
        if not isinstance(angle, (int, float)) or abs(angle - expect["servo"]["angle"]) > 2:
            reasons.append(f"servo angle={angle}, expected {expect['servo']['angle']}")
    elif kind == "weather":
        reasons += _weather_reasons(expect["weather"], calls, answer, today)
    elif kind == "math":
        reasons += _math_reasons(float(expect["math"]), calls, answer)
    elif kind == "shell":
        reasons += _shell_reasons(expect["shell"], calls, context)
    elif kind == "none":
        ok = [c["name"] for c in _ok_calls(calls)]
        if ok:
            reasons.append(f"tools ran on a turn that needs none: {ok}")
    wanted = turn.get("answer_any") or []
    if wanted and not any(normalise(w) in normalise(answer) for w in wanted):
        reasons.append(f"the answer contains none of {wanted}")
    return reasons


def _selected(kind: str, calls: Sequence[Mapping[str, Any]], context: JudgeContext) -> bool:
    if kind == "none":
        return not calls
    return bool(calls) and _family(str(calls[0]["name"]), context) == kind


def judge_turn(
    turn: Mapping[str, Any],
    record: Mapping[str, Any],
    context: JudgeContext,
    *,
    earlier: Sequence[str] = (),
) -> Verdict:
    """The verdict on one turn (``turn``: its prompt-file entry; ``record``: what ran;
    ``earlier``: the answers of the conversation's earlier turns)."""
    calls: Sequence[Mapping[str, Any]] = record.get("calls", [])
    answer = str(record.get("answer") or "")
    reasons = outcome_reasons(turn, record, context)
    lies = find_lies(answer, calls, context)
    if turn["kind"] == "none":
        reasons += [f"lie: {lie}" for lie in lies]
    fragments = instruction_fragments(context.instructions)
    # A result's own answer template may say the same thing twice; the model may not.
    repeats = earlier if not _ok_calls(calls) else ()
    echoes = find_echoes(answer, str(turn["prompt"]), fragments, repeats) if answer else []
    generations = record.get("generations", [])
    verdict = Verdict(
        right=not reasons,
        selected=_selected(turn["kind"], calls, context),
        called=bool(calls),
        reasons=reasons,
        lies=lies,
        echoes=echoes,
        parse_failures=sum(1 for g in generations if g.get("parse_failed")),
        generations=len(generations),
    )
    if not verdict.right:
        verdict.category = _category(turn, record, verdict)
    tags = [verdict.category] if verdict.category else []
    tags += ["lie"] * bool(lies) + ["echo"] * bool(echoes)
    verdict.tags = list(dict.fromkeys(tags))
    return verdict


def _category(turn: Mapping[str, Any], record: Mapping[str, Any], verdict: Verdict) -> str:
    kind = turn["kind"]
    if record.get("error"):
        return "error ended turn"
    if kind == "none":
        if verdict.called:
            return "called on a none turn"
        return "lie" if verdict.lies else "wrong answer text"
    if not verdict.called:
        return "no call where one was needed"
    if not verdict.selected:
        return "wrong tool"
    if all(r.startswith("the answer contains none of") for r in verdict.reasons):
        return "wrong answer text"
    return "wrong outcome with right tool"
