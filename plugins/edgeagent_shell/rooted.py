"""A path the request says relative, written from the filesystem's root.

Asked "fine, then how many lines are in logs/app.log?" (after "delete the logs
folder" had come as ``rm /logs``), the model called ``wc -l /logs/app.log``, which the
policy refused as outside the allowed directories (blind prompts). Where the request
names the path without the leading slash, and never with it, the path is the one it
names: relative, and checked by the policy like any other.

The model also invents where a file lives: "cat the todo list" came as ``ls
/home/user/todo.txt``, "the last line of the app log" as ``/var/log/app.log`` (six
shell turns of the blind sets, each refused as outside the allowed directories). A path
outside them whose file name is exactly one file inside them (:func:`~edgeagent_shell.
hints.mend_paths`: by name, or loosely by stem or type) is read as that file, and the
answer says so; any other stays refused. Nothing outside the roots is read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from edgeagent_shell.hints import mend_paths


def unrooted_as_said(argv: list[str], request: str) -> list[str] | None:
    """``argv`` with each ``/path`` the ``request`` says only as ``path`` made relative;
    ``None``: as it is."""
    changed = False
    mended = list(argv)
    for i, arg in enumerate(argv[1:], start=1):
        path = arg.lstrip("/")
        if not arg.startswith("/") or not path or not re.match(r"[\w.-]", path):
            continue
        said = re.search(rf"(?<![\w/.-]){re.escape(path)}(?![\w/-])", request)
        if said and not re.search(rf"/{re.escape(path)}(?![\w/-])", request):
            mended[i], changed = path, True
    return mended if changed else None


def inside_instead(
    argv: Sequence[str], *, inside: Callable[[Path], bool], roots: Sequence[Path], cwd: Path
) -> tuple[list[str], list[str]] | None:
    """``argv`` with each absolute path outside the roots (``inside`` says) that names
    one file inside them read as that file, and a note for each; ``None`` where there
    is none, or one names no file or several."""
    guessed = [
        i
        for i, arg in enumerate(argv)
        if i and arg.startswith("/") and not inside(Path(arg).resolve())
    ]
    names = [Path(argv[i]).name for i in guessed]
    if not guessed or not all(names):
        return None
    relative = [names[guessed.index(i)] if i in guessed else arg for i, arg in enumerate(argv)]
    mended, _ = mend_paths(relative, roots=roots, cwd=cwd)
    if len(mended) != len(argv) or not all((cwd / mended[i]).is_file() for i in guessed):
        return None
    notes = [f"{argv[i]} is outside the allowed folders: read {mended[i]} here" for i in guessed]
    return mended, notes
