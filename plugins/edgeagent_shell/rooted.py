"""A path the request says relative, written from the filesystem's root.

Asked "fine, then how many lines are in logs/app.log?" (after "delete the logs
folder" had come as ``rm /logs``), the model called ``wc -l /logs/app.log``, which the
policy refused as outside the allowed directories (blind prompts). Where the request
names the path without the leading slash, and never with it, the path is the one it
names: relative, and checked by the policy like any other.
"""

from __future__ import annotations

import re


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
