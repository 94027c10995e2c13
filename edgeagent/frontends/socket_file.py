"""The socket file: its directory, a stale file a crashed daemon left, its mode and group.

The socket is created under a umask, so it is never briefly open to everyone between
``bind()`` and ``chmod()``; its mode is 0660 and its group ``[socket] group``, which is
where a local client's trust comes from.
"""

from __future__ import annotations

import grp
import logging
import os
import socket
from dataclasses import dataclass
from pathlib import Path

from edgeagent.errors import ConfigError

log = logging.getLogger(__name__)

SOCKET_MODE = 0o660


@dataclass(frozen=True)
class BoundSocket:
    sock: socket.socket
    """Bound, not yet listening."""
    inode: int
    """The file's inode: at stop, only the file this daemon created is removed."""
    degraded: str | None
    """Why the socket works with reduced function (its group does not exist, ...)."""


def bind_socket(path: Path, *, group: str | None) -> BoundSocket:
    """A Unix stream socket bound at ``path``, with mode 0660 and ``group``; a stale file
    of a crashed daemon replaced, a live daemon's refused (:class:`ConfigError`)."""
    _make_parent(path)
    _remove_stale(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o117)
    try:
        sock.bind(str(path))
    except OSError as exc:
        sock.close()
        raise ConfigError(
            f"Cannot create the socket {path} ([socket] path): "
            f"{exc.strerror or exc}; set [socket] path to a file in a directory this "
            f"user can write, or run under systemd (RuntimeDirectory=edgeagent)"
        ) from None
    finally:
        os.umask(old_umask)
    os.chmod(path, SOCKET_MODE)
    degraded = _give_to_group(path, group) if group else None
    return BoundSocket(sock, path.stat().st_ino, degraded)


def _give_to_group(path: Path, group: str) -> str | None:
    degraded = None
    try:
        os.chown(path, -1, grp.getgrnam(group).gr_gid)
    except KeyError:
        degraded = f"group {group!r} ([socket] group) does not exist"
    except PermissionError:
        degraded = f"cannot give the socket to group {group!r}: this user is not a member of it"
    if degraded:
        log.error("socket %s: %s; it keeps the daemon's own group", path, degraded)
    return degraded


def _remove_stale(path: Path) -> None:
    """Remove a socket file left by a crashed daemon; refuse if one is still serving."""
    if not _existing_socket(path):
        return
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except (ConnectionRefusedError, FileNotFoundError):
        path.unlink(missing_ok=True)
        return
    except OSError as exc:
        raise ConfigError(
            f"{path} ([socket] path) exists and is not a usable socket ({exc.strerror}); "
            f"remove it or set [socket] path to another file"
        ) from None
    finally:
        probe.close()
    raise ConfigError(
        f"Another edgeagent is already serving on {path}; stop it first "
        f"(`systemctl stop edgeagent`) or set a different [socket] path"
    )


def _make_parent(path: Path) -> None:
    """Create the socket's directory, or say which key to change."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"Cannot create the directory {path.parent} for the socket ([socket] path = "
            f"'{path}'): {exc.strerror or exc}; create it for the daemon's user, set [socket] "
            f"path to a file in a writable directory, or run under systemd "
            f"(RuntimeDirectory=edgeagent)"
        ) from None


def _existing_socket(path: Path) -> bool:
    """Whether a socket (or a dangling link) is at ``path``; refuse anything else.

    connect() to a regular file or a directory is refused just as a dead daemon's socket
    is, so without this check a mistyped path would have the file deleted.
    """
    try:
        if not path.exists():
            return path.is_symlink()
        if path.is_socket():
            return True
        kind = "a directory" if path.is_dir() else "a file" if path.is_file() else "no socket"
    except OSError as exc:
        raise ConfigError(
            f"Cannot use the socket path {path} ([socket] path): {exc.strerror or exc}; "
            f"set [socket] path to a file in a directory this user can reach"
        ) from None
    raise ConfigError(
        f"[socket] path = '{path}' is {kind}; edgeagent removes only sockets, so set "
        f"[socket] path to another file (e.g. /run/edgeagent/edgeagent.sock) or move it away"
    )
