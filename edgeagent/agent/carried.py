"""What a call carries: its values against the request and the turn before.

The side questions (:mod:`.checks`) ask about a call in the light of what it holds: a
tool's user's words carried from an earlier turn (:func:`carried`), a number or a file
taken from the turn before (:func:`carries`), a file the request names by its stem
(:func:`file_named`), and a request that refers back to a value (:data:`A_VALUE_BACK`).
"""

from __future__ import annotations

import re

from edgeagent.agent import honesty
from edgeagent.tools.executor import ToolCall
from edgeagent.tools.tool import Tool
from edgeagent.tools.words import is_a_path, names_file, plain


def carried(tool: Tool, call: ToolCall, prompt: str) -> bool:
    """Whether ``call`` of ``tool`` holds none of its user's words
    (:attr:`~edgeagent.tools.tool.Tool.user_words`) as ``prompt`` says them: carried from
    an earlier turn, so its :attr:`~edgeagent.tools.tool.Tool.asked_in` decides. A tool
    without user words is always asked by its ``asked_in``."""
    heard = plain(prompt)
    return all(
        not (value := plain(str(call.arguments.get(name, "")))) or value not in heard
        for name in tool.user_words
    )


def carries(call: ToolCall, prompt: str, earlier: str) -> bool:
    """Whether ``call`` holds a number or a file the turn before (``earlier``) holds
    and the request does not: it goes on from an earlier result. "how many times is
    milk on there", after the todo list was read, came as ``grep`` of ``todo.txt``
    and was refused as no search (blind prompts)."""
    before = {n.replace(",", "") for n in honesty.NUMBER.findall(earlier)}
    values = leaves(call.arguments)
    return any(
        isinstance(leaf, str) and is_a_path(leaf) and leaf in earlier and leaf not in prompt
        for leaf in values
    ) or any(
        n.replace(",", "") in before
        for leaf in values
        for n in honesty.new_numbers(str(leaf), prompt)
    )


A_VALUE_BACK = re.compile(
    r"\b(?:that|this|those|these|same|double|twice|half|previous|last|earlier)\b", re.IGNORECASE
)
"""A request's reference back to a value ("to that angle", "double that"), not only to
a device ("move it")."""


def file_named(call: ToolCall, prompt: str) -> str | None:
    """The first file ``call`` reads that ``prompt`` names by its stem
    (:func:`~edgeagent.tools.words.names_file`: "my todo list" for ``todo.md``), or
    ``None``. The topic question names it after the tool's title: measured on 12
    requests that read a file named so and 12 that ask something else of it
    (``bench/side_questions.py --files``), "Show what a file contains" let through 6
    reads and 3 others; with the file, 12 and 6 (the others' changes, "delete the todo
    list", are refused before)."""
    for value in leaves(call.arguments):
        if isinstance(value, str) and names_file(value, prompt):
            return value
    return None


def leaves(value: object) -> list[object]:
    """The scalar values inside arguments (lists and objects opened)."""
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in leaves(item)]
    return [value]


def number(text: str) -> str:
    """A number's digits as written in any form: "30", "30.0" and "30,0" are "30"."""
    try:
        return f"{float(text.replace(',', '.')):g}"
    except ValueError:
        return text
