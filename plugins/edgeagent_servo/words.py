"""How people say where a servo should point, in the languages they ask in.

Words only (folded: no accents, lower case): the sides, the center, an end, a way
back, "to N", "further", "again", a quarter turn, halfway. :mod:`edgeagent_servo.said`
reads a request with them; :mod:`edgeagent_servo.aimed` and
:mod:`edgeagent_servo.relative` too.
"""

from __future__ import annotations

import re

# Sides in English, German and Dutch, French, Spanish, Italian, Portuguese, Polish ("w
# lewo", "na prawo", "po lewej") and Swedish ("vänster", "höger", folded); Finnish,
# Turkish, Czech, Hungarian, Greek, Romanian, Danish and Norwegian, Russian and
# Ukrainian, as a turn says them ("vasemmalle", "sola", "doleva", "balra").
DIRECTIONS = {
    "left": ("left", "links", "gauche", "izquierda", "sinistra", "esquerda", "lewo", "lewej",
             "vanster", "vasemmalle", "vasempaan", "sola", "doleva", "vlevo", "balra",
             "αριστερα", "stanga", "venstre", "налево", "влево", "ліворуч", "вліво"),
    "right": ("right", "rechts", "droite", "derecha", "destra", "direita", "prawo", "prawej",
              "hoger", "oikealle", "oikeaan", "saga", "doprava", "vpravo", "jobbra", "δεξια",
              "dreapta", "højre", "høyre", "направо", "вправо", "праворуч"),
}  # fmt: skip
_NEGATIVE = re.compile(r"(?<![\w-])-\s*\d|\b(?:minus|moins|menos|meno|negative|negativ)\b")
# The center, in those languages: Dutch "het midden", "het centrum"; Polish "od środka",
# "w środku"; Swedish "mitten", "mittläget".
_CENTER_WORDS = (
    r"center|centre|middle|mitte|centro|milieu|meio|midden|centrum|srodka|srodek|srodku|"
    r"mitten|mittlaget"
)
# Straight ahead is the center too: "point the camera straight ahead again" ran its
# right ``center: true`` as the last move again (fresh49): "geradeaus", "tout droit",
# "de frente", "dritto", "em frente", "rechtdoor", "prosto", "rakt fram"; and forward:
# "Zet de camera recht naar voren" came as ``angle: 90`` (fresh69), "nach vorne",
# "droit devant", "hacia adelante", "in avanti", "rett fram", "lige frem", "suoraan".
_STRAIGHT = (
    r"straight\s+(?:ahead|forward|on)|dead\s+ahead|geradeaus|tout\s+droit|de\s+frente|"
    r"al\s+frente|dritto|em\s+frente|rechtdoor|prosto|rakt\s+fram|"
    r"(?:recht\s+)?naar\s+voren|nach\s+vorne?|droit\s+devant|hacia\s+(?:a)?delante|"
    r"in\s+avanti|rett\s+fram|lige\s+frem|suoraan"
)
_CENTER = re.compile(rf"\b(?:{_CENTER_WORDS}|{_STRAIGHT})\b")
# An end: "all the way", "far", "fully", "max" before a side, with only small words
# between ("all the way over to the left", "ganz nach links", "tout a gauche", "todo a
# la izquierda", "à fond vers la gauche": fresh78 turned 90 from 10), or "as far as it
# goes" after one ("left as far as you can").
_END_BEFORE = (
    r"\b(?:all\s+the\s+way|fully|far|furthest|farthest|max(?:imum)?|hard|completely|ganz|"
    r"voll|tout|completement|a\s+fond|todo|toda|totalmente|tutto|tutta|completamente)"
    r"(?:\W+(?:over|to|towards?|the|its|a|la|le|al|nach|para|pra|verso|vers|hacia|naar|"
    r"richtung|in))*\W+(?:%s)\b"
)
_END_AFTER = r"\b(?:%s)\W+(?:\w+\W+){0,2}?(?:all\s+the\s+way|as\s+far\s+as)\b"
_ENDS = (_END_BEFORE, _END_AFTER)
_NUMBER = re.compile(r"\d")
_BACK = re.compile(
    r"\b(?:undo|revert|where\s+it\s+(?:was|started|began|used\s+to\s+be)|"
    r"(?:previous|original|old|earlier|starting)\s+(?:position|spot|angle|place)|"
    r"(?:as|how|the\s+way)\s+it\s+was|ruckgangig|wo\s+sie\s+war|wo\s+er\s+war|annule|comme\s+avant|"
    r"deshaz|como\s+esta(?:ba|va)|annulla|com.era|desfaz)\b"
)


# Where to point: "to 40", "face 40", "auf 40", "sur 40", "para 40"; Dutch "op 40", "naar 40";
# Polish "na 40"; Swedish "till 40", "på 40"; "hasta 40", "fino a 40", "até 40", "bis 40";
# Romanian "la 40", Greek "στις 40"; and after the number, Turkish "40 dereceye", Hungarian
# "40 fokra", Finnish "40 asteeseen" ("Kamerayı 20 dereceye çevir" ran as a turn; fresh39).
# The Romance "a" is "to" only before degrees: "a 45 gradi a destra", "a 45 grados", "à 45
# degrés", "a 45 graus" (Italian "a 45 gradi a destra" ran as a turn; fresh71); a turn
# says "di", "de" or nothing ("gira di 45 gradi", "tourne de 45 degrés").
_TO_NUMBER = re.compile(
    r"\b(?:to|at|fac(?:e|ing)|auf|sur|para|posicao\s+de|posicion\s+de|posizione\s+di|"
    r"position(?:\s+of)?|op|naar|na|till|pa|hasta|fino\s+a|ate|bis(?:\s+auf)?|la|στις|στο)"
    r"\s+(\d+(?:[.,]\d+)?)|\b(\d+(?:[.,]\d+)?)\s*(?:°\s*)?(?:derece(?:ye|ya)|fokra|asteeseen)\b"
    r"|\ba\s+(\d+(?:[.,]\d+)?)\s*(?:°\s*)?(?:gradi|grados|degres|graus)\b"
)
# Onward: "further", "weiter(e)", "encore", "ancora", "altri", "otros", "mais"; Dutch
# "verder", "nog"; Polish "jeszcze", "dalej"; Swedish "ytterligare", "längre". And from
# where the servo points now: "now 45 to the left from there" came as the position
# ``left_of_center: 45`` (fresh56): "from there", "from here", "from where it is",
# "von dort (aus)", "à partir de là", "desde ahí", "da lì", "daí", "vanaf daar",
# "därifrån", "stamtąd".
_ON = re.compile(
    r"\b(?:further|farther|more|another|again|weiter|weitere[nm]?|noch|encore|ancora|altri|"
    r"otros?|otra|mas|outros?|mais|verder|nog|jeszcze|dalej|ytterligare|langre|"
    r"from\s+(?:there|here|where\s+it\s+is(?:\s+now)?|(?:its|the)\s+current\s+(?:position|angle))|"
    r"von\s+(?:dort|da|hier)(?:\s+aus)?|a\s+partir\s+de\s+(?:la|ici)|"
    r"desde\s+(?:ahi|alli|aqui)|da\s+(?:li|qui)|a\s+partir\s+da(?:i|li)|vanaf\s+(?:daar|hier)|"
    r"darifran|harifran|stamtad)\b"
)
_SIDES = {"left": "left_of_center", "right": "right_of_center"}
# Too far to one side: "too far right", "too much to the left", "zu weit nach links",
# "trop a droite", "demasiado a la izquierda", "troppo a destra", "demais para a direita".
_TOO_FAR = (
    r"\b(?:too\s+(?:far|much)|zu\s+(?:weit|viel)|trop|demasiado|troppo)"
    r"(?:\W+(?:over|to|the|nach|a|vers|la|hacia|al|verso|para))*\W+(%s)\b"
    r"|\b(%s)\W+(?:\w+\W+)?demais\b"
)

# A quarter turn: "a quarter turn", "quarter of a turn", "eine Vierteldrehung", "quart de
# tour", "cuarto de vuelta", "quarto di giro", "quarto de volta"; not "three-quarter
# turn" nor plurals ("two quarter turns", "trois quarts de tour").
_QUARTER = re.compile(
    r"(?<!three[\s-])\bquarter(?:[\s-]+|\s+of\s+a\s+)turn\b|\bviertel[\s-]?(?:um)?drehung\b|"
    r"\bquart\s+de\s+tour\b|\bcuarto\s+de\s+vuelta\b|\bquarto\s+di\s+giro\b|"
    r"\bquarto\s+de\s+volta\b"
)

# Halfway to the center: "halfway back toward the centre", "half the way to the middle",
# "auf halbem Weg zur Mitte", "halb zur Mitte", "a mi-chemin du centre".
_HALFWAY = re.compile(
    r"\b(?:half[\s-]?way|half\s+the\s+way)\W+"
    r"(?:(?:back|over|toward|towards|to|into|in|the|its)\W+){0,4}(?:center|centre|middle)\b|"
    r"\b(?:auf\s+halbem\s+weg|halb)\W+(?:(?:zuruck|zur|in|die|richtung)\W+){1,3}mitte\b|"
    r"\bmi-?\s?chemin\W+(?:(?:du|de|vers|le|la|au|retour)\W+){1,3}(?:centre|milieu)\b"
)

# The last move again: "and the same again", "do that once more", "nochmal", "encore
# une fois", "otra vez", "di nuovo", "outra vez", "nog een keer", "jeszcze raz"; not a
# way back ("and back again", "otra vez donde estaba").
_AGAIN = re.compile(
    r"\b(?:again|once\s+more|one\s+more\s+time|nochmal|noch\s*einmal|encore\s+une\s+fois|"
    r"otra\s+vez|de\s+nuevo|di\s+nuovo|ancora\s+una\s+volta|outra\s+vez|de\s+novo|"
    r"nog\s+(?:een\s+)?keer|opnieuw|jeszcze\s+raz)\b"
)
# The last turn mirrored: "now the other way", "the opposite direction", "andersrum",
# "dans l'autre sens", "al reves", "dall'altra parte", "de andere kant op".
_OTHER_WAY = re.compile(
    r"\b(?:the\s+other\s+(?:way|direction)|the\s+opposite\s+(?:way|direction)|"
    r"andersrum|in\s+die\s+andere\s+richtung|dans\s+l'?\s*autre\s+sens|al\s+reves|"
    r"en\s+la\s+otra\s+direccion|dall'?\s*altra\s+parte|nell'?\s*altra\s+direzione|"
    r"de\s+andere\s+kant\s+op|para\s+o\s+outro\s+lado|w\s+druga\s+strone)\b"
)
# The size of a turn against the last: "twice as far", "double that", "half as far".
_TWICE = re.compile(r"\b(?:twice|double|two\s+times|doppelt|deux\s+fois|el\s+doble|il\s+doppio)\b")
_HALF_AS = re.compile(r"\b(?:half\s+as\s+(?:far|much)|half\s+that|halb\s+so\s+weit)\b")
# A way back, beside those of _BACK: "back" itself, and "where it was" in more forms.
_RETURN = re.compile(
    r"\b(?:back|zuruck|retour|atras|indietro|terug|tillbaka|powrotem|volta|donde\s+estaba|"
    r"dove\s+era|onde\s+estava|ou\s+(?:il|elle)\s+etait|wo\s+es\s+war)\b"
)
