"""The LED plugin: the SPI waveform, the ws281x driver, the tools on the mock strip, the
backend and plugin contracts on every backend that loads here, the strip opened only by
its first call, and ``real`` failing clearly where there is no strip."""

from __future__ import annotations

import asyncio
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import edgeagent_led
import httpx
import pytest
from edgeagent_led.backends import BACKENDS, LedBackend
from edgeagent_led.backends.mock import MockLed
from edgeagent_led.backends.spi import SPI_HZ, SpiLed, encode_ws2812
from edgeagent_led.controller import LedController
from edgeagent_led.names import names_the_strip, said_colors
from edgeagent_led.options import LedOptions
from edgeagent_led.strip import LedState

from edgeagent.compose import build_tools
from edgeagent.config import Config, ToolsConfig
from edgeagent.errors import HardwareError, SimulatorUnreachableError
from edgeagent.plugin import PluginContext, make_tool
from edgeagent.testing import BackendContract, LoadedPlugin, PluginContract, load_plugin
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from tests.plugins.rereads import reread

RED, GREEN, BLUE, WHITE, BLACK = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255), (0, 0, 0)


def open_backend(options: LedOptions) -> LedBackend:
    """The backend ``options`` choose, opened now (the plugin opens it on first use)."""
    return BACKENDS.open(options, PluginContext(name="led", simulator_url="http://unused"))


def ws2812_spi_bits(rgb: tuple[int, int, int]) -> bytes:
    """The WS2812 spec, spelled out: 24 bits G, R, B, MSB first; each data bit becomes
    three SPI bits at 2.4 MHz (1 -> 110, 0 -> 100)."""
    r, g, b = rgb
    data = f"{g:08b}{r:08b}{b:08b}"
    spi = "".join("110" if bit == "1" else "100" for bit in data)
    return int(spi, 2).to_bytes(len(spi) // 8, "big")


# --- SPI waveform --------------------------------------------------------------------


@pytest.mark.parametrize("color", [RED, GREEN, BLUE, WHITE, BLACK, (18, 52, 86)])
def test_spi_encoding_is_bit_exact_for_one_pixel(color: tuple[int, int, int]) -> None:
    encoded = encode_ws2812([color])
    assert encoded[:9] == ws2812_spi_bits(color)


def test_spi_encoding_known_bytes_grb_order_and_reset_latch() -> None:
    encoded = encode_ws2812([RED, BLUE])
    zero, one = bytes([0x92, 0x49, 0x24]), bytes([0xDB, 0x6D, 0xB6])  # 100x8, 110x8
    assert encoded[:9] == zero + one + zero  # red is G=0, R=255, B=0
    assert encoded[9:18] == zero + zero + one
    latch = encoded[18:]
    assert set(latch) == {0}
    assert len(latch) * 8 / SPI_HZ >= 280e-6  # WS2812B needs >= 280 us low to latch


def fake_spidev(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """spidev replaced by a device that records each write; the list of writes."""
    written: list[bytes] = []

    class FakeSpiDev:
        def open(self, bus: int, device: int) -> None:
            self.opened = (bus, device)

        def writebytes2(self, data: bytes) -> None:
            written.append(bytes(data))

        def close(self) -> None:
            pass

    monkeypatch.setitem(sys.modules, "spidev", types.SimpleNamespace(SpiDev=FakeSpiDev))
    return written


def test_spi_backend_writes_scaled_pixels_to_the_device(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    written = fake_spidev(monkeypatch)
    (tmp_path / "spidev0.0").touch()
    led = SpiLed.open(LedOptions(backend="real", driver="spi", count=2), dev_dir=tmp_path)
    led.write(LedState(on=True, brightness=50, pixels=("#ff0000", "#ffffff")))
    half = round(255 * 0.5)
    assert written[-1][:18] == ws2812_spi_bits((half, 0, 0)) + ws2812_spi_bits((half,) * 3)
    led.write(LedState(on=False, brightness=50, pixels=("#ff0000", "#ffffff")))
    assert written[-1][:18] == ws2812_spi_bits(BLACK) * 2


# --- ws281x through a fake rpi_ws281x ------------------------------------------------


@pytest.fixture
def fake_ws281x(fake_library: Callable[[str], ModuleType]) -> ModuleType:
    return fake_library("rpi_ws281x")


def test_ws281x_backend_fills_the_pixel_buffer_and_shows(fake_ws281x: Any) -> None:
    options = LedOptions(backend="real", driver="ws281x", count=4, pin=18, max_brightness=200)
    led = open_backend(options)
    (strip,) = fake_ws281x.strips
    assert (strip.num, strip.pin, strip.freq_hz, strip.channel) == (4, 18, 800_000, 0)

    led.write(LedState(on=True, brightness=50, pixels=("#ff0000", "#00ff00", "#0000ff", "#123456")))
    brightness, pixels = strip.shown[-1]
    assert pixels == [0xFF0000, 0x00FF00, 0x0000FF, 0x123456]
    assert brightness == 100  # 50 % of max_brightness 200

    led.write(LedState(on=False, brightness=50, pixels=("#ff0000",) * 4))
    assert strip.shown[-1][0] == 0
    assert len(strip.shown) == 2


# --- the tools on the mock strip ---------------------------------------------------


def run_tool(executor: ToolExecutor, name: str, **arguments: Any) -> dict[str, Any]:
    return asyncio.run(executor.execute(ToolCall(name, arguments))).to_dict()


@pytest.fixture
def mock_led() -> tuple[MockLed, ToolExecutor, list[float]]:
    sleeps: list[float] = []
    backend = MockLed(count=8)
    controller = LedController(backend=backend, count=8, effect_s=1.0, sleep=sleeps.append)
    registry = ToolRegistry([make_tool(controller.led), make_tool(controller.led_state)])
    return backend, ToolExecutor(registry), sleeps


def test_color_name_lights_the_whole_strip_and_reads_back(mock_led: Any) -> None:
    backend, executor, _ = mock_led
    assert run_tool(executor, "led", color="red") == {
        "ok": True,
        "result": {"on": True, "brightness": 100, "color": "red"},
    }
    assert backend.state.pixels == ("#ff0000",) * 8
    assert run_tool(executor, "led_state")["result"]["color"] == "red"


@pytest.mark.parametrize(
    ("said", "named"),
    [("soft yellow", "yellow"), ("Deep Navy", "navy"), ("plain white", "white"),
     ("warm pale pink", "pink"), ("light blue", "lightblue"), ("dark orange", "darkorange"),
     ("orange-red", "orangered"), ("sky-blue", "skyblue")],
)  # fmt: skip
def test_a_colour_with_a_shade_word_is_that_colour_and_named_so(
    mock_led: Any, said: str, named: str
) -> None:
    # "soft yellow, around twenty percent" failed as an unknown colour; the answer names
    # the colour that was set, not the words asked for.
    _, executor, _ = mock_led
    assert run_tool(executor, "led", color=said)["result"]["color"] == named


@pytest.mark.parametrize(
    "said", ["soft", "sunset yellow", "yellowish", "soft sunset", "red-ish", "#ff-000"]
)
def test_a_colour_that_is_no_colour_without_its_shade_word_fails_naming_it(
    mock_led: Any, said: str
) -> None:
    backend, executor, _ = mock_led
    result = run_tool(executor, "led", color=said)
    assert not result["ok"] and f"unknown color {said!r}" in result["error"]
    assert backend.state.on is False


def test_range_brightness_and_off_only_change_what_is_given(mock_led: Any) -> None:
    backend, executor, _ = mock_led
    run_tool(executor, "led", color="#00F")
    result = run_tool(executor, "led", color="lime", first=2, last=3, brightness=40)["result"]
    assert backend.state.pixels == ("#0000ff",) * 2 + ("#00ff00",) * 2 + ("#0000ff",) * 4
    assert result["pixels"] == ["0-1: blue", "2-3: lime", "4-7: blue"]
    run_tool(executor, "led", on=False)
    assert backend.state == LedState(False, 40, backend.state.pixels)
    assert backend.state.rendered() == [(0, 0, 0)] * 8


@pytest.mark.parametrize(
    ("word", "name", "hex_color"),
    [
        ("morado", "purple", "#800080"),  # "Pon las luces en morado", passed on as written
        ("Weiß", "white", "#ffffff"),
        ("grün", "green", "#008000"),
        ("rouge", "red", "#ff0000"),
        ("giallo", "yellow", "#ffff00"),
        ("rosa", "pink", "#ffc0cb"),
        ("bleu ciel", "skyblue", "#87ceeb"),
        ("dunkelblau", "darkblue", "#00008b"),
        ("lavande", "lavender", "#e6e6fa"),
        ("żółty", "yellow", "#ffff00"),
    ],
)
def test_a_colour_word_of_another_language_is_its_css_colour(
    mock_led: Any, word: str, name: str, hex_color: str
) -> None:
    backend, executor, _ = mock_led
    assert run_tool(executor, "led", color=word)["result"]["color"] == name
    assert backend.state.pixels == (hex_color,) * 8


@pytest.mark.parametrize(
    ("arguments", "request_", "read"),
    [
        # The request names one colour of another language; the model wrote another.
        ({"color": "red"}, "Muda a cor da fita LED para roxo.", {"color": "purple"}),
        ({"color": "blue"}, "Mets la bande en bleu ciel", {"color": "skyblue"}),
        # The brightness nobody said goes too (edgeagent_led.unsaid).
        ({"color": "purple", "brightness": 9}, "luce viola", {"color": "violet"}),
        # Already that colour, none or two named, or off: as written.
        ({"color": "Purple"}, "para roxo", None),
        ({"color": "red"}, "make it red", None),
        ({"color": "blue"}, "von rot zu blau", None),
        ({"color": "off"}, "apaga o vermelho", None),
        # No colour given: the one named (fresh67; below).
        ({"brightness": 30}, "luz roja al 30", {"brightness": 30, "color": "red"}),
        # An argument the tool lacks, for what it has: off is on=false.
        ({"off": True}, "apaga la luz", {"on": False}),
        ({"off": False, "color": "red"}, "rot bitte", {"on": True, "color": "red"}),
        ({"off": True, "on": True}, "hmm", None),  # both: the error names the bad one
        # An effect the request does not name: dropped ("full power" sets the level).
        (
            {"color": "white", "effect": "blink"},
            "bright white, full power",
            {"color": "white", "brightness": 100},
        ),
        ({"color": "red", "effect": "pulse"}, "pulse it red", None),
        ({"color": "red", "effect": "blink"}, "lass es rot blinken", None),
        # Pixels the request does not name: dropped.
        (
            {"color": "purple", "brightness": 10, "first": 0, "last": 0},
            "make the night lamp a soft purple, and really low, ten percent",
            {"color": "purple", "brightness": 10},
        ),
        ({"color": "red", "first": 0, "last": 2}, "make the first three LEDs red", None),
        ({"color": "red", "first": 3}, "pixel 3 red please", None),
        ({"first": 0}, "look all the way to the left", None),  # no colour: it fails
        ({"color": "blue", "first": 2, "last": 5}, "leds 2 to 5 blue", None),
        ({"color": "green", "first": 0}, "los primeros dos píxeles en verde", None),
        # The one CSS colour name the request says, where the model wrote another name.
        ({"color": "orange"}, "switch it on, a nice warm orangered?", {"color": "orangered"}),
        # A name of two words says its last word no more (fresh33: "blue" ran).
        ({"color": "blurple"}, "make it sky blue", {"color": "skyblue"}),
        ({"color": "blue"}, "make the lights sky blue then", {"color": "skyblue"}),
        ({"color": "blue"}, "deep sky blue please", {"color": "deepskyblue"}),
        ({"color": "pink"}, "make the light pink", None),  # pink, or lightpink
        ({"color": "lightpink"}, "make the light pink", None),
        ({"color": "blurple"}, "deep crimson please", {"color": "crimson"}),
        ({"color": "#ffd8a8"}, "warm white please", None),  # its own shade, as a hex
        ({"color": "red"}, "from red to blue", None),  # two names: the model's reading
        ({"color": "orange"}, "make it cosy", None),  # none named
        ({"color": "off"}, "kill the red", None),
        ({"color": "blue", "brightness": 100}, "no tan brillante, en azul", None),
        ({"color": "white"}, "pon la luz tan brillante como puedas", None),
        # An "off" colour with a brightness, for a request that says nothing of off.
        (
            {"color": "off", "brightness": 40},
            "turn the shop light down to 40, the glare is killing my eyes",
            {"brightness": 40},
        ),
        (
            {"color": "off", "brightness": 40},
            "turn the shop light down to 40, the glare off the anvil is killing my eyes",
            {"brightness": 40},
        ),
        ({"color": "off", "brightness": 40}, "lights off, and keep 40 for later", None),
        ({"color": "off", "brightness": 40}, "switch off the lamp, 40 next time", None),
        ({"color": "off", "brightness": 40}, "40 then off", None),
        ({"color": "off"}, "turn it down", None),  # no brightness: the model's reading
        # Dutch, which the model writes as a colour of its own.
        ({"color": "red"}, "Zet de ledstrip op paars", {"color": "purple"}),
        # A shade and colours beyond the basic ones, in five languages (blind prompts).
        (
            {"color": "darkerblue"},
            "mach das Aquarienlicht bitte dunkelblau",
            {"color": "darkblue"},
        ),
        ({"color": "white"}, "Mets la lampe en lavande, s'il te plaît.", {"color": "lavender"}),
        ({"color": "blue"}, "pon la tira LED en azul marino al 30%", {"color": "navy"}),
        ({"color": "blue"}, "Mets la bande en bleu foncé", {"color": "darkblue"}),
        ({"color": "green"}, "la luce verde chiaro", {"color": "lightgreen"}),
        ({"color": "red"}, "Sätt lampan på blå", {"color": "blue"}),
        ({"color": "red"}, "Ustaw lampę na zielony", {"color": "green"}),
        ({"color": "blue"}, "bleu ou vert foncé ?", None),  # two named: the model's reading
        ({"color": "red"}, "I rode home, now make it red", None),
        # The one colour named, where the model wrote none (fresh67: the strip stayed cyan).
        (
            {"brightness": 50},
            "make the strip white at half brightness",
            {"brightness": 50, "color": "white"},
        ),
        ({"brightness": 40}, "Mach das Licht rot, 40 Prozent", {"brightness": 40, "color": "red"}),
        ({"brightness": 90}, "bump the brightness to ninety but keep the teal", None),
        ({"brightness": 40}, "set it to 40%", None),
        ({"on": False}, "turn off the red light", None),
    ],
)
def test_a_colour_the_request_names_in_another_language_is_read_again(
    arguments: dict[str, Any], request_: str, read: dict[str, Any] | None
) -> None:
    assert reread(edgeagent_led, "led", arguments, request_) == read


@pytest.mark.parametrize(
    ("arguments", "request_", "read"),
    [
        # A request that names the strip and only a level changes only the level.
        (
            {"color": "red", "brightness": 100, "effect": "pulse"},
            "can u turn the shop sign lights up to 90",
            {"brightness": 90},
        ),
        ({"color": "white", "brightness": 40}, "bench lights to 25%, please", {"brightness": 25}),
        (
            {"on": True, "brightness": 80},
            "switch the lamp on at 60 percent",
            {"on": True, "brightness": 60},
        ),
        ({"brightness": 70}, "Sätt LED-listen på 70 procent, tack", None),  # as said already
        # A colour said (in any language, or as the model wrote it), two numbers, a
        # change by an amount, pixels, no name of the strip, or no level: as written.
        ({"color": "blue", "brightness": 90}, "lights blue at 90", None),
        (
            {"color": "tan", "brightness": 70},
            "make the shop lights bread-coloured, tan at 70",
            None,
        ),
        ({"color": "blue", "brightness": 30}, "pon la tira LED en azul al 30%", None),
        ({"brightness": 100}, "lights up by 20", None),
        ({"brightness": 100}, "the first 3 lights at 50", None),
        ({"brightness": 100}, "set it to 90", None),
        ({"brightness": 100}, "lights to 90 for 10 minutes", None),
        ({"color": "red", "brightness": 100}, "lights to 250", None),
    ],
)
def test_a_level_alone_is_the_one_change_a_request_that_names_the_strip_asks(
    arguments: dict[str, Any], request_: str, read: dict[str, Any] | None
) -> None:
    assert reread(edgeagent_led, "led", arguments, request_) == read


def reread_on_a_purple_strip(arguments: dict[str, Any], request_: str) -> Any:
    """The ``led`` reread of ``arguments`` for ``request_``, the mock strip purple at
    40 %."""
    loaded = load_plugin(edgeagent_led, name="led", options={"backend": "mock"})
    try:
        loaded.call("led", color="purple", brightness=40)
        hook = loaded.registry.get("led").reread
        assert hook is not None
        return hook(arguments, request_)
    finally:
        loaded.close()


@pytest.mark.parametrize(
    ("arguments", "request_", "read"),
    [
        # A level named relative to the strip's (40 %): the model wrote one of its own.
        ({"brightness": 50}, "now make the light half as bright as it is right now", 20),
        ({"brightness": 110}, "a bit too dark, add 10 to the brightness", 50),
        ({"brightness": 50}, "twice as bright please", 80),
        ({"brightness": 100}, "too dim in here, double it", 80),
        ({"brightness": 30}, "make it 15 percent dimmer", 25),
        ({"brightness": 90}, "bump it up by 80", 100),  # capped
        ({"brightness": 90}, "reduce it by 60", 1),  # floored: dim, never off
        ({"brightness": 50}, "dim the strip by half, my eyes", 20),
        ({"brightness": 50}, "cut the brightness in half", 20),
        ({"brightness": 10}, "and half again", 20),
        ({"brightness": 50}, "reduz o brilho pela metade", 20),
        ({"color": "white", "brightness": 100}, "plain white, same brightness", "kept"),
        ({"color": "white", "brightness": 50}, "switch it to white but keep it that dim", "kept"),
        ({"color": "white", "brightness": 50}, "white, at the same level", "kept"),
        ({"brightness": 30}, "keep it dim, 30 percent", None),  # a level is named
        # An end: the end.
        ({"color": "orange", "brightness": 10}, "lamp: orange, dimmest setting", 1),
        ({"brightness": 50}, "minimum brightness please", 1),
        ({"brightness": 80}, "as bright as it goes", 100),
        ({"brightness": 1}, "lowest setting", None),
        ({"brightness": 3000}, "max it out", 100),  # as 30 * 100 (fresh59)
        ({"brightness": 60}, "turn them all the way up", 100),
        ({"brightness": 10}, "all the way down please", 1),
        ({"color": "red", "brightness": 10}, "Đổi đèn sang màu đỏ, độ sáng thấp nhất nhé.", 1),
        # Already that level, an absolute level, two changes, no brightness: as written.
        ({"brightness": 20}, "half as bright", None),
        ({"brightness": 50}, "set it to half brightness", None),
        ({"brightness": 70}, "add 10, no, add 30", None),
        ({"color": "red"}, "red, and add 10 to the brightness", None),
    ],
)
def test_a_brightness_named_relative_to_the_strips_is_computed_from_it(
    arguments: dict[str, Any], request_: str, read: int | str | None
) -> None:
    again = reread_on_a_purple_strip(arguments, request_)
    if read == "kept":
        assert again == {"color": "white"}  # the strip's 40 % stays
    else:
        assert (again and again["brightness"]) == read


@pytest.mark.parametrize(
    ("arguments", "request_", "read"),
    [
        # The strip is purple; the model wrote purple where the request names another.
        (
            {"color": "purple", "brightness": 60},
            "make my reading lamp orange at 60%, this purple is giving me a headache",
            {"color": "orange", "brightness": 60},
        ),
        ({"color": "Purple"}, "enough purple, coral please", {"color": "coral"}),
        ({"color": "Purple"}, "enough purple, light blue please", None),  # blue or lightblue
        # Kept, not named, two others, or another colour than the strip's: as written.
        ({"color": "purple"}, "keep it purple, not orange", None),
        ({"color": "purple"}, "purple instead of orange", None),
        ({"color": "purple"}, "make it orange", {"color": "orange"}),  # the one name said
        ({"color": "purple"}, "purple is out, red or blue?", None),
        ({"color": "orange"}, "orange please, this purple hurts", None),
        ({"brightness": 20}, "dim the purple, orange later", None),
    ],
)
def test_a_change_to_the_strips_own_colour_is_the_other_colour_named(
    arguments: dict[str, Any], request_: str, read: dict[str, Any] | None
) -> None:
    assert reread_on_a_purple_strip(arguments, request_) == read


def test_bad_arguments_come_back_as_readable_errors(mock_led: Any) -> None:
    backend, executor, _ = mock_led
    bad_color = run_tool(executor, "led", color="blurple")
    assert not bad_color["ok"] and "blurple" in bad_color["error"]
    assert "#rrggbb" in bad_color["error"]
    too_bright = run_tool(executor, "led", brightness=150)
    assert "brightness must be 0-100, got 150" in too_bright["error"]
    off_strip = run_tool(executor, "led", color="red", first=6, last=9)
    assert "6-9" in off_strip["error"] and "<= 7" in off_strip["error"]
    assert backend.history == []  # nothing reached the strip
    # From the first pixel past the last: the whole strip ("bright white" as 0-100).
    whole = run_tool(executor, "led", color="white", first=0, last=100)["result"]
    assert whole["color"] == "white" and backend.state.pixels == ("#ffffff",) * 8


def test_blink_is_bounded_and_ends_on_the_requested_state(mock_led: Any) -> None:
    backend, executor, sleeps = mock_led
    result = run_tool(executor, "led", color="red", effect="blink")["result"]
    assert result["effect"] == "blink for 1 s"
    assert sum(sleeps) == pytest.approx(1.0)  # effect_s bounds the animation
    ons = [s.on for s in backend.history]
    assert ons[:4] == [False, True, False, True]
    assert backend.history[-1] == LedState(True, 100, ("#ff0000",) * 8)


def test_pulse_varies_brightness_then_restores_it(mock_led: Any) -> None:
    backend, executor, _ = mock_led
    run_tool(executor, "led", color="white", brightness=80, effect="pulse")
    levels = {s.brightness for s in backend.history[:-1]}
    assert len(levels) > 3 and max(levels) <= 80
    assert backend.history[-1].brightness == 80


@pytest.mark.parametrize("word", ["off", "OFF", "black", "none", "dark", "#000000"])
def test_off_colors_turn_the_strip_off_and_keep_its_colors(mock_led: Any, word: str) -> None:
    backend, executor, _ = mock_led
    run_tool(executor, "led", color="red", brightness=30)
    assert run_tool(executor, "led", color=word)["result"] == {
        "on": False,
        "brightness": 30,
        "color": "red",
    }
    assert backend.state.rendered() == [BLACK] * 8
    run_tool(executor, "led", on=True)  # "turn it back on" brings the red back
    assert backend.state.rendered()[0] == (round(255 * 0.3), 0, 0)


def test_black_on_a_pixel_range_darkens_only_those_pixels(mock_led: Any) -> None:
    backend, executor, _ = mock_led
    run_tool(executor, "led", color="blue")
    result = run_tool(executor, "led", color="off", first=0, last=3)["result"]
    assert result == {"on": True, "brightness": 100, "pixels": ["0-3: black", "4-7: blue"]}
    assert backend.state.rendered() == [BLACK] * 4 + [BLUE] * 4


@pytest.mark.parametrize(
    "arguments",
    [{"brightness": 0}, {"brightness": 0, "on": True}, {"color": "navy", "brightness": 0}],
)
def test_brightness_zero_is_the_dimmest_light(mock_led: Any, arguments: dict[str, Any]) -> None:
    # What the model writes for "dim it to the minimum" or "make it dark blue".
    backend, executor, _ = mock_led
    run_tool(executor, "led", color="lime", brightness=40)
    result = run_tool(executor, "led", **arguments)["result"]
    assert result["on"] is True and result["brightness"] == 1
    assert all(pixel != BLACK for pixel in backend.state.rendered())


@pytest.mark.parametrize("arguments", [{"on": False}, {"brightness": "off"}])
def test_off_is_off_and_the_level_is_kept(mock_led: Any, arguments: dict[str, Any]) -> None:
    backend, executor, _ = mock_led
    run_tool(executor, "led", color="lime", brightness=40)
    assert run_tool(executor, "led", **arguments)["result"] == {
        "on": False,
        "brightness": 40,
        "color": "lime",
    }
    assert backend.state.rendered() == [BLACK] * 8
    assert run_tool(executor, "led", on=True)["result"]["brightness"] == 40


def test_brightness_one_is_the_dimmest_light_not_darkness(mock_led: Any) -> None:
    backend, executor, _ = mock_led
    run_tool(executor, "led", color="#200000", first=0, last=0)
    result = run_tool(executor, "led", color="navy", first=1, last=7, brightness=1)["result"]
    assert result["on"] is True and result["brightness"] == 1
    # 32 x 1 % and 128 x 1 % round to 0; the dimmest level still lights every pixel.
    assert backend.state.rendered() == [(1, 0, 0)] + [(0, 0, 1)] * 7
    assert backend.state.rendered(max_brightness=40)[0] == (1, 0, 0)


@pytest.mark.parametrize(
    ("word", "level"), [("minimum", 1), ("min", 1), ("MAX", 100), ("30%", 30), ("half", 50)]
)
def test_brightness_words_people_use(mock_led: Any, word: str, level: int) -> None:
    backend, executor, _ = mock_led
    assert run_tool(executor, "led", color="red", brightness=word)["result"]["brightness"] == level
    assert backend.state.brightness == level


@pytest.mark.parametrize("arguments", [{"on": True}, {"brightness": 30}])
def test_turning_on_a_dark_strip_gives_white_light(
    mock_led: Any, arguments: dict[str, Any]
) -> None:
    backend, executor, _ = mock_led
    assert backend.state.pixels == ("#000000",) * 8  # a fresh strip: every pixel black
    result = run_tool(executor, "led", **arguments)["result"]
    assert result == {"on": True, "brightness": arguments.get("brightness", 100), "color": "white"}
    assert all(pixel != BLACK for pixel in backend.state.rendered())


def test_on_lights_a_strip_left_at_zero_brightness(mock_led: Any) -> None:
    backend, executor, _ = mock_led
    backend.state = LedState(False, 0, ("#ff0000",) * 8)  # e.g. set so on the dashboard
    assert run_tool(executor, "led", on=True)["result"] == {
        "on": True,
        "brightness": 100,
        "color": "red",
    }


def test_ws281x_keeps_the_dimmest_level_lit(fake_ws281x: Any) -> None:
    options = LedOptions(backend="real", driver="ws281x", count=2, max_brightness=40)
    led = open_backend(options)
    (strip,) = fake_ws281x.strips
    led.write(LedState(on=True, brightness=1, pixels=("#ff0000",) * 2))
    assert strip.shown[-1][0] == 1  # 1 % of 40 rounds to 0: still the lowest lit level
    led.write(LedState(on=False, brightness=1, pixels=("#ff0000",) * 2))
    assert strip.shown[-1][0] == 0


def test_led_schema_and_description() -> None:
    controller = LedController(backend=MockLed(count=8), count=8)
    led = make_tool(controller.led)
    assert led.description == (
        "Set the LED strip (color: CSS name, #rrggbb or off; brightness 1-100; off: on=false); "
        "give only what changes."
    )
    assert led.parameters["properties"]["brightness"] == {
        "maximum": 100,
        "minimum": 0,
        "type": "integer",
        "description": "percent; 0 and 1 = dimmest",
    }
    assert led.parameters["properties"]["color"] == {
        "type": "string",
        "description": "CSS name or #rrggbb; 'off' turns it off",
    }


def test_answers_say_what_the_strip_shows(mock_led: Any) -> None:
    backend, _, _ = mock_led
    controller = LedController(backend=backend, count=8, effect_s=0.1, sleep=lambda _: None)
    led, state = make_tool(controller.led), make_tool(controller.led_state)
    assert led.answer is not None and state.answer is not None
    assert state.answer(controller.led_state()) == "The LED strip is off."
    red = controller.led(color="red", brightness=30)
    assert led.answer(red) == "The LED strip is now red at 30% brightness."
    assert state.answer(controller.led_state()) == "The LED strip is on: red at 30% brightness."
    mixed = controller.led(color="blue", first=4)
    assert led.answer(mixed) == (
        "The LED strip is now at 30% brightness with pixels 0-3 red, 4 blue, 5-7 red."
    )
    custom = controller.led(color="#123456", effect="blink")
    assert led.answer(custom) == (
        "The LED strip is now #123456 at 30% brightness (after a blink for 0.1 s)."
    )
    assert led.answer(controller.led(color="off")) == "The LED strip is now off."


def test_plugin_registers_both_tools_and_goes_dark_on_close() -> None:
    loaded = load_plugin(edgeagent_led, name="led", options={"backend": "mock", "count": 3})
    assert loaded.registry.names() == ["led", "led_state"]
    assert loaded.call("led", color="green").ok
    assert loaded.call("led_state").result["on"] is True
    loaded.close()
    (strip,) = loaded.devices
    assert isinstance(strip.backend, MockLed) and strip.backend.closed
    assert strip.backend.state == LedState.dark(3)
    closed = loaded.call("led_state")
    assert not closed.ok and "the LED strip is closed" in (closed.error or "")


def test_bad_plugin_options_name_the_key() -> None:
    config = Config(plugins={"led": {"backend": "laser"}}, tools=ToolsConfig(wrapped_dir=None))
    report = build_tools(config, plugins=[("led", edgeagent_led)]).report
    assert "plugins.led.backend" in report.failed["led"]


# --- real, without the hardware -----------------------------------------------------


def test_real_ws281x_without_the_library_fails_clearly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rpi_ws281x", None)  # import raises ImportError
    with pytest.raises(HardwareError, match=r"rpi_ws281x.*pip install rpi-ws281x"):
        open_backend(LedOptions(backend="real", driver="ws281x"))


def test_real_spi_without_spidev_or_device_fails_clearly(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "spidev", None)
    with pytest.raises(HardwareError, match=r"spidev.*pip install spidev"):
        open_backend(LedOptions(backend="real", driver="spi"))
    monkeypatch.setitem(sys.modules, "spidev", types.SimpleNamespace(SpiDev=object))
    with pytest.raises(HardwareError, match=r"spidev0\.0 does not exist.*raspi-config"):
        SpiLed.open(LedOptions(backend="real", driver="spi"), dev_dir=tmp_path)


def test_real_auto_picks_spi_on_a_pi5_and_never_falls_back_to_sim(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "spidev", None)
    monkeypatch.setitem(sys.modules, "rpi_ws281x", None)
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\x00")
    with pytest.raises(HardwareError, match="driver spi"):
        open_backend(LedOptions(backend="real", device_model=model))
    model.write_bytes(b"Raspberry Pi 4 Model B Rev 1.4\x00")
    with pytest.raises(HardwareError, match="driver ws281x"):
        open_backend(LedOptions(backend="real", device_model=model))
    config = Config(
        plugins={"led": {"backend": "real", "device_model": str(model)}},
        tools=ToolsConfig(wrapped_dir=None),
    )
    toolset = build_tools(config, plugins=[("led", edgeagent_led)])
    assert "led" not in toolset.registry
    assert "HardwareError" in toolset.report.failed["led"]


# --- the contracts, on every backend that loads here ----------------------------------


class TestLedBackends(BackendContract[LedBackend, LedState]):
    """Mock, simulator, and the two hardware drivers on a fake library."""

    @pytest.fixture(params=["mock", "sim", "ws281x", "spi"])
    def backend(
        self, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> Iterator[LedBackend]:
        choice = request.param
        url = request.getfixturevalue("simulator") if choice == "sim" else "http://unused"
        if choice == "ws281x":
            request.getfixturevalue("fake_ws281x")
        if choice == "spi":
            fake_spidev(monkeypatch)
            (tmp_path / "spidev0.0").touch()
            backend: LedBackend = SpiLed.open(LedOptions(count=4), dev_dir=tmp_path)
        else:
            options = LedOptions(
                backend="real" if choice == "ws281x" else choice, driver="ws281x", count=4
            )
            backend = BACKENDS.open(options, PluginContext(name="led", simulator_url=url))
        yield backend
        backend.close()

    def samples(self) -> list[LedState]:
        return [
            LedState(True, 40, ("#ff0000",) * 4),
            LedState(True, 100, ("#000000", "#00ff00", "#0000ff", "#ffffff")),
            LedState(False, 40, ("#ff0000",) * 4),
        ]

    def write(self, backend: LedBackend, state: LedState) -> None:
        backend.write(state)

    def read(self, backend: LedBackend) -> LedState:
        return backend.read()


class TestLedPlugin(PluginContract):
    """The plugin as the daemon loads it, on the mock strip and in the simulator."""

    plugin = edgeagent_led
    name = "led"
    use = ("led", {"color": "red", "brightness": 30})
    bad_calls = (
        ("led", {"color": "blurple"}),
        ("led", {"brightness": 150}),
        ("led", {"color": "red", "first": 6, "last": 9}),
        ("led", {"first": 1}),
    )
    safe_state: ClassVar[dict[str, Any]] = {
        "on": False,
        "brightness": 100,
        "pixels": ["#000000"] * 4,
    }
    backends = BACKENDS
    options_model = LedOptions

    @pytest.fixture(params=["mock", "sim"])
    def plugin_options(self, request: pytest.FixtureRequest) -> dict[str, Any]:
        return {"backend": request.param, "count": 4}

    @pytest.fixture
    def simulator_url(self, request: pytest.FixtureRequest, plugin_options: dict[str, Any]) -> str:
        if plugin_options["backend"] == "sim":
            return str(request.getfixturevalue("simulator"))
        return "http://unused"

    def observe(self, loaded: LoadedPlugin) -> Any:
        if loaded.options["backend"] == "sim":
            return httpx.get(f"{loaded.simulator_url}/api/led", trust_env=False).json()
        (strip,) = loaded.devices
        assert isinstance(strip.backend, MockLed)
        return strip.backend.state.to_dict()


# --- the strip is opened by its first call, never by loading -----------------------


def real_ws281x_config(**tools: Any) -> Config:
    return Config(
        plugins={"led": {"backend": "real", "driver": "ws281x", "count": 2}},
        tools=ToolsConfig(wrapped_dir=None, **tools),
    )


def test_loading_opens_no_strip_and_the_first_call_opens_it_once(fake_ws281x: Any) -> None:
    toolset = build_tools(real_ws281x_config(), plugins=[("led", edgeagent_led)])
    assert toolset.registry.names() == ["led", "led_state"]
    assert fake_ws281x.strips == []  # nothing claimed the PWM/DMA channel yet
    assert toolset.report.devices["led"] == [
        "LED strip: backend 'real', 2 pixels through rpi_ws281x on GPIO18"
    ]
    executor = ToolExecutor(toolset.registry)
    run_tool(executor, "led", color="red")
    run_tool(executor, "led", brightness=50)
    (strip,) = fake_ws281x.strips
    toolset.close()
    assert strip.shown[-1][0] == 0  # the safe state: dark


def test_a_disabled_led_never_opens_the_strip(fake_ws281x: Any) -> None:
    config = real_ws281x_config(disabled=["led", "led_state"])
    toolset = build_tools(config, plugins=[("led", edgeagent_led)])
    assert "led" not in toolset.registry and "led" in toolset.report.loaded
    toolset.close()  # a strip that was never opened is not opened to darken it
    assert fake_ws281x.strips == []


def test_a_disabled_plugin_is_not_loaded_and_its_strip_never_opened(fake_ws281x: Any) -> None:
    config = real_ws281x_config(disabled_plugins=["led"])
    toolset = build_tools(config, plugins=[("led", edgeagent_led)])
    assert toolset.report.disabled == ["led"] and toolset.report.loaded == []
    assert len(toolset.registry) == 0
    toolset.close()
    assert fake_ws281x.strips == []


def test_the_default_backend_says_it_is_the_simulator_and_how_to_choose_the_strip(
    caplog: pytest.LogCaptureFixture,
) -> None:
    config = Config(tools=ToolsConfig(wrapped_dir=None))
    with caplog.at_level("INFO", logger="edgeagent.tools.plugins"):
        toolset = build_tools(config, plugins=[("led", edgeagent_led)])
    (line,) = toolset.report.devices["led"]
    assert line == (
        "LED strip: backend 'sim', the simulator at http://127.0.0.1:8765 (run `edgeagent "
        "sim`) (the default; set [plugins.led] backend = 'real' to drive the hardware)"
    )
    assert line in caplog.text
    chosen = Config(plugins={"led": {"backend": "sim"}}, tools=ToolsConfig(wrapped_dir=None))
    (line,) = build_tools(chosen, plugins=[("led", edgeagent_led)]).report.devices["led"]
    assert "the default" not in line  # chosen on purpose: nothing to point out


def test_on_a_raspberry_pi_the_default_backend_is_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from edgeagent.tools import plugins

    monkeypatch.setattr(plugins, "is_raspberry_pi", lambda: True)
    with caplog.at_level("INFO", logger="edgeagent.tools.plugins"):
        build_tools(Config(tools=ToolsConfig(wrapped_dir=None)), plugins=[("led", edgeagent_led)])
    (record,) = [r for r in caplog.records if "LED strip" in r.getMessage()]
    assert record.levelname == "WARNING"
    assert "nothing on this Raspberry Pi is driven" in record.getMessage()
    assert "set [plugins.led] backend = 'real'" in record.getMessage()


@pytest.mark.parametrize(
    ("request_", "named"),
    [
        ("leaving for the night, kill the lights", True),
        ("this room is dreary, could the light be sky blue?", True),
        ("and kill the shop light", True),
        ("movie night: deep navy on the strip, fifteen percent", True),
        ("Puoi alzare la luce al 90 per cento?", True),
        ("Zet de lamp op paars", True),
        ("tänd lampan i rött", True),
        ("ustaw światło na niebieskie", True),
        ("dim the light a bit", True),  # the noun, not "light a candle"
        ("light the radio desk strip up in gold at 60%", True),  # the verb, and the strip
        # no light named, another device's light, "light" as a verb, "don't"
        ("alarm phase: red, 100%", False),
        ("switch on the heat lamp in the lambing shed", False),
        ("is the oven light on?", False),
        ("who invented the light bulb?", False),
        ("light the candles on the cake", False),
        ("don't touch the lights, I just wanted to say hello", False),
        ("turn on the fan", False),
    ],
)
def test_a_request_names_the_strip_by_the_words_people_use(request_: str, named: bool) -> None:
    assert names_the_strip(request_) is named


def test_the_colours_a_request_says_are_its_colours_in_any_language_and_the_strips() -> None:
    shown = LedState.dark(8).with_color("#008080", 0, 7)  # teal
    said_in = said_colors(lambda: shown)
    assert {"blue", "teal"} <= set(said_in("Mach das Licht bitte blau"))
    assert "red" not in said_in("¿Puedes encender el ahumador?")
    assert "off" in said_in("apaga la luz") and "off" in said_in("lights out, bedtime")
    assert "off" not in said_in("also can you close the blackout blind behind me")


def test_the_colours_a_request_says_without_a_strip_are_its_words_alone() -> None:
    def unreachable() -> LedState:
        raise SimulatorUnreachableError("LED simulator at http://127.0.0.1:1 is not running")

    assert set(said_colors(unreachable)("Mach das Licht bitte blau")) == {"blue"}


@pytest.mark.parametrize(
    ("arguments", "request_", "color"),
    [
        # fresh35: no strip knows "deep navy blue".
        ({"color": "deep navy blue"}, "now make the lights a deep navy blue", "navy"),
        ({"color": "babyblue"}, "baby blue please", "lightblue"),
        ({"color": "red"}, "make it blood red", "darkred"),
    ],
)
def test_an_english_colour_phrase_is_its_css_colour(
    arguments: dict[str, Any], request_: str, color: str
) -> None:
    loaded = load_plugin(edgeagent_led, name="led", options={"backend": "mock"})
    try:
        hook = loaded.registry.get("led").reread
        assert hook is not None
        outcome = loaded.call("led", **(hook(arguments, request_) or arguments))
        assert outcome.ok and outcome.result["color"] == color
    finally:
        loaded.close()


@pytest.mark.parametrize(
    ("arguments", "request_"),
    [
        ({"color": "white"}, "Vypni světlo v kuchyni"),  # Czech
        ({"color": "white"}, "Işıkları kapat lütfen"),  # Turkish
        ({"color": "yellow"}, "Σβήσε το φως"),  # Greek
        ({"color": "white", "brightness": 100}, "lights off now"),
    ],
)
def test_a_colour_for_a_request_to_switch_off_is_the_switch(
    arguments: dict[str, object], request_: str
) -> None:
    # "Zhasni prosím světlo." (switch the light off, please) came as white (fresh39).
    assert reread(edgeagent_led, "led", arguments, request_) == {"on": False}


@pytest.mark.parametrize(
    ("request_", "read"),
    [
        ("Zhasni světla.", {"on": False}),  # Czech, as on: true on a second look (fresh60)
        ("lights off", {"on": False}),
        ("Σβήσε το φως", {"on": False}),
        ("it's dark in here", None),  # dark, not off
        ("apaga la tele y enciende la luz", None),  # off and on: on for the light
        ("turn it off and on again", None),
        ("turn the lights on", None),
    ],
)
def test_on_for_a_request_to_switch_off_is_off(
    request_: str, read: dict[str, object] | None
) -> None:
    assert reread(edgeagent_led, "led", {"on": True}, request_) == read


@pytest.mark.parametrize(
    "request_",
    ["turn the red off and make it blue", "switch off the blinking, green please"],
)
def test_a_request_to_switch_off_that_names_a_colour_keeps_it(request_: str) -> None:
    read = reread(edgeagent_led, "led", {"color": "blue"}, request_)
    assert read is None or read.get("on") is not False


@pytest.mark.parametrize(
    ("arguments", "request_", "read"),
    [
        # An end the request names, where the model wrote no level: read from the
        # request alone too ("baja el brillo al mínimo" came on a look as 0; fresh44).
        ({}, "pon el brillo al mínimo", {"brightness": 1}),
        ({"color": "red"}, "red, as bright as it goes", {"color": "red", "brightness": 100}),
        ({"color": "blue"}, "blue at 30, the minimum I can stand", None),  # a number
        ({"on": False}, "lowest setting... no, just off", None),  # off
        ({"color": "green"}, "green please", None),  # no end
    ],
)
def test_an_end_named_without_a_level_written_is_that_end(
    arguments: dict[str, Any], request_: str, read: dict[str, Any] | None
) -> None:
    assert reread(edgeagent_led, "led", arguments, request_) == read


@pytest.mark.parametrize(
    ("arguments", "request_", "color"),
    [
        # fresh74: lavender is #e6e6fa, and the strip showed #e699ff.
        (
            {"on": True, "color": "#e699ff"},
            "fine. turn the strip on and make it lavender",
            "lavender",
        ),
        ({"color": "#0000ff"}, "hellblau bitte", "lightblue"),  # the name, in German
        # The hex the request writes, a shade it asks for, or the name's own hex: as written.
        ({"color": "#ff8800"}, "set the leds to hex ff8800", "#ff8800"),
        ({"color": "#add8e6"}, "a lighter shade of blue", "#add8e6"),
        ({"color": "#9370db"}, "purple-ish please", "#9370db"),
        ({"color": "#ff7f50"}, "make them coral", "#ff7f50"),
        ({"color": "#ff0000"}, "make the lights feel like a Tuesday", "#ff0000"),
    ],
)
def test_a_hex_the_model_wrote_for_the_one_colour_named_is_that_colour(
    arguments: dict[str, Any], request_: str, color: str
) -> None:
    read = reread_on_a_purple_strip(arguments, request_)
    assert (read or arguments)["color"] == color
