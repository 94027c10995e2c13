"""Spelled-out numbers reach the model as digits (edgeagent.agent.numerals)."""

from __future__ import annotations

import pytest

from edgeagent.agent.events import FinalAnswer
from edgeagent.agent.numerals import as_digits
from tests.agent.scripted_agent import call, make_agent, run_turn


@pytest.mark.parametrize(
    ("said", "read"),
    [
        ("what is three hundred and twelve times seventeen", "what is 312 times 17"),
        ("take eighty nine off that", "take 89 off that"),
        ("point it at minus forty five", "point it at minus 45"),
        ("Gira la telecamera di venti gradi a destra", "Gira la telecamera di 20 gradi a destra"),
        ("Dreh die Kamera um fünfundzwanzig Grad", "Dreh die Kamera um 25 Grad"),
        ("gira a câmera trinta graus", "gira a câmera 30 graus"),
        ("Draai de camera twintig graden naar links", "Draai de camera 20 graden naar links"),
        ("Zet de lamp op vijfenzeventig procent", "Zet de lamp op 75%"),
        # A percent said in words is %, not "per 100".
        ("E abbassa la luminosità al dieci per cento.", "E abbassa la luminosità al 10 %."),
        ("Mets la lumière à cinquante pour cent", "Mets la lumière à 50 %"),
        ("set brightness to seventy five per cent", "set brightness to 75 %"),
        # Lone words under 10, ordinals, and words that are numbers only elsewhere stay.
        ("set it to nine", "set it to nine"),
        ("sei bravo, metti il led blu", "sei bravo, metti il led blu"),
        ("turn it on once, wait a second", "turn it on once, wait a second"),
        ("the elf on the shelf costs a cent", "the elf on the shelf costs a cent"),
        ("perfetto, grazie! sei un tesoro", "perfetto, grazie! sei un tesoro"),
        ("show the first line", "show the first line"),
        ("what is 15% of 200", "what is 15% of 200"),
        # Spanish "por" and Italian "per" between numbers are times, not "divided by".
        ("¿Cuánto es siete por ocho por nueve?", "¿Cuánto es 7 * 8 * 9?"),
        ("Quanto fa novecentonovantanove per tre?", "Quanto fa 999 * 3?"),
        ("Quanto fa 12 per 4?", "Quanto fa 12 * 4?"),
        ("10 diviso per 2", "10 diviso per 2"),
        ("8 dividido por 2", "8 dividido por 2"),
        ("apaga las luces una por una", "apaga las luces una por una"),
        ("vado per tre giorni", "vado per tre giorni"),
        ("60 km per hour", "60 km per hour"),
        ("twenty once \x001\x00 cent", "20 once \x001\x00 cent"),  # any text is safe
    ],
)
def test_spelled_out_numbers_are_read_as_digits(said: str, read: str) -> None:
    assert as_digits(said) == read


@pytest.mark.parametrize(
    ("said", "read"),
    [
        # Measured: sjuttio (70) set 75%, and 17 x 23 was answered "27", unworked.
        ("Sätt LED-listen på sjuttio procent, tack", "Sätt LED-listen på 70%, tack"),
        ("Vad blir sjutton gånger tjugotre?", "Vad blir 17 * 23?"),
        # Compounds are one word; groups of words are one number.
        ("vrid tjugotre grader", "vrid 23 grader"),
        ("Sjuttiofem grader", "75 grader"),
        ("tvåhundrafemtio ms", "250 ms"),
        ("etthundratjugo sekunder", "120 sekunder"),
        ("tretusen steg", "3000 steg"),
        ("tvåtusentrehundra", "2300"),
        ("ettusenett natt", "1001 natt"),
        ("två hundra meter", "200 meter"),
        ("tusen två hundra", "1200"),
        ("elva grader", "11 grader"),
        ("70 procent", "70%"),
        ("fem procent", "5%"),
        ("tio procent", "10%"),
        ("hundra delat med fyra", "100 / 4"),
        ("tio gånger tre delat med 2", "10 * 3 / 2"),
        # Under 10, not wholly number parts, "tio" (uncle) and thanks stay words.
        ("sex lampor", "sex lampor"),
        ("tre gånger om dagen", "tre gånger om dagen"),
        ("på femtiotalet, till tjugondag Knut", "på femtiotalet, till tjugondag Knut"),
        ("tiotal lampor", "tiotal lampor"),
        ("Tusen tack!", "Tusen tack!"),
        ("meu tio tem sex en tre", "meu tio tem sex en tre"),
        ("Il mio tío", "Il mio tío"),
    ],
)
def test_swedish_numbers_are_read_as_digits(said: str, read: str) -> None:
    assert as_digits(said) == read


def test_the_model_reads_the_prompt_s_numbers_as_digits() -> None:
    agent, _, lamp = make_agent(
        [
            (r"LED teal at 35%", "The lamp is teal at 35%."),
            (r"teal at 35 percent", call("set_led", color="teal", brightness=35)),
        ],
        default="I did not read a number.",
    )
    events = run_turn(agent, "make it teal at thirty five percent")
    assert lamp.commands == [("teal", 35)]
    assert isinstance(events[-1], FinalAnswer)
