"""Bearer tokens in files: ``[mcp] token_file`` (what clients of edgeagent's server must
send) and, for the client half, a server's ``token_file``.

A token file is read once, at start. It must be the owner's alone: a token that
other users of the machine can read moves the hardware for them too, so a file open to
the group or to others is refused, like ssh refuses a private key in such a file.
"""

from __future__ import annotations

import hmac
import stat
from pathlib import Path

from edgeagent.errors import ConfigError


def read_token_file(path: Path, *, key: str) -> str:
    """The token on the first line of ``path``; :class:`ConfigError` naming ``key`` (e.g.
    ``[mcp] token_file``) when the file cannot be read, is empty, or is open to others."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(
            f"{key} = {path}: cannot read it ({reason}); put the token on its first line, "
            f"in a file only the edgeagent user can read (chmod 600)"
        ) from None
    if mode & 0o077:
        raise ConfigError(
            f"{key} = {path} is open to other users (mode {mode:04o}), who could read the "
            f"token; make it the owner's alone: chmod 600 {path}"
        )
    token = lines[0].strip() if lines else ""
    if not token:
        raise ConfigError(
            f"{key} = {path}: the first line is empty; put the token there (for example "
            f"the output of `openssl rand -hex 32`)"
        )
    return token


def path_token_matches(path: str, prefix: str, token: str) -> bool:
    """Whether ``path`` is ``<prefix>/<token>``: the token in the URL, for a client that
    can be given a URL but no header (Home Assistant's MCP integration). Constant-time,
    like :func:`bearer_matches`."""
    head, slash, presented = path.rpartition("/")
    if not slash or head != prefix:
        return False
    return hmac.compare_digest(presented.encode(), token.encode())


def bearer_matches(authorization: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``Bearer <token>``; a constant-time
    comparison, so the time taken tells nothing about how much of a guess was right."""
    if authorization is None:
        return False
    scheme, _, presented = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(presented.strip().encode(), token.encode())
