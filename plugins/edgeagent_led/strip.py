"""The strip's state as the tools see it, and colour names both ways."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import webcolors

from edgeagent.plugin import ToolArgumentError, fold, one_slip

BLACK = "#000000"
OFF_COLORS = frozenset({"off", "none", "black", "dark", "#000", "#000000"})
"""Colours that mean "turn it off" to a person; for a pixel range they paint it black."""
OFF_VERBS = "|".join(
    re.escape(fold(phrase))
    for phrase in (
        # German, French, Spanish, Portuguese, Italian, Dutch, Swedish, Danish and
        # Norwegian, Polish
        "aus", "ausschalten", "eteins", "eteindre", "eteignez", "apaga", "apague", "apagar",
        "desliga", "desligar", "spegni", "spegnere", "uit", "slack", "sluk", "slukk",
        "wyłacz", "wylacz",
        # Czech, Turkish, Greek, Hungarian, Finnish, Romanian, Russian, Ukrainian:
        # "Zhasni prosím světlo." came as white (fresh39)
        "zhasni", "zhasněte", "zhasnout", "vypni", "vypněte", "vypnout", "kapat", "kapatın",
        "kapatin", "kapa", "söndür", "σβήσε", "σβήστε", "κλείσε", "kapcsold ki", "kapcsolja ki",
        "oltsd le", "sammuta", "stinge", "oprește", "выключи", "выключите", "вимкни",
        "вимкніть",
    )
)  # fmt: skip
"""Words that switch a light off in the languages the strip reads, folded, as one
regular expression's alternatives."""
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

# Turkish, Greek, Czech, Hungarian, Finnish, Romanian, Danish and Norwegian colour words
# with their common endings (Turkish and Hungarian "onto", Finnish "into", Czech forms):
# "Işığı kırmızı yap." came as ``color: "red"`` and was refused as a guess, and so were
# Greek colour requests (fresh41, fresh42). Turkish reads without its letters too. And
# Vietnamese ("Đổi đèn sang màu đỏ" came as red and was refused as a guess; fresh61),
# whose shorter words ("cam", "tím", "hồng") count only after "màu" (colour).
MORE_LANGUAGES = {
    "red": ("kırmızı", "kırmızıya", "κόκκινο", "κόκκινα", "κόκκινη",
            "červená", "červenou", "červený", "červené", "červeně", "piros", "pirosra", "vörös",
            "vörösre", "punainen", "punaiseksi", "punaisella", "roșu", "rosu", "roșie",
            "rød", "rødt", "røde",
            "đỏ"),
    "blue": ("mavi", "maviye", "μπλε", "modrá", "modrou", "modrý", "modré", "modře", "kék",
             "kékre", "sininen", "siniseksi", "albastru", "albastră",
             "xanh dương", "xanh lam", "xanh nước biển"),
    "green": ("yeşil", "yeşile", "πράσινο", "πράσινα", "zelená", "zelenou",
              "zelený", "zelené", "zeleně", "zöld", "zöldre", "vihreä", "vihreäksi", "grøn",
              "grønn", "grønt",
              "xanh lá", "xanh lá cây"),
    "yellow": ("sarı", "sarıya", "κίτρινο", "κίτρινα", "žlutá", "žlutou", "žlutý", "žluté",
               "sárga", "sárgára", "keltainen", "keltaiseksi", "galben", "galbenă",
               "vàng"),
    "orange": ("turuncu", "turuncuya", "πορτοκαλί", "oranžová", "oranžovou", "narancssárga",
               "narancs", "oranssi", "oranssiksi", "portocaliu",
               "màu cam"),
    "purple": ("mor", "μωβ", "fialová", "fialovou", "màu tím"),
    "violet": ("violetti", "violetiksi"),
    "pink": ("pembe", "pembeye", "ροζ", "růžová", "růžovou", "rózsaszín", "rózsaszínre",
             "vaaleanpunainen", "lyserød",
             "màu hồng"),
    "white": ("beyaz", "beyaza", "λευκό", "λευκά", "άσπρο", "άσπρα", "bílá", "bílou", "bílé",
              "fehér", "fehérre", "valkoinen", "valkoiseksi", "hvid", "hvidt", "hvit", "hvitt",
              "trắng"),
    "turquoise": ("turkuaz", "τιρκουάζ", "tyrkysová", "türkiz", "turkoosi", "turcoaz"),
}  # fmt: skip

# Ukrainian colour adjectives, by stem, in any of their endings (as Russian's below).
UKRAINIAN_STEMS = {
    "red": "червон", "blue": "син", "green": "зелен", "yellow": "жовт", "orange": "помаранчев",
    "purple": "фіолетов", "pink": "рожев", "white": "біл",
}  # fmt: skip
UKRAINIAN_ENDINGS = [
    "ий", "а", "е", "у", "им", "ого", "ому", "ою", "і", "их", "ими", "ій", "ю", "я", "є", "ім",
]  # fmt: skip

# English colour phrases with no CSS name of their own: "now make the lights a deep navy
# blue" came as ``color: "deep navy blue"``, which no strip knows (fresh35).
ENGLISH_PHRASES = {
    "navy blue": "navy", "baby blue": "lightblue", "baby pink": "pink", "blood red": "darkred",
}  # fmt: skip

# Russian colour adjectives, by stem (folded: "ё" is "е", "й" is "и"), in any of their
# endings: "Сделай свет жёлтым" came as ``color: "yellow"`` and was refused as a guess
# (fresh30). A stem alone is no colour ("бел" in "белка", a squirrel, has no ending).
RUSSIAN_STEMS = {
    "red": "красн", "blue": "син", "lightblue": "голуб", "green": "зелен", "yellow": "желт",
    "orange": "оранжев", "purple": "фиолетов", "pink": "розов", "white": "бел",
    "black": "черн", "gray": "сер", "brown": "коричнев", "gold": "золот",
    "turquoise": "бирюзов",
}  # fmt: skip
RUSSIAN_ENDINGS = ["ыи", "ая", "ое", "ые", "ым", "ыми", "ых", "ои", "ую", "ого", "ому", "ом"]
RUSSIAN_SOFT_ENDINGS = ["ии", "яя", "ее", "ие", "им", "ими", "их", "еи", "юю", "его", "ему", "ем"]
"""The endings of "синий" (blue), the one soft stem: "серии" (series) is no grey."""


def turkish_forms(folded: str) -> set[str]:
    """A folded word as Turkish may be typed: with its dotless "ı", without it ("ı" as
    "i"), and capitalised, where a capital I folds to a dotted i ("Işığı" folds to
    "isıgı")."""
    return {folded, folded.replace("ı", "i"), folded[:1].replace("ı", "i") + folded[1:]}


def _russian() -> dict[str, str]:
    """Every ending of every stem of :data:`RUSSIAN_STEMS` and :data:`UKRAINIAN_STEMS`,
    as its CSS name (folded: "ї" is "і")."""
    return {
        stem + end: name
        for name, stem in RUSSIAN_STEMS.items()
        for end in (RUSSIAN_SOFT_ENDINGS if name == "blue" else RUSSIAN_ENDINGS)
    } | {
        fold(stem + end): name
        for name, stem in UKRAINIAN_STEMS.items()
        for end in UKRAINIAN_ENDINGS
    }


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
    **{
        form: name
        for languages in (OTHER_LANGUAGES, MORE_LANGUAGES)
        for name, words in languages.items()
        for word in words
        for form in turkish_forms(fold(word))
    },
    **{fold(word): name for word, name in _shaded().items()},
    **_russian(),
    **ENGLISH_PHRASES,
}
_WORD = re.compile(r"\b(" + "|".join(sorted(_CSS_NAME, key=len, reverse=True)) + r")\b")
"""A colour word of another language, the longest first ("bleu ciel" before "bleu")."""


def _css_name(text: str) -> str:
    """A colour word of another language as its CSS name ("morado" -> "purple")."""
    return _CSS_NAME.get(" ".join(fold(text).split()), text)


# Colour words in Japanese, Chinese (simplified) and Korean, read inside longer words:
# no space separates them ("ライトを赤にして", "把灯调成蓝色", "불을 빨간색으로"), so
# "赤" is red in "赤色", "赤く" and "真っ赤". "ライトを赤にして" came as ``color: "red"``
# and was refused as a guess: nothing the strip knew said red (blind prompts).
CJK_COLORS = {
    "red": ("赤", "红", "紅", "レッド", "빨간", "빨강", "빨갛", "붉은", "레드"),
    "orange": ("オレンジ", "橙", "주황", "오렌지"),
    "yellow": ("黄", "イエロー", "노란", "노랑", "노랗", "옐로"),
    "green": ("緑", "绿", "グリーン", "초록", "녹색"),
    "blue": ("青", "蓝", "ブルー", "파란", "파랑", "파랗", "블루"),
    "purple": ("紫", "パープル", "보라", "퍼플"),
    "violet": ("バイオレット", "바이올렛"),
    "pink": ("ピンク", "桃色", "粉色", "粉红", "분홍", "핑크"),
    "white": ("白", "ホワイト", "하얀", "하양", "하얗", "흰", "화이트"),
    "brown": ("茶色", "棕色", "咖啡色", "褐色", "ブラウン", "갈색", "브라운"),
    "gold": ("金色", "黄金", "ゴールド", "금색", "골드"),
    "gray": ("灰色", "グレー", "グレイ", "회색", "그레이"),
    "silver": ("銀色", "银色", "シルバー", "실버"),
    "lightblue": ("水色", "浅蓝", "ライトブルー"),
    "skyblue": ("空色", "天蓝", "하늘색"),
    "darkblue": ("深蓝",),
    "navy": ("紺", "ネイビー", "네이비", "남색"),
    "cyan": ("シアン",),
    "turquoise": ("ターコイズ",),
    "lavender": ("ラベンダー", "薰衣草", "라벤더"),
    "yellowgreen": ("黄緑", "黄绿", "연두"),
    "lightgreen": ("浅绿",),
    "darkgreen": ("深绿",),
    "darkred": ("深红", "暗红"),
    "coral": ("珊瑚", "コーラル", "코랄"),
}  # fmt: skip
CJK_NOT_COLORS = (
    "赤ちゃん", "赤ん坊", "赤字", "赤道", "赤外", "紅茶", "紅葉", "口紅", "网红", "红包",
    "红绿灯", "红外", "紫外", "黄昏", "青年", "青春", "蓝牙", "面白", "明白", "空白", "告白",
    "白天", "白菜", "坦白", "白白", "独白", "白状", "보라고",
)  # fmt: skip
"""Words that hold a colour word and say no colour: a baby (赤ちゃん), Bluetooth (蓝牙),
"interesting" (面白い), "understood" (明白), a traffic light (红绿灯), infrared and
ultraviolet (赤外, 红外, 紫外)."""
_CJK_CSS_NAME = {word: name for name, words in CJK_COLORS.items() for word in words}
_CJK_WORD = re.compile("|".join(sorted(_CJK_CSS_NAME, key=len, reverse=True)))
"""A CJK colour word anywhere, the longest first ("粉红" pink before "红" red)."""
_CJK_NOT_COLOR = re.compile("|".join(CJK_NOT_COLORS))


def as_written(request: str) -> str:
    """``request`` for CJK words: case folded, full-width letters as ASCII, Korean as
    syllables and Japanese voiced marks kept (:func:`fold` drops them: "ブルー", blue,
    would read as "フルー", which is in "フルーツ", fruit)."""
    return unicodedata.normalize("NFKC", request.casefold())


def foreign_colors(request: str) -> set[str]:
    """The CSS names of the colour words of another language in a request, as written
    or folded (CJK words with a voiced mark, "ピンク", are read only as written)."""
    words = " ".join(re.findall(r"\w+", fold(request)))
    said = {_CSS_NAME[word] for word in _WORD.findall(words)}
    cjk = _CJK_NOT_COLOR.sub(" ", as_written(request))
    return said | {_CJK_CSS_NAME[word] for word in _CJK_WORD.findall(cjk)}


def _by_letter(words: dict[str, str]) -> dict[str, list[tuple[str, str]]]:
    """``words`` (written: CSS name) of five letters or more (a slip is read in no
    shorter word: "bed" is not "red"), by their first letter."""
    found: dict[str, list[tuple[str, str]]] = {}
    for written, name in words.items():
        if len(written) >= 5:
            found.setdefault(written[0], []).append((written, name))
    return found


_SLIPPED = {
    **{name: name for name in webcolors.names("css3")},
    **{word: name for word, name in _CSS_NAME.items() if " " not in word},
}
_SLIPPED_BY_LETTER = _by_letter(_SLIPPED)
NOT_SLIPS = frozenset({
    # English
    "fewer", "flute",
    "while", "write", "whine", "block", "blank", "bland", "blame", "blade", "blaze", "blare",
    "greed", "greet", "greek", "brows", "brawn", "brain", "brine", "bruise", "brunt",
    "oliver", "lines", "liner", "linden", "liken", "choral", "corral", "salon", "sliver",
    "solver", "violent", "rough", "route", "rogue", "rouse", "grown", "groan", "grunt",
    "grips", "grids", "pairs", "pears", "parse", "verse", "verge", "vertex", "witty",
    "villa", "scary", "lacks", "macron", "marrow", "branch", "turkish",
    # other languages the strip knows: a bank, a branch, a way, old
    "banca", "banco", "branche", "weise", "stary", "bruno", "trans",
})  # fmt: skip
"""Words one slip from a colour word (:func:`slipped_colors`) that are words of their
own: "while" is not "white", nor "greed" green."""


def slipped_colors(folded: str) -> set[str]:
    """The CSS names of the colours a folded request says with one slip of the keyboard
    (:func:`edgeagent.plugin.one_slip`): a word of five letters or more, its first
    letter right, one slip from a CSS name or from a colour word of another language,
    and no word of its own (:data:`NOT_SLIPS`): "tunr the lihgts to yelow" says
    yellow (blind prompts), "purpel" purple, "amarilo" yellow. A slip is rarest in the
    first letter, and keeping it leaves out words of another first letter ("brown" is
    one slip from "crown", "drown", "grown")."""
    said = set()
    for word in set(re.findall(r"[^\W\d_]{5,}", folded)):
        if word in _SLIPPED or word in NOT_SLIPS or word in _CSS_NAME:
            continue
        for written, name in _SLIPPED_BY_LETTER.get(word[0], ()):
            if abs(len(written) - len(word)) <= 1 and one_slip(word, written):
                said.add(name)
    return said


def color_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``arguments`` with the colour the request names in another language, where it
    names exactly one and the model wrote another; ``None``: as the model wrote them.

    The model translates most colour words but not all: "Muda a cor da fita LED para
    roxo" came as ``color: "red"`` (measured on blind prompts)."""
    color = arguments.get("color")
    if not isinstance(color, str):
        return None
    said = foreign_colors(request)
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
