"""What names a tool's device or topic itself, so that its side questions are not asked
(the servo's, the forecast's and the calculator's ``named_in``)."""

from __future__ import annotations

import pytest
from edgeagent_math.named import names_a_calculation
from edgeagent_servo.names import names_the_servo
from edgeagent_weather.asked import names_the_weather


@pytest.mark.parametrize(
    ("request_", "named"),
    [
        ("servo to 30 degrees", True),
        ("point the camera 60 degrees right of center", True),
        ("Dreh die Kamera nach links", True),
        ("gira la cámara a la izquierda", True),
        ("カメラを左に30度", True),
        ("Riporta la telecamera al centro.", True),
        # named, but nowhere to point
        ("move the servo to Japan", False),
        ("turn the camera on", False),
        # what else a camera does, or told to stay
        ("can the camera zoom in 3x?", False),
        ("take a photo with the camera at 45 degrees", False),
        ("and centre the servo... actually no, leave it where it is", False),
        # pointing, but at no servo
        ("put the pan on the stove at 200 degrees", False),
        ("rotate 30 degrees left", False),
    ],
)
def test_names_the_servo(request_: str, named: bool) -> None:
    assert names_the_servo(request_) is named


@pytest.mark.parametrize(
    ("request_", "named"),
    [
        ("will it rain in Oslo tomorrow?", True),
        ("weather in Stockholm today", True),
        ("Wie wird das Wetter morgen in Dresden?", True),
        ("va a llover en Madrid?", True),
        ("do I need an umbrella in Dublin", True),
        ("какая погода в Москве", True),
        ("Yarın yağmur yağacak mı?", True),  # Turkish
        ("부산 날씨 알려줘", True),  # Korean, which folding splits into letters
        ("Τι καιρό θα κάνει αύριο;", True),  # Greek
        ("Millainen sää on huomenna?", True),  # Finnish
        ("Jaké bude zítra počasí?", True),  # Czech
        ("Milyen lesz az időjárás holnap?", True),  # Hungarian
        ("Cum va fi vremea mâine?", True),  # Romanian
        ("hava çok kirli bugün", False),  # air, not the weather
        ("¿qué es eso?", False),  # Hungarian rain is Spanish "that"
        ("Che tempo fa domani?", True),
        ("Que tempo faz hoje?", True),
        ("¿Qué tiempo hará el sábado?", True),
        ("Quel temps fera-t-il demain ?", True),
        ("quanto tempo ci vuole?", False),  # time
        ("combien de temps il faut ?", False),
        ("¿cuánto tiempo falta?", False),
        # temperature is the oven's and the aquarium's too
        ("what water temperature do neon tetras like?", False),
        ("make the lights rainbow", False),
        ("how far is Saturn from the sun", False),
    ],
)
def test_names_the_weather(request_: str, named: bool) -> None:
    assert names_the_weather(request_) is named


@pytest.mark.parametrize(
    ("request_", "named"),
    [
        ("(48 + 12) / 4 - 7", True),
        ("what's 25 times 4", True),
        ("what is 18% of 250", True),
        ("5!", True),
        ("square root of 144", True),
        ("average of 70, 85 and 91", True),
        ("sin(30)", True),
        # no number to work on
        ("what is a logarithm?", False),
        # numbers, but no calculation named
        ("73 means best regards, what does 88 mean", False),
        ("make the lights tan 50%", False),
        ("summer 2024 was hot", False),
        ("set a timestamp of 12", False),
    ],
)
def test_names_a_calculation(request_: str, named: bool) -> None:
    assert names_a_calculation(request_) is named
