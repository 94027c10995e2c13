"""Whether a request gives the numbers a calculation works on.

Asked "how many planets are in the solar system?" in the middle of a conversation, the
model wrote ``50 * 3``; "what's the boiling point of water in fahrenheit", ``100 *
(9/5) + 32``; "how far is boston from new york roughly?", ``abs(40.7128 - 40.7128)``:
numbers nobody gave, for a question of fact, and the topic question ("is this a math
problem to calculate?") said yes to each. Over every record of the blind sets and the
408, a math call holding a number nothing in the conversation said, for a request that
says no number at all, was 24 no-tool turns (17 of them wrong) and 10 calculations
("how many seconds are in a week"). This module says whether a request gives a number,
in digits or words, in any language it can tell (:func:`gives_numbers`); the agent asks
the rest whether they are a unit conversion (:attr:`~edgeagent.tools.tool.Tool.
given_otherwise`).

A word it cannot tell from a number ("un", "on", "to") counts as one: such a request is
asked what it was asked before.
"""

from __future__ import annotations

import re

from text_to_num import alpha2digit

from edgeagent.plugin import fold
from edgeagent_math.spoken import OPERATORS, POWERS

_LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl")
"""The languages ``text2num`` reads number words in."""

# Chinese and Japanese numerals, written as characters: "三百六十五乘以二十四".
_CJK = re.compile(r"[〇零一二两三四五六七八九十百千万萬億亿]")
# Number words of the languages text2num lacks, folded (no accents), as stems: Polish,
# Czech, Russian and Ukrainian, Swedish, Danish and Norwegian, Finnish, Turkish,
# Hungarian, Greek, Romanian; and a share or a multiple in any of them ("half", "double",
# "a dozen", "die Hälfte", "la mitad", "połowa").
_WORDS = re.compile(
    r"\b(?:"
    r"jeden|jedna|dwa|dwie|trzy|cztery|piec|szesc|siedem|osiem|dziewiec|dziesiec|\w+nascie|"
    r"\w*dziesci\w*|\w*dziesiat\w*|sto|dva|dve|tri|ctyri|pet|sest|sedm|osm|devet|deset|\w+nact|"
    r"dvacet|один|одна|два|две|три|четыре|пять|шесть|семь|восемь|девять|десять|\w+надцать|"
    r"двадцать|сто|тысяча|чотири|"
    r"ett|tva|fyra|fem|sju|atta|nio|tio|elva|tolv|tretton|fjorton|femton|sexton|sjutton|"
    r"arton|nitton|tjugo|hundra|tusen|"
    r"seks|syv|otte|atte|elleve|tyve|tjue|hundrede|"
    r"yksi|kaksi|kolme|nelja|viisi|kuusi|seitseman|kahdeksan|yhdeksan|kymmenen|\w+toista|"
    r"sata|tuhat|iki|uc|dort|bes|alti|yedi|sekiz|dokuz|yirmi|otuz|kirk|elli|yuz|bin|"
    r"egy|ketto|ket|harom|negy|ot|hat|het|nyolc|kilenc|tiz|husz|szaz|ezer|"
    r"ενα|δυο|τρια|τεσσερα|πεντε|εξι|επτα|εφτα|οκτω|εννεα|δεκα|εκατο|"
    r"unu|doi|doua|trei|patru|cinci|sase|sapte|opt|noua|zece|suta|"
    r"half|halve|halves|quarter|third|dozen|double|twice|triple|thrice|"
    r"halfte|halb|halbe|halben|doppelt|moitie|demi|mitad|medio|doble|triple|meta|mezzo|"
    r"doppio|metade|dobro|helft|dubbel|połowa|połowe|połowy|podwojnie|polovina|половина|"
    r"вдвое|"
    r"halften|dubbelt|puolet|puolikas|yarisi|fele|jumatate|μισο"
    r")\b"
)
_OPERATIONS = re.compile(
    r"\b(?:"
    + "|".join(
        re.escape(w)
        for w in sorted(
            {w for words in (*OPERATORS.values(), *POWERS.values()) for w in words},
            key=len,
            reverse=True,
        )
    )
    + r"|factorial|square\s+root|sqrt|percent|prozent|pourcent|por\s*ciento|potegi)\b|%"
)


def gives_numbers(request: str) -> bool:
    """Whether ``request`` says a number, in digits or in words, or an operation on
    one ("seven factorial", "dwanaście do potęgi trzeciej", "die Hälfte davon")."""
    folded = fold(request)
    if re.search(r"\d", folded) or _CJK.search(request) or _WORDS.search(folded):
        return True
    if _OPERATIONS.search(folded):
        return True
    return any(re.search(r"\d", alpha2digit(folded, lang, threshold=0)) for lang in _LANGUAGES)
