"""What a request asks: a change to files or the system, or a question or a read.

A wrapper's read call for an order to change ("just delete everything in the logs
folder" as ``df``) is refused without a side question
(:meth:`~edgeagent.agent.checks.SideChecks.off_target`), and a question about a file
gets a read (:func:`~edgeagent.agent.review.asks_of_a_file`): both need to tell an order
from a question, in the languages people ask in.
"""

from __future__ import annotations

import re

# A change to files or the system, as a refusal's reason ("none of my tools can delete
# files") or as a request's words ("delete notes.txt"): a read tool serves none of these.
CHANGE = re.compile(
    r"\b(?:delet|remov|eras|wip|clear|empt|(?:over)?writ|append|edit|modif|renam|mov|"
    r"cop(?:y|ie)|creat|sav|truncat|replac|kill|terminat|(?:un)?install|reboot|restart|"
    r"shut\s*down|send|e-?mail|upload|download)(?:e|es|ed|ing|s|y|ies|ied|ten)?\b",
    re.IGNORECASE,
)
# A request for such a change: its words, and those people use for one ("add 'milk' to
# it", "get rid of the todo file", "tick off milk"), and the words for deleting,
# emptying, installing and restarting in the languages people ask in ("Radera alla filer
# i loggmappen" listed the folder: Swedish was not here; blind prompts).
_ASKED_CHANGE = re.compile(
    r"\b(?:add|get\s+rid\s+of|tick\s+off|cross\s+(?:off|out)|lösch\w*|loesch\w*|"
    # a copy: "how would i make a backup of it then?" listed the file (fresh74)
    r"(?:make|take|create|do)\s+(?:a\s+)?backup|back\s+(?:\w+\s+){0,2}up|"
    r"entfern\w*|installier\w*|neu\s*start\w*|"  # German
    r"supprim\w*|effac\w*|ajout\w*|redémarr\w*|"  # French
    r"borr[ae]\w*|elimin\w*|añad\w*|vac[ií][ae]\w*|reinici\w*|instal+[aeáo]\w*|"  # Spanish
    r"cancell\w*|aggiung\w*|svuot\w*|riavvi\w*|"  # Italian
    r"apag[au]\w*|exclu[ai]\w*|hinzufüg\w*|"  # Portuguese
    r"verwijder\w*|wis|herstart\w*|installeer\w*|"  # Dutch
    r"radera\w*|ta\s+bort|töm\w*|slett\w*|slet|fjern\w*|"  # Swedish, Norwegian, Danish
    r"poista\w*|töröl\w*|[șş]terge\w*|sterge\w*|"  # Finnish, Hungarian, Romanian
    r"usu[nń]\w*|skasuj\w*|wyczyść|zainstaluj\w*|"  # Polish
    r"sma[zž]\w*|odstra[nň]\w*|vyma[zž]\w*|"  # Czech, Slovak
    r"sil|silin|silinsin|siliver|temizle\w*|"  # Turkish
    r"удал\w*|сотр\w*|очист\w*|перезагруз\w*|видал\w*|"  # Russian, Ukrainian
    r"διάγραψ\w*|διέγραψ\w*|σβήσ\w*)\b"  # Greek
    r"|削除|消去|删除",  # Japanese, Chinese ("消して" also switches a light off)
    re.IGNORECASE,
)
# A request put as a question or a request to read: a "?", or its first word after
# fillers ("ok", "so", "hey") asks or reads ("how much space would deleting logs free",
# "can you clear the log", "show me what I wrote").
_QUESTION = re.compile(
    r"\?|^\W*(?:(?:ok(?:ay)?|so|and|hey|hi|hm+|um+|well|also|btw|quick(?:\s+one)?|"
    r"please|pls)\W+)*(?:what|what's|whats|which|how|where|when|who|why|is|are|was|were|"
    r"does|do|did|can|could|would|will|should|may|show|list|tell|read|find|count|check|"
    r"search|grep|look|give|print|display|see)\b",
    re.IGNORECASE,
)


def asks_a_change(request: str) -> bool:
    """True when ``request`` asks to change files or the system ("ok delete it",
    "clear the log please", "add 'call mom' to my notes"): what no read tool does."""
    return bool(CHANGE.search(request) or _ASKED_CHANGE.search(request))


def asks_a_question(request: str) -> bool:
    """True when ``request`` is put as a question or asks to read something ("what did I
    write in notes.txt?", "how much space would clearing the log free?", "show me the
    log"), not as an order ("ok delete it", "wipe the logs dir") nor as one asked
    politely ("can you free some up by clearing the apt cache?" came as ``free``, and
    the reader question let it run; fresh30)."""
    polite = _POLITE.match(request)
    if polite and polite.group(1).lower() not in _READ_VERBS:
        return False
    if _POLITE_ABROAD.match(request) and not _READS_ABROAD.search(request):
        return False
    return bool(_QUESTION.search(request))


# An order asked politely: "can you delete todo.md for me", "could you please free up
# some space?"; its verb (group 1) is one of :data:`_READ_VERBS` for a request to read.
_POLITE = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|so|and|hey|hi|hm+|um+|well|also|btw|please|pls)\W+)*"
    r"(?:can|could|would|will)\s+(?:you|u)\s+(?:(?:please|pls|also|just)\s+)*(\w+)",
    re.IGNORECASE,
)
_READ_VERBS = frozenset({
    "show", "tell", "list", "check", "read", "find", "count", "see", "look", "give", "print",
    "display", "say", "grep", "search", "get", "open",
})  # fmt: skip
# The same in other languages, whose verb may come last: "Kan du radera alla
# loggfiler?" (Swedish) ran df on the reader question's yes (fresh45). A word to read
# anywhere in it (:data:`_READS_ABROAD`) makes it a request to read.
_POLITE_ABROAD = re.compile(
    r"^\W*(?:kannst\s+du|k[öo]nntest\s+du|k[öo]nnen\s+sie|k[öo]nnten\s+sie|"
    r"peux[-\s]tu|pouvez[-\s]vous|pourrais[-\s]tu|pourriez[-\s]vous|tu\s+peux|"
    r"vous\s+pouvez|(?:me\s+)?puedes|(?:me\s+)?podr[ií]as|(?:me\s+)?puede\s+usted|"
    r"(?:mi\s+)?puoi|(?:mi\s+)?potresti|(?:voc[eê]\s+)?pode|podes|poderia|"
    r"kan\s+(?:du|ni|je|jij)|kunt\s+u|kun\s+je|mo[zż]esz|m[uů][zž]e[sš]|"
    r"можешь|можете|μπορείς|μπορείτε|voitko|voisitko)\b",
    re.IGNORECASE,
)
_READS_ABROAD = re.compile(
    r"\b(?:zeig|sagen|sag\s+mir|lies|such|prüf|pruef|schau|zähl|zaehl|"  # German
    r"montr|dire|dis[-\s]moi|lire|cherch|vérifi|verifi|affich|compt|"  # French
    r"muestr|mostr|dec[ií]r|dime|d[ií]game|leer|busc|comprob|comprueb|cuent|contar|"
    r"dimmi|dirmi|legg|cerc|controll|guard|diz|dizer|procur|"  # It., Port.
    r"toon|laat|zeg|lees|lezen|zoek|controleer|tel|kijk|"  # Dutch
    r"visa|säg|läs|sök|kolla|räkna|titta|hitta|se\b|vis|fortell|sjekk|tjekk|finn|find|"  # Nordic
    r"poka[zż]|powiedz|przeczytaj|znajd[zź]|sprawd[zź]|policz|"  # Polish
    r"uka[zž]|[řr]ekni|p[řr]e[čc]ti|najdi|zkontroluj|spo[čc][íi]tej|"  # Czech
    r"покаж|скаж|прочит|найд|провер|посчит|δείξ|πες|διάβασ|näytä|kerro|lue)\w*",
    re.IGNORECASE,
)
