"""The strip's state as the tools see it, and colour names both ways."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import webcolors

from edgeagent.plugin import ToolArgumentError, fold

BLACK = "#000000"
OFF_COLORS = frozenset({"off", "none", "black", "dark", "#000", "#000000"})
"""Colours that mean "turn it off" to a person; for a pixel range they paint it black."""
RGB = tuple[int, int, int]


# Colour words in German, French, Spanish, Italian, Portuguese and Dutch, accents
# dropped: the model passes some on as the user wrote them ("Pon las luces en morado"
# -> "morado") and writes others as a colour of its own ("op paars" -> "red"). Not
# Dutch "rode", which is English "rode".
OTHER_LANGUAGES = {
    "red": ("rot", "rote", "rouge", "rojo", "roja", "rosso", "rossa", "vermelho", "vermelha",
            "rood"),
    "blue": ("blau", "blaue", "bleu", "bleue", "azul", "blu", "blauw", "blauwe"),
    "green": ("grun", "grune", "gruen", "vert", "verte", "verde", "groen", "groene"),
    "yellow": ("gelb", "gelbe", "jaune", "amarillo", "amarilla", "giallo", "gialla",
               "amarelo", "amarela", "geel", "gele"),
    "orange": ("naranja", "arancione", "laranja", "oranje"),
    "purple": ("lila", "morado", "morada", "roxo", "roxa", "paars", "paarse"),
    "violet": ("violett", "violeta", "viola"),
    "pink": ("rosa", "rose", "roze"),
    "white": ("weiss", "weisse", "blanc", "blanche", "blanco", "blanca", "bianco", "bianca",
              "branco", "branca", "wit", "witte"),
    "turquoise": ("turkis", "tuerkis", "turquesa", "turchese"),
    "brown": ("braun", "marron", "marrone", "marrom", "bruin", "bruine"),
    "gray": ("grau", "gris", "grigio", "cinza", "grijs", "grijze"),
    "gold": ("golden", "dore", "dorado", "dorada", "oro", "dourado", "dourada", "goud",
             "gouden"),
    "skyblue": ("celeste", "azzurro", "hellblau", "bleu ciel"),
}  # fmt: skip
_CSS_NAME = {word: name for name, words in OTHER_LANGUAGES.items() for word in words}
_WORD = re.compile(r"\b(" + "|".join(sorted(_CSS_NAME, key=len, reverse=True)) + r")\b")
"""A colour word of another language, the longest first ("bleu ciel" before "bleu")."""


def _css_name(text: str) -> str:
    """A colour word of another language as its CSS name ("morado" -> "purple")."""
    return _CSS_NAME.get(" ".join(fold(text).split()), text)


def foreign_colors(folded: str) -> set[str]:
    """The CSS names of the colour words of another language in a folded request."""
    return {_CSS_NAME[word] for word in _WORD.findall(" ".join(re.findall(r"\w+", folded)))}


def color_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``arguments`` with the colour the request names in another language, where it
    names exactly one and the model wrote another; ``None``: as the model wrote them.

    The model translates most colour words but not all: "Muda a cor da fita LED para
    roxo" came as ``color: "red"`` (measured on blind prompts)."""
    color = arguments.get("color")
    if not isinstance(color, str):
        return None
    said = foreign_colors(fold(request))
    if len(said) != 1:
        return None  # none named, or "von rot zu blau": the model's reading stands
    (name,) = said
    if color.strip().lower() in OFF_COLORS:
        return None  # "apaga o vermelho": off, not red
    try:
        if to_hex(color) == to_hex(name):
            return None
    except ToolArgumentError:
        pass  # a made-up name: the colour said is what was meant
    return {**arguments, "color": name}


SHADES = frozenset({
    "soft", "deep", "plain", "pure", "bright", "pale", "warm", "cool", "cold", "vivid",
    "rich", "gentle", "strong", "nice", "pretty", "just", "simple", "normal", "regular",
})  # fmt: skip
"""Words people put before a colour that has no CSS name with them ("soft yellow",
"deep navy", "plain white"): the colour without them is what is set, and named."""


def to_hex(color: str) -> str:
    """``red``, ``#F00``, ``#ff0000``, ``rojo`` or ``soft yellow`` -> its ``#rrggbb``."""
    text = color.strip().lower()
    words = text.split()
    while True:
        try:
            if text.startswith("#"):
                return str(webcolors.normalize_hex(text))
            return str(webcolors.name_to_hex(_css_name(" ".join(words)).replace(" ", "")))
        except ValueError:
            if len(words) < 2 or words[0] not in SHADES:
                raise ToolArgumentError(
                    f"unknown color {color!r}; use a CSS color name like 'red' or '#rrggbb'"
                ) from None
            words = words[1:]  # "soft yellow" came as an unknown colour


def name_of(hex_color: str) -> str:
    """The CSS name of a colour when it has one (``#ff0000`` -> ``red``), else the hex."""
    try:
        return str(webcolors.hex_to_name(hex_color))
    except ValueError:
        return hex_color


def hex_to_rgb(hex_color: str) -> RGB:
    rgb = webcolors.hex_to_rgb(hex_color)
    return (rgb.red, rgb.green, rgb.blue)


@dataclass(frozen=True)
class LedState:
    on: bool
    brightness: int
    """0-100 %."""
    pixels: tuple[str, ...]
    """``#rrggbb`` per pixel."""

    @classmethod
    def dark(cls, count: int) -> LedState:
        return cls(on=False, brightness=100, pixels=(BLACK,) * count)

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, count: int) -> LedState:
        """From the simulator's JSON, padded or cut to ``count`` pixels."""
        pixels = [to_hex(str(p)) for p in data.get("pixels", [])][:count]
        pixels += [BLACK] * (count - len(pixels))
        return cls(bool(data.get("on")), int(data.get("brightness", 100)), tuple(pixels))

    def to_dict(self) -> dict[str, Any]:
        return {"on": self.on, "brightness": self.brightness, "pixels": list(self.pixels)}

    def with_color(self, color: str, first: int, last: int) -> LedState:
        pixels = list(self.pixels)
        pixels[first : last + 1] = [color] * (last - first + 1)
        return replace(self, pixels=tuple(pixels))

    def rendered(self, max_brightness: int = 255) -> list[RGB]:
        """What each pixel emits: colour x brightness, black when off."""
        if not self.on:
            return [(0, 0, 0)] * len(self.pixels)
        scale = self.brightness / 100 * max_brightness / 255
        return [
            (_dim(r, scale), _dim(g, scale), _dim(b, scale))
            for r, g, b in (hex_to_rgb(p) for p in self.pixels)
        ]

    def summary(self) -> dict[str, Any]:
        """What the model reads back: one colour name, or colour runs for a mixed strip."""
        out: dict[str, Any] = {"on": self.on, "brightness": self.brightness}
        runs = _runs(self.pixels)
        if len(runs) == 1:
            out["color"] = name_of(self.pixels[0])
        else:
            out["pixels"] = [
                f"{a}-{b}: {name_of(c)}" if a != b else f"{a}: {name_of(c)}" for a, b, c in runs
            ]
        return out


def _dim(channel: int, scale: float) -> int:
    """A lit channel stays lit at any level above 0: brightness 1 is the dimmest light,
    not darkness (rounding would turn a dim colour at 1 % off)."""
    if channel == 0 or scale <= 0:
        return 0
    return max(1, round(channel * scale))


def _runs(pixels: Sequence[str]) -> list[tuple[int, int, str]]:
    runs: list[tuple[int, int, str]] = []
    for i, color in enumerate(pixels):
        if runs and runs[-1][2] == color:
            runs[-1] = (runs[-1][0], i, color)
        else:
            runs.append((i, i, color))
    return runs
