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


# Colour words in German, French, Spanish, Italian, Portuguese, Dutch, Swedish and Polish
# (folded: accents dropped, case folded): the model passes some on as the user wrote them
# ("Pon las luces en morado" -> "morado") and writes others as a colour of its own ("op
# paars" -> "red", "en lavande" -> "white", "dunkelblau" -> "darkerblue"). Not Dutch
# "rode" nor Swedish "röd", which fold to English words ("rode", "rod").
OTHER_LANGUAGES = {
    "red": ("rot", "rote", "rouge", "rojo", "roja", "rosso", "rossa", "vermelho", "vermelha",
            "rood", "roda", "czerwony", "czerwona", "czerwone"),
    "blue": ("blau", "blaue", "bleu", "bleue", "azul", "blu", "blauw", "blauwe", "blå",
             "niebieski", "niebieska", "niebieskie"),
    "green": ("grün", "grüne", "gruen", "vert", "verte", "verde", "groen", "groene", "grön",
              "gröna", "zielony", "zielona", "zielone"),
    "yellow": ("gelb", "gelbe", "jaune", "amarillo", "amarilla", "giallo", "gialla",
               "amarelo", "amarela", "geel", "gele", "gul", "gula", "żółty", "żółta", "żółte"),
    "orange": ("naranja", "arancione", "laranja", "oranje", "pomarańczowy", "pomarańczowa"),
    "purple": ("lila", "morado", "morada", "roxo", "roxa", "paars", "paarse", "fioletowy",
               "fioletowa", "fioletowe"),
    "violet": ("violett", "violeta", "viola"),
    "pink": ("rosa", "rose", "roze", "różowy", "różowa", "różowe"),
    "white": ("weiß", "weiße", "blanc", "blanche", "blanco", "blanca", "bianco", "bianca",
              "branco", "branca", "wit", "witte", "vit", "vita", "biały", "biała", "białe"),
    "turquoise": ("türkis", "tuerkis", "turquesa", "turchese", "turkos", "turkusowy"),
    "brown": ("braun", "marron", "marrone", "marrom", "bruin", "bruine", "brun", "bruna",
              "brązowy"),
    "gray": ("grau", "gris", "grigio", "cinza", "grijs", "grijze", "grå", "szary"),
    "gold": ("golden", "doré", "dorado", "dorada", "oro", "dourado", "dourada", "goud",
             "gouden", "guld", "złoty"),
    "skyblue": ("celeste", "azzurro", "bleu ciel"),
    "lavender": ("lavendel", "lavande", "lavanda", "lawendowy"),
    "navy": ("marineblau", "bleu marine", "azul marino", "blu marino", "blu navy",
             "azul marinho", "marineblauw", "marinblå", "granatowy"),
    "silver": ("silber", "argenté", "plateado", "argento", "prateado", "zilver", "silver",
               "srebrny"),
    "coral": ("koralle", "corail", "corallo", "koraal", "korall", "koralowy"),
    "salmon": ("lachs", "saumon", "salmón", "salmone", "salmão", "zalm", "lax", "łososiowy"),
    "crimson": ("karmesin", "karminrot", "cramoisi", "carmesí", "cremisi", "carmesim",
                "karmozijn", "karmosin", "karmazynowy"),
    "olive": ("oliv", "olivgrün", "vert olive", "verde oliva", "olijf", "olijfgroen",
              "olivgrön", "oliwkowy"),
}  # fmt: skip

# "Dark" and "light" before or after a colour word, as one word or two: "dunkelblau",
# "bleu foncé", "azul claro", "ljusgrön", the CSS "darkblue", "lightblue" where that is
# a colour. A Swedish or Polish shade is left to the model (their colour words agree).
SHADES_OF = {
    # language: (dark, light, whether they follow the colour, its words by CSS name)
    "de": (("dunkel",), ("hell",), False, {"blue": "blau", "green": "grün", "red": "rot"}),
    "nl": (("donker",), ("licht",), False, {"blue": "blauw", "green": "groen", "red": "rood"}),
    "fr": (("foncé", "foncée"), ("clair", "claire"), True,
           {"blue": "bleu", "green": "vert", "red": "rouge"}),
    "es": (("oscuro", "oscura"), ("claro", "clara"), True,
           {"blue": "azul", "green": "verde", "red": "rojo"}),
    "it": (("scuro", "scura"), ("chiaro", "chiara"), True,
           {"blue": "blu", "green": "verde", "red": "rosso"}),
    "pt": (("escuro", "escura"), ("claro", "clara"), True,
           {"blue": "azul", "green": "verde", "red": "vermelho"}),
}  # fmt: skip


def _shaded() -> dict[str, str]:
    """Every dark and light form of :data:`SHADES_OF` whose CSS name exists."""
    found = {}
    css = set(webcolors.names("css3"))
    for darks, lights, after, words in SHADES_OF.values():
        for prefix, modifiers in (("dark", darks), ("light", lights)):
            for name, word in words.items():
                if f"{prefix}{name}" not in css:
                    continue
                for modifier in modifiers:
                    found[f"{word} {modifier}" if after else f"{modifier}{word}"] = prefix + name
    return found


_CSS_NAME = {
    **{fold(word): name for name, words in OTHER_LANGUAGES.items() for word in words},
    **{fold(word): name for word, name in _shaded().items()},
}
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
    """``red``, ``#F00``, ``#ff0000``, ``rojo``, ``soft yellow`` or ``orange-red`` -> its
    ``#rrggbb`` (a CSS name written in parts, "orange-red", came from a blind prompt)."""
    text = color.strip().lower()
    words = (
        text.split() if text.startswith("#") else text.replace("-", " ").replace("_", " ").split()
    )
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
