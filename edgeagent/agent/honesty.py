"""What an answer may say: the checks behind "never claim what did not happen".

The agent builds confirmations from tool results (``Tool.answer``), so most answers are
never generated. These checks cover the text the model still writes itself: an answer
without any successful call must not claim a change or report a tool's result, and an
answer must not repeat the instructions or the user's own words back.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any

from edgeagent.agent.asks import CHANGE
from edgeagent.llm.base import Message

log = logging.getLogger(__name__)

# A device change stated as done: "is now red", "I've turned it off", "moved to 30°".
_CLAIM = re.compile(
    r"\b(?:is|are)\s+now\b"
    r"|\b(?:has|have)\s+been\s+(?:turned|set|switched|moved|changed|opened|closed|started"
    r"|stopped|locked|unlocked|adjusted|rotated|pointed|dimmed|activated|updated)\b"
    r"|\bI(?:'ve|\s+have)?\s+(?:turned|set|switched|moved|changed|opened|closed|started"
    r"|stopped|locked|unlocked|adjusted|rotated|pointed|dimmed|activated|updated)\b"
    r"|\b(?:turned|switched)\s+(?:it\s+|them\s+)?(?:on|off)\b"
    r"|\bnow\s+(?:on|off|set|pointing|at)\b"
    r"|\b(?:set|moved|rotated|changed|pointed|turned)\s+to\b",
    re.IGNORECASE,
)
# The same in the languages the model answers in: "La luz se ha encendido en rojo.",
# "La luce è stata accesa", "Fenster geöffnet." (for "öffne bitte das Fenster", no
# call), "Das Licht ist jetzt rot", "J'ai allumé la lampe", "赤にしました" (records).
_CLAIM_ELSEWHERE = re.compile(
    # German: a device verb's participle, or "ist jetzt"
    r"\b(?:ein|aus|an|um|zu|auf|ab|hoch|runter)?(?:geschaltet|gedreht|gedimmt|geändert|"
    r"geöffnet|geschlossen|verriegelt|eingestellt)\b|\b(?:an|aus|zu|auf)gemacht\b"
    r"|\b(?:ein|um|hoch|runter|zuruck|zurück)gestellt\b"
    r"|\b(?:ist|sind|steht|leuchtet)\s+(?:jetzt|nun)\b"
    # French
    r"|\b(?:j['’]ai|a\s+été|ont\s+été)\s+(?:\w+\s+)?(?:allum|éteint|régl|tourn|ouvert|"
    r"ferm|chang|baiss|augment|tamis|mis)\w*|\b(?:est|sont)\s+(?:maintenant|désormais)\b"
    # Spanish and Portuguese
    r"|\b(?:se\s+ha|he|ha\s+sido|han\s+sido|foi|foram)\s+(?:\w+\s+)?(?:encendid|apagad|"
    r"abiert|cerrad|cambiad|girad|ajustad|puest|ligad|desligad|abert|fechad|alterad|mudad)\w*"
    r"|\b(?:está|están|esta)\s+ahora\b|\bahora\s+está\b|\b(?:está|estão)\s+agora\b"
    r"|\bagora\s+está\b|\b(?:liguei|desliguei|girei|mudei)\b"
    # Italian
    r"|\b(?:è|e|sono)\s+stat[aoie]\s+(?:\w+\s+)?(?:acces|spent|apert|chius|impostat|girat|"
    r"ruotat|cambiat|regolat|mess)\w*|\bho\s+(?:\w+\s+)?(?:acceso|spento|aperto|chiuso|"
    r"impostato|girato|ruotato|cambiato|regolato|messo)\b|\b(?:è|sono)\s+(?:ora|adesso)\b"
    r"(?!\s+di\b)"
    # Dutch, Swedish, Polish, Finnish
    r"|\b(?:aan|uit)?gezet\b|\b(?:aan|uit)gedaan\b|\bgedraaid\b|\bingesteld\b|\b(?:is|staat|zijn)\s+nu\b"
    r"|\bär\s+nu\b|\bhar\s+(?:\w+\s+)?(?:tänt|släckt|vridit|öppnat|stängt|ändrat)\b"
    r"|\b(?:jest|są)\s+teraz\b|\bteraz\s+jest\b|\b(?:włączył|wyłączył|obrócił|ustawił|"
    r"otworzył|zamknął|zmienił)\w*|\bon\s+nyt\b"
    # Japanese, Chinese, Korean
    r"|(?:変更|設定|点灯|消灯|回転|移動)(?:しました|されました)|にしました"
    r"|已(?:经)?(?:打开|关闭|开启|关掉|调到|调整|设置|转动|旋转|改成|变成)"
    r"|(?:켰|껐|변경했|설정했|돌렸)습니다",
    re.IGNORECASE,
)
# A device's state stated as it is now: "the LED is currently green", "it's still at 30°",
# "the servo is already at 0°" (said after a call that failed); or a device named with
# where it is or what it shows: "The servo is at 30°." for "wheres the servo at", with
# no call (fresh51), "The LED strip is showing red at 40% brightness." from memory.
_STATE = re.compile(
    r"\b(?:is|are|'s)\s+(?:currently|still|presently|already)\b"
    r"|\bcurrently\s+(?:on|off|set|at|lit|pointing|pointed|showing|glowing)\b"
    r"|\b(?:servo|camera|cam|leds?|lights?|lamps?|strip)\b[^.!?\n]{0,40}?\b(?:is|are|'s)\s+"
    r"(?:at\s+[-+]?\d|pointing|pointed|facing|set\s+(?:to|at)|on\b|off\b|lit\b|glowing|"
    r"showing|turned\s+(?:on|off)|in\s+the\s+(?:center|centre|middle))",
    re.IGNORECASE,
)
# ... and in other languages: "Das Licht ist gerade rot", "La lumière est déjà
# allumée", "La cámara sigue en 30°", "la luce è ancora accesa".
_STATE_ELSEWHERE = re.compile(
    r"\b(?:ist|sind|steht|stehen|leuchtet|zeigt)\s+(?:gerade|noch|bereits|schon|momentan|"
    r"derzeit|aktuell)\b|\b(?:est|sont)\s+(?:actuellement|déjà)\b"
    r"|\b(?:está|están|esta)\s+(?:actualmente|todavía|ya)\b|\bsiguen?\s+(?:encendid|apagad|en)\w*"
    r"|\b(?:è|sono)\s+(?:attualmente|ancora|già)\b|\b(?:está|estão)\s+(?:atualmente|ainda|já)\b"
    r"|\b(?:is|staat)\s+(?:momenteel|nog|al)\b|\bär\s+(?:fortfarande|redan)\b"
    r"|\bjest\s+(?:obecnie|nadal|już|wciąż)\b"
    # Japanese, Chinese and Korean: the device, then how it is ("今LEDは緑色です。" for
    # "今LEDって何色になってる？", no call, on a purple strip; fresh57).
    r"|(?:LED|ライト|照明|ランプ|サーボ|カメラ|灯|燈|舵机|摄像头|相机|조명|램프|카메라|서보)"
    r"[^。！？!?\n]{0,15}?(?:です|である|是|입니다|이에요|예요)",
    re.IGNORECASE,
)
# A refusal: "I can't do that here", "I'm sorry, but…", "none of my tools can…"; and
# in the languages the model answers in ("Je ne peux pas vous aider avec cela." for
# "Quels processus tournent en ce moment ?": no second look, no call; blind prompts).
# An apology is none: "I'm sorry if I caused any confusion." for "ha, that's on me
# then" got a second look, and the side questions let a forced LED call run (fresh30).
_REFUSAL = re.compile(
    r"\bI(?:'m|\s+am)?\s+(?:can't|cannot|can\s+not|unable|not\s+able|sorry|afraid)\b"
    r"(?<!sorry(?=\s+(?:if|to\s+hear|for|about)\b))"
    r"|\bI\s+can't\b|\bnone\s+of\s+my\s+(?:tools|devices)\b|^\s*sorry\b(?!\s+(?:if|to\s+hear)\b)"
    r"|\bje\s+ne\s+(?:peux|suis\s+pas\s+en\s+mesure)\b|^\W*d[ée]sol[ée]e?\b"
    r"|\bich\s+kann\s+(?:das\s+|dies\s+|leider\s+)*nicht\b|\bkann\s+ich\s+(?:leider\s+)?nicht\b"
    r"|\bes\s+tut\s+mir\s+leid\b|\bno\s+puedo\b|^\W*lo\s+siento\b|\bnon\s+posso\b"
    r"|^\W*mi\s+dispiace\b|\bn[ãa]o\s+(?:posso|consigo)\b|\bik\s+kan\s+(?:dat\s+|dit\s+)?niet\b"
    r"|\bnie\s+mog[eę]\b|\bjag\s+kan\s+inte\b|できません|申し訳",
    re.IGNORECASE,
)
# A promise instead of the deed: "Ja, ich kann die Heizung anmachen." for "Kannst du auch
# die Heizung anmachen?", "Yes, I can turn the camera", "Ja, ik kan de gordijnen dichtdoen".
# Swedish, Danish and Norwegian in either order: "Ja, kan jag släcka ledlisten." for
# "Kan du släcka ledlisten?" (fresh50).
_PROMISE = re.compile(
    r"^\W*(?:yes|yeah|sure|of\s+course|certainly|ja|klar|oui|bien\s+s[uû]r|s[ií]|claro|certo|"
    r"sim|tak|zeker)\b[\s,!.]*(?:I\s+can|I\s+will|I'll|ich\s+kann|kann\s+ich|ich\s+werde|"
    r"je\s+peux|je\s+vais|puedo|posso|kan\s+ik|ik\s+kan|mog[eę]|jag\s+kan|kan\s+jag|"
    r"jeg\s+kan|kan\s+jeg)\b",
    re.IGNORECASE,
)
# A word that stands for something named before: "centre it over the crib", "dim them
# to 35", "put that back" (English; a referent in another language is left alone); or
# for something done before: "hmm no, and back again" (a servo turn undone, refused by
# the topic question asked of it alone; blind prompts), "Encore vingt degrés".
_REFERS_BACK = re.compile(
    r"\b(?:it|its|them|they|that|those|this|these|there|again|once\s+more|wieder|encore|"
    r"de\s+nuevo|di\s+nuovo|de\s+novo|opnieuw|igen)\b",
    re.IGNORECASE,
)
# A correction of the turn before: it names only the new value ("no wait, gold", "nah,
# crimson", "make it teal instead") or turns the move before around ("now go 50 the other
# way" after 30 to the right: asked alone, the capability question said the servo could
# not; blind prompts), and what it changes was named or done before.
_CORRECTS = re.compile(
    r"^\W*(?:no|nope|nah|not\s+that|actually|wait|hmm+|rather|make\s+that|scratch\s+that|"
    r"on\s+second\s+thought|nein|nee|doch|lieber|non|plutôt|en\s+fait|mejor|anzi|meglio|"
    r"não|nej|hellre|liever)\b"
    r"|\b(?:instead|rather\s+than|stattdessen|plutôt|en\s+su\s+lugar|invece|em\s+vez|"
    r"in\s+plaats\s+daarvan|istället|the\s+other\s+(?:way|direction|side)|"
    r"the\s+opposite\s+(?:way|direction|side)|andersrum|in\s+die\s+andere\s+richtung|"
    r"dans\s+l'autre\s+sens|de\s+l'autre\s+c[oô]t[eé]|al\s+rev[eé]s|"
    r"(?:hacia|para)\s+el\s+otro\s+lado|dall'altra\s+parte|nell'altra\s+direzione|"
    r"para\s+o\s+outro\s+lado|de\s+andere\s+kant|[aå]t\s+andra\s+h[aå]llet)\b",
    re.IGNORECASE,
)
# A request's first word that joins it to the turn before: "and if I do that 4 times a
# week?", "now knock 10% off", "y la mitad?", "und morgen?".
_JOINS = re.compile(
    r"^\W*(?:and|then|now|so|plus|also|ok(?:ay)?|y|e|und|et|en|och|i|ed|pero|aber|mais)\b",
    re.IGNORECASE,
)
# A tool's reply written by the model itself.
_FAKE_RESULT = re.compile(r"</?tool_response>|\"(?:ok|result)\"\s*:", re.IGNORECASE)
# A sum worked out in the answer: numbers, an operator, "=", a number ("how many seconds
# are there in a week?" answered "7 * 24 * 60 * 60 = 1689600", no call; blind prompts).
_CALCULATION = re.compile(r"\d[\d.,]*\s*(?:\*\*|[-+*/×÷^x])\s*[\d(][\d.,\s*/×÷^x+()-]*=\s*-?\d")
# A measured value stated as fact: weather, temperatures, disk and memory figures; the
# weather in the languages the model answers in ("서울, 한국의 오늘 날씨는 빛나는 눈입니다.",
# no call; blind prompts); and a date as the weather tool writes
# it ("Tampereen sää on huomenna 2026-01-03." for "Millainen sää on huomenna
# Tampereella?", no call: the model has no calendar; blind prompts).
_MEASUREMENT = re.compile(
    r"\b(?:sunny|cloudy|overcast|rain(?:y|ing)?|snow(?:y|ing)?|drizzle|thunderstorms?|"
    r"forecast|humidity)\b|-?\d+(?:\.\d+)?\s*(?:°\s*[CF]|degrees? (?:celsius|fahrenheit)|"
    r"[KMGT]i?B\b|bytes\b)"
    r"|\b(?:sonnig|regnerisch|bewölkt|ensoleillé|pluvieux|nuageux|soleado|lluvioso|nublado|"
    r"soleggiato|piovoso|nuvoloso|chuvoso|ensolarado|zonnig|bewolkt|regnigt|molnigt|"
    r"słonecznie|pochmurno|aurinkoinen|sateinen|pilvinen)\b|\b\d{4}-\d{2}-\d{2}\b"
    r"|날씨|天気|天气|気温|气温|기온",
    re.IGNORECASE,
)
# The placeholders of a call template; a real answer never holds them as words.
_PLACEHOLDERS = re.compile(r"\b(?:TOOL|ARG|VALUE)\b")
MIN_ECHO_CHARS = 25
MIN_ASKED_BACK_CHARS = 8
ASKED_BACK_RATIO = 0.85
"""How like the request an answer with a question mark must be to ask it back: on
every answer of the benchmarks' records, the two asked back scored 0.93 and 0.95 and
the closest answer that restated a question as a statement 0.93, without a "?"."""


def claims_change(text: str) -> bool:
    """True when ``text`` states that something was changed or done, in English or in
    one of the languages the model answers in."""
    return bool(_CLAIM.search(text) or _CLAIM_ELSEWHERE.search(text))


def states_state(text: str) -> bool:
    """True when ``text`` states how something is right now (a device's state)."""
    return bool(_STATE.search(text) or _STATE_ELSEWHERE.search(text))


def tells_device(text: str) -> bool:
    """True when ``text`` says what a device did or how it is: only a tool may say it."""
    return claims_change(text) or states_state(text)


def refuses(text: str) -> bool:
    """True when ``text`` says the request cannot be done."""
    return bool(_REFUSAL.search(text))


def promises(text: str) -> bool:
    """True when ``text`` says yes, it can, instead of doing it ("Ja, ich kann die
    Heizung anmachen."): said without a call, it tells the user a device will change
    that no tool changed (five no-tool turns in the benchmarks' records, for absent
    devices or chores, and two where a tool was meant: "kannst du die Kamera um 15 Grad
    nach links drehen?"). Only an answer of that one sentence: "Sure, I'll tell you a
    joke: ..." goes on to do what it says."""
    said = text.strip()
    one_sentence = not re.search(r"[.!?:;]\s+\S", said)  # "Sure, I'll tell you one: ..."
    return one_sentence and bool(_PROMISE.search(said))


def stands_in(text: str, *, asked: str = "") -> bool:
    """True when ``text`` stands in for doing what was asked: a refusal
    (:func:`refuses`), a promise (:func:`promises`) or the request ``asked`` back
    (:func:`asks_back`). A second look may replace it with a call, so it is held back
    from the stream until then."""
    return refuses(text) or promises(text) or asks_back(text, asked)


def asks_back(text: str, asked: str) -> bool:
    """True when ``text`` is the request ``asked``, all but a word or two, as a question
    again: "Olá! Como vai estar o tempo em Lisboa amanhã?" came back as "Olá! Como vai o
    tempo em Lisboa amanhã?", and "e dopodomani lì?" as "Dopodomani lì?" (blind
    prompts). An answer that restates a question as its answer ("It is not safe to
    look directly at the sun.") asks nothing."""
    said, request = _norm(text), _norm(asked)
    if not {"?", "？"} & set(text) or len(said) < MIN_ASKED_BACK_CHARS or not request:
        return False
    return SequenceMatcher(None, said, request).ratio() >= ASKED_BACK_RATIO


def begins_asking_back(text: str, asked: str) -> bool:
    """True when streamed ``text`` so far is how the request ``asked`` begins: it may
    be asked back (:func:`asks_back`), so it is held back until the end."""
    said = _norm(text)
    return len(said) >= MIN_ASKED_BACK_CHARS and _norm(asked).startswith(said)


def refuses_a_change(text: str) -> bool:
    """True when ``text`` refuses a change to files or the system ("none of my tools
    can delete files"): what no read tool does."""
    return refuses(text) and bool(CHANGE.search(text))


def refers_back(request: str) -> bool:
    """True when ``request`` says "it", "them", "that", "again" or the like, or
    corrects the turn before (:func:`corrects`): what it is about may be named or done
    only in an earlier turn."""
    return bool(_REFERS_BACK.search(request)) or corrects(request)


def corrects(request: str) -> bool:
    """True when ``request`` corrects the turn before: "no wait, gold", "nah,
    crimson", "make it teal instead", "nein, lieber grün", "now go 50 the other way"."""
    return bool(_CORRECTS.search(request))


def continues(request: str) -> bool:
    """True when ``request`` may go on from the turn before: it refers back
    (:func:`refers_back`), holds a number, or opens with "and", "now", "then" or the
    like. "who wrote pride and prejudice", after a square root, does none of these."""
    return refers_back(request) or has_number(request) or bool(_JOINS.search(request))


def fakes_result(text: str) -> bool:
    """True when ``text`` holds a tool result the model wrote itself."""
    return bool(_FAKE_RESULT.search(text))


def writes_calculation(text: str) -> bool:
    """True when ``text`` works a sum out itself: "7 * 24 * 60 * 60 = 1689600"."""
    return bool(_CALCULATION.search(text))


def reports_measurement(text: str) -> bool:
    """True when ``text`` states weather or a disk/memory figure (a tool's kind of value)."""
    return bool(_MEASUREMENT.search(text))


NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
"""A number written in digits."""


_NUMBER_WORD = re.compile(
    r"\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
    r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|"
    r"sixty|seventy|eighty|ninety|hundred|thousand|million|dozen|half|squared|cubed)\b",
    re.IGNORECASE,
)


def has_number(text: str) -> bool:
    """Whether ``text`` holds a number, in digits or English words."""
    return bool(NUMBER.search(text) or _NUMBER_WORD.search(text))


def new_numbers(text: str, prompt: str) -> list[str]:
    """Numbers in ``text`` that the prompt does not hold (a value someone computed)."""
    given = {n.replace(",", "") for n in NUMBER.findall(prompt)}
    return [n for n in NUMBER.findall(text) if n.replace(",", "") not in given]


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w%#°-]+", " ", text.lower()).split())


def echoes(text: str, *, instructions: str, prompt: str) -> bool:
    """True when ``text`` repeats the instructions, a placeholder, or the prompt itself."""
    said = _norm(text)
    if not said:
        return False
    if _PLACEHOLDERS.search(text) or said == _norm(prompt):
        return True
    for line in instructions.splitlines():
        line_norm = _norm(line)
        if len(line_norm) >= MIN_ECHO_CHARS and line_norm in said:
            return True
    return False


def repeats(text: str, earlier: Sequence[str]) -> bool:
    """True when ``text`` (of :data:`MIN_ECHO_CHARS` or more) is one of the ``earlier``
    answers again, word for word."""
    said = _norm(text)
    return len(said) >= MIN_ECHO_CHARS and any(said == _norm(e) for e in earlier)


def copies_example(text: str, *, prompt: str, examples: Sequence[Message]) -> bool:
    """True when ``text`` repeats the answer of one of ``examples`` (the primer's worked
    turns) to a different request: "none of my tools can water plants" for "who won the
    World Cup?"."""
    said = _norm(text)
    asked = ""
    for message in examples:
        if message["role"] == "user":
            asked = _norm(message["content"])
        elif message["role"] == "assistant":
            shown = _norm(message["content"])
            if len(shown) >= MIN_ECHO_CHARS and shown in said and asked != _norm(prompt):
                return True
    return False


def did_not_work(record: Mapping[str, Any]) -> str:
    """The answer for a failed call's ``record``: its error, said as a failure."""
    return f"Sorry, that did not work: {record.get('error') or 'the tool failed'}."


def checked_answer(
    text: str,
    *,
    prompt: str,
    raw: str,
    records: Sequence[Mapping[str, Any]],
    instructions: str,
    examples: Sequence[Message],
    missing: Sequence[str] = (),
) -> str:
    """The model's own answer ``text`` (``raw``: as generated), unless it says what no
    tool result of the turn (``records``) backs.

    * No call of the turn succeeded, yet the text claims a change or holds a tool
      result the model wrote itself: the answer is the failure (from its error), or
      that nothing was changed. After failed calls, a state told from memory ("the
      servo is already at 0°") is the failure too.
    * The text repeats the instructions, the prompt (or asks it back: :func:`asks_back`)
      or a primer answer (``examples``): a plain "didn't understand"; or, when every
      call of the turn failed, the failure: that there is no such tool, when every
      call named a tool that does not exist (``missing``: the names), else the last
      call's error ("reboot the pi" as ``shell("sudo reboot")``, then a copied primer
      refusal: the user hears that ``sudo`` is not allowed).
    """
    unfounded = claims_change(text) or fakes_result(raw)
    failed = [r for r in records if not r.get("ok")]
    if failed and len(failed) == len(records) and (unfounded or tells_device(text)):
        return did_not_work(failed[-1])
    if not any(r.get("ok") for r in records) and unfounded:
        log.info("answer claimed what no tool did: %r", text[:200])
        return "I did not change anything: I could not tell which tool to use for that."
    if (
        not text
        or echoes(text, instructions=instructions, prompt=prompt)
        or asks_back(text, prompt)
        or copies_example(text, prompt=prompt, examples=examples)
    ):
        if records and all(r["name"] in missing for r in records):
            return no_such_tool(str(records[0]["name"]))
        if failed and len(failed) == len(records):
            return did_not_work(failed[-1])
        return "Sorry, I did not understand that. Could you say it another way?"
    return text


_TOOL_NAME = re.compile(r"[a-z][a-z0-9_.-]{0,39}")


def no_such_tool(name: str) -> str:
    """The answer for a turn whose calls all named a tool that does not exist.

    Measured in blind sets: "set me a reminder" came as a ``reminder`` call, "how long
    is the extended cut of ..." as ``movie``; the model then copied a primer answer
    and the turn said only "did not understand", where the user needs to hear that
    there is no such tool and that nothing was done. A name that is no plain lower-case
    word (a placeholder such as ``TOOL``) is not repeated."""
    named = f' "{name}"' if _TOOL_NAME.fullmatch(name) else " such"
    return f"Sorry, I have no{named} tool, so I did not do that."


# --- the side questions the checks ask the model alone ---------------------------

YES_NO = 'root ::= "yes" | "no"\n'


def calculation_question(prompt: str) -> str:
    return f'Request: "{prompt}"\nIs this request a math problem to calculate? Answer yes or no.'


def target_question(prompt: str, device: str) -> str:
    """Asked alone, without the conversation: measured on Qwen2.5-Coder-1.5B, the
    question in context, or as a choice between devices, just agrees with the call."""
    return f'Request: "{prompt}"\nIs this request about {device}? Answer yes or no.'


def kind_question(prompt: str, kind: str) -> str:
    """Whether a request is of one ``kind`` ("a unit conversion"), asked alone of a
    read call that works on numbers nobody gave (:attr:`~edgeagent.tools.tool.Tool.
    given_in`). Measured on Qwen2.5-Coder-1.5B with requests written for it, none in
    bench/prompts/ (bench/math_given.py): "Is this a unit conversion?" said yes to 12
    of 12 conversions that give no number ("how many minutes in a day?") and to 2 of 20
    questions of fact (both "... in fahrenheit"); "Is this request about a unit
    conversion?" to 5 of the 20; "Does this request give the numbers to calculate
    with?", "Is this a question of general knowledge?" and "Is the answer a fact to
    look up?" said yes to all 32."""
    return f'Request: "{prompt}"\nIs this {kind}? Answer yes or no.'


def capability_question(prompt: str, device: str) -> str:
    """The second question before an acting call, asked only after a "yes" to
    :func:`target_question`. Measured alone (bench/side_questions.py, requests written
    for it, not the accuracy benchmark's): each question lets through requests for
    devices that are not there (a fan, a vacuum, a thermostat), but mostly different
    ones; together they let through half as many, and refuse no real LED or servo
    request more. It costs a second side question per acting call (about 0.7 s of
    prefill on 2 x86 cores). Tried: the request first, as in the first question, so
    the side context could reuse that prefix; the model then said yes to every absent
    device asked about the LED strip."""
    return (
        f'Device: {device}.\nRequest: "{prompt}"\n'
        f"Can this device do what the request asks? Answer yes or no."
    )


def reader_question(prompt: str, title: str) -> str:
    """The capability question for a read tool, asked on a second look
    (:meth:`~edgeagent.agent.checks.SideChecks.off_target`, ``strict``). Measured on
    Qwen2.5-Coder-1.5B with ``bench/side_questions.py`` (14 requests that read files, 14
    that change them): asked alone of "List directory", "Show a file" and "Search
    files", 13, 10 and 8 of the changes refused, 13, 13 and 14 of the reads let through.
    Without it, "delete the logs folder", refused by the model, ran ``ls logs`` on a
    second look (the topic question says it is about listing files). On a throwaway
    set, "(read-only: it never changes anything)" after the title refused 7 of 14
    changes for "List directory" and "(read-only)" 8; saying what it cannot do, 13."""
    return (
        f"Tool: {title}. It only reads; it cannot change, delete or create anything.\n"
        f'Request: "{prompt}"\nCan this tool do what the request asks? Answer yes or no.'
    )
