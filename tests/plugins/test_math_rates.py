"""The ``math`` tool's rereads of a rate asked "per" something and of a mean from a
total and a count (``edgeagent_math.rates``, ``edgeagent_math.mean``)."""

from __future__ import annotations

import edgeagent_math
import pytest
from edgeagent_math.evaluator import evaluate
from edgeagent_math.mean import mean_as_said
from edgeagent_math.rates import rate_as_said
from edgeagent_math.said import as_said

from edgeagent.testing import load_plugin


def assert_read(expression: str, request: str, value: float | None) -> None:
    """``as_said`` of ``expression`` for ``request`` writes an expression worth
    ``value``; ``None``: it leaves the model's."""
    read = as_said({"expression": expression}, request)
    if value is None:
        assert read is None
    else:
        assert read is not None
        assert evaluate(read["expression"]) == pytest.approx(value)


@pytest.mark.parametrize(
    ("expression", "request_", "value"),
    [
        # The two quantities divided the wrong way, or the "per 100" left out.
        (
            "265 / 19.1",
            "Yesterday's trip: 265 km, and the pump took 19.1 litres. Litres per 100 km?",
            19.1 / 265 * 100,
        ),
        (
            "41.6 / 612",
            "Für 612 km habe ich 41,6 Liter gebraucht. Wie viele Liter pro 100 km sind das?",
            41.6 / 612 * 100,
        ),
        (
            "26.6 / 380",
            "J'ai parcouru 380 km avec 26,6 litres. Combien de km par litre ?",
            380 / 26.6,
        ),
        ("450 / 30", "Gastei 30 litros em 450 km, quantos litros a cada 100 km?", 30 / 450 * 100),
        ("35 / 500", "Con 35 litri ho fatto 500 km: quanti litri ogni 100 km?", 7),
        ("44.8 / 640", "J'ai roulé 640 km avec 44,8 l, ça fait combien en l/100km ?", 7),
        ("23.8 / 340", "what's the consumption in L/100 km after 340 km on 23.8 l?", 7),
        # Money per unit, named or asked as a price; a price given for a quantity.
        ("9.6 * 1.2", "Pagué 9,60 € por 1,2 kg de queso. ¿Cuántos euros por kilo?", 8),
        ("4 / 6", "4 kg of potatoes cost $6, what's the price per kilo?", 1.5),
        ("12 * 2.5", "Ho speso 12 euro per 2,5 kg di ciliegie, quanti euro al chilo?", 4.8),
        # Miles and gallons; a speed, converted from minutes to the hours asked.
        ("12 / 336", "used 12 gallons for 336 miles, how many mpg is that?", 28),
        ("130 * 2.5", "I covered 130 miles in 2.5 hours, what's my speed in mph?", 52),
        ("10 / 48", "I ran 10 km in 48 minutes. What's that in km/h?", 12.5),
        # A rate given per one unit, asked the other way round or in other units.
        ("100 / 3.6 * 1000", "convert 100 km per hour to m per s", 100 / 3.6),
        ("16 / 100", "my car does 16 km per litre; what's that in litres per 100 km?", 6.25),
        # A thing the request counts: a mass converted to the unit asked, per loaf.
        ("1.8 / 6", "Con 1,8 kg di farina faccio 6 filoni: quanti grammi per filone?", 300),
        ("2 / 16", "2 kg of pasta for 16 people, how many grams per person?", 125),
        ("84 * 12", "I walked 84 km in 12 days, how many km per day?", 7),
        ("0.75 / 5", "Für 5 Brote brauche ich 0,75 kg Mehl. Wie viel Gramm pro Brot?", 150),
    ],
)
def test_a_rate_asked_per_something_is_its_two_quantities_divided(
    expression: str, request_: str, value: float
) -> None:
    assert_read(expression, request_, value)


@pytest.mark.parametrize(
    ("expression", "request_"),
    [
        # The model's expression is right already, written either way.
        ("31.5 / 420 * 100", "I drove 420 km on 31.5 litres, what's that in litres per 100 km?"),
        ("31.5 * 100 / 420", "I drove 420 km on 31.5 litres, what's that in litres per 100 km?"),
        ("2500 / 8", "Ho 2,5 kg di impasto, 8 pagnotte: quanti grammi per pagnotta?"),
        # Two quantities of one measure, or none of one.
        ("1", "I drove 200 km then 220 km on 31.5 litres, litres per 100 km?"),
        ("1", "I used 31.5 litres, how many litres per 100 km?"),
        ("1", "I mixed 300 g of salt into 2 kg of flour, how many grams per kilo?"),
        ("90 * 2.5", "driving at 90 km/h for 2.5 hours, how many km per minute?"),
        # No rate asked: none named, one given with its number, one stated.
        ("31.5 * 420", "I drove 420 km on 31.5 litres, how many litres is that?"),
        ("6 * 3.5", "the car uses 6 litres per 100 km, how many litres for 350 km?"),
        ("3 * 2.5", "the price per kilo is 3 €, what do 2.5 kg cost?"),
        # A number that is no quantity, a thousands separator, a count not matched.
        ("1", "I drove 420 km on 31.5 litres with 3 passengers, litres per 100 km?"),
        ("1", "I drove 1,250 km on 90 litres, litres per 100 km?"),
        ("2 / 8", "2 kg of dough makes 8 rolls, how many grams per loaf?"),
        # Unrelated math.
        ("12 * 7", "what is 12 times 7"),
        ("2 ** 10", "what's 2 to the power of 10 per the usual rules?"),
    ],
)
def test_a_rate_not_asked_or_not_plain_is_left_as_written(expression: str, request_: str) -> None:
    assert rate_as_said({"expression": expression}, request_) is None


@pytest.mark.parametrize(
    ("expression", "request_", "value"),
    [
        # Numbers made up where the request gives only their sum.
        ("sum([40, 45, 50]) / 3", "the 24 measurements sum to 1020; average?", 42.5),
        ("mean([1830, 12])", "the 12 invoices add up to 1830, what's the average invoice?", 152.5),
        (
            "1875 * 25",
            "Die 25 Schüler haben zusammen 1875 Punkte. Wie hoch ist der Durchschnitt?",
            75,
        ),
        (
            "sum([16, 344]) / 2",
            "Les 16 mesures totalisent 344 degrés, quelle est la moyenne ?",
            21.5,
        ),
        ("27.9 * 9", "Los 9 paquetes pesan en total 27,9 kg, ¿cuál es el peso promedio?", 3.1),
        (
            "mean([30, 186])",
            "I 30 giorni di giugno hanno un totale di 186 mm di pioggia: "
            "qual è la media giornaliera?",
            6.2,
        ),
        ("2000 * 8", "As 8 parcelas somam 2000 reais, qual é a média?", 250),
        # Asked "per" the counted thing, or "each".
        ("96 * 16", "a total of 96 over 16 sessions, how much is that per session?", 6),
        ("130 - 4", "the 4 parts sum to 130, how long is each on average?", 32.5),
        ("245", "over 7 days I spent 245 euros in total, what's my daily average?", 35),
    ],
)
def test_a_mean_from_a_total_and_a_count_is_the_total_divided(
    expression: str, request_: str, value: float
) -> None:
    assert_read(expression, request_, value)


@pytest.mark.parametrize(
    ("expression", "request_"),
    [
        ("862 / 40", "if the 40 temperature readings add up to 862, what's the mean?"),
        ("mean([10, 8, 12])", "the 3 numbers add up to 30 and one is 12, mean of the others?"),
        ("60 / 3", "I cycled 60 km in a total of 3 hours, what's my average speed?"),
        ("1", "40 readings, the highest is 30, what's the mean?"),
        ("862 * 2", "the 40 readings add up to 862, double that"),
        ("1", "x and 40 add up to 90, what's the average?"),
        ("1", "the 40 readings add up to 862, what's the median?"),
        ("1", "the 40 readings add up to 1,862, what's the mean?"),
        ("2 + 2", "what is 2 + 2"),
    ],
)
def test_a_mean_not_asked_or_not_plain_is_left_as_written(expression: str, request_: str) -> None:
    assert mean_as_said({"expression": expression}, request_) is None


def test_a_rate_of_two_units_is_not_scaled_as_though_in_one() -> None:
    # The model's value is right: scaling it by the km's 1000 would not be.
    assert as_said({"expression": "100 / 3.6"}, "convert 100 km per hour to m per s") is None


def test_the_math_tool_reads_both_again_and_its_result_is_the_rate() -> None:
    loaded = load_plugin(edgeagent_math, name="math")
    try:
        reread = loaded.registry.get("math").reread
        assert reread is not None
        asked = "if i drive 340 km on 23.8 litres, whats that in litres per 100 km"
        read = reread({"expression": "340 / 23.8"}, asked)
        assert read == {"expression": "23.8 / 340 * 100"}
        assert loaded.call("math", **read).result["result"] == 7
        read = reread({"expression": "mean([40, 41, 42, ...])"}, "40 readings total 862. mean?")
        assert read == {"expression": "862 / 40"}
        assert loaded.call("math", **read).result["result"] == 21.55
    finally:
        loaded.close()
