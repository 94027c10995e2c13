"""What the ``shell`` tool may run: one allow-listed command, its paths inside the roots.

There is no shell behind the tool (``shell=False``), so metacharacters would only be
literal text; they are still refused outside single quotes, because a model that writes
``ls | wc -l`` expects a pipeline and deserves a clear "no" rather than odd output.
Every check here is conservative: refusing a harmless argument is an inconvenience,
accepting a harmful one is not.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from edgeagent.plugin import ToolDeniedError
from edgeagent_shell.ps import check_ps

DEFAULT_ALLOW = (
    "ls", "cat", "head", "tail", "grep", "find", "wc", "df", "du",
    "uptime", "free", "date", "uname", "ps",
)  # fmt: skip
MAX_COMMAND_CHARS = 2000
MAX_ARGUMENTS = 64

# Options refused per command: they execute programs, write or delete files, follow
# symlinks out of the roots while recursing, or read file names from a file (the last
# two are out of a per-argument check's sight).
REFUSED_OPTIONS: dict[str, frozenset[str]] = {
    "find": frozenset({
        "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0",
        "-fprintf", "-fls", "-L", "-follow", "-files0-from",
    }),
    "grep": frozenset({"-R", "--dereference-recursive"}),
    "ls": frozenset({"-L", "--dereference"}),
    "du": frozenset({"-L", "--dereference", "--files0-from"}),
    "wc": frozenset({"--files0-from"}),
    "sort": frozenset({
        "-o", "--output", "--compress-program", "-T", "--temporary-directory", "--files0-from",
    }),
    "date": frozenset({"-s", "--set"}),
}  # fmt: skip
RUNNERS = frozenset({
    "env", "xargs", "nice", "nohup", "timeout", "stdbuf", "setsid", "sudo", "doas", "su",
    "runuser", "chroot", "strace", "ltrace", "watch", "time", "busybox", "parallel",
    "sh", "bash", "dash", "zsh", "ksh", "fish", "csh", "tcsh", "python", "python3",
    "perl", "ruby", "node", "awk", "gawk", "mawk", "nawk", "sed", "ionice", "taskset",
    "chrt", "flock", "unshare", "nsenter", "script", "gdb", "ssh",
})  # fmt: skip
"""Programs that run other programs or code, out of these checks' sight; never allowed."""
ARGV_CHECKS = {"ps": check_ps}
"""Checks that need the whole argv (and may rewrite it), per program."""
LISTERS = frozenset({"ls", "find", "du", "df", "stat"})
"""Programs that name files without printing what is in them."""
PROC = Path("/proc")
GREP_RECURSIVE = ("--recursive", "--directories", "--dereference-recursive")
# ``--output`` writes a file for most tools that have it; df's selects columns.
HARMLESS_OUTPUT = frozenset({"df"})
_VARIABLE = re.compile(r"\$[A-Za-z_({]")


@dataclass(frozen=True)
class ShellPolicy:
    """The allow-list and the directories commands may touch (already resolved)."""

    roots: tuple[Path, ...]
    allow: frozenset[str]

    @property
    def cwd(self) -> Path:
        return self.roots[0]

    def check(self, command: str) -> list[str]:
        """The argv to run for ``command``; raise :class:`ToolDeniedError` with the reason."""
        if len(command) > MAX_COMMAND_CHARS:
            raise ToolDeniedError(
                f"command is {len(command)} characters long; the limit is {MAX_COMMAND_CHARS}"
            )
        check_metacharacters(command)
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise ToolDeniedError(f"cannot split {command!r} into arguments: {exc}") from None
        if not argv:
            raise ToolDeniedError("empty command; give a command such as 'ls -l'")
        if len(argv) > MAX_ARGUMENTS:
            raise ToolDeniedError(f"{len(argv)} arguments; the limit is {MAX_ARGUMENTS}")
        name = argv[0]
        if name not in self.allow:
            allowed = ", ".join(sorted(self.allow))
            raise ToolDeniedError(f"command {name!r} is not allowed; allowed commands: {allowed}")
        for arg in argv[1:]:
            check_option(name, arg)
            self.check_paths(name, arg)
        if _recursive_grep(argv) and not self.names_directory(argv[1:]):
            check_not_above_proc(name, self.cwd, ".")  # grep -r with no directory reads "."
        check = ARGV_CHECKS.get(name)
        return check(argv) if check is not None else argv

    def inside(self, path: Path) -> bool:
        return any(path == root or path.is_relative_to(root) for root in self.roots)

    def names_directory(self, args: list[str]) -> bool:
        return any(
            (self.cwd / candidate).is_dir()
            for arg in args
            for candidate in path_candidates(arg, self.cwd)
        )

    def check_paths(self, command: str, arg: str) -> None:
        for candidate in path_candidates(arg, self.cwd):
            # resolve() follows symlinks, so a link inside a root pointing out is caught.
            resolved = (self.cwd / candidate).resolve()
            if not self.inside(resolved):
                roots = ", ".join(str(r) for r in self.roots)
                raise ToolDeniedError(
                    f"path {candidate!r} resolves to {resolved}, outside the allowed "
                    f"directories ({roots}); use a path inside them"
                )
            check_not_process_files(candidate, resolved)
            if command not in LISTERS:
                check_not_above_proc(command, resolved, candidate)


def check_not_process_files(candidate: str, resolved: Path) -> None:
    """Refuse ``/proc/<pid>/...`` (``/proc/self`` resolves to one), even inside a root:
    a process's ``environ`` holds the daemon's secrets, whatever the roots say."""
    if resolved.is_relative_to(PROC) and len(resolved.parts) > 2:
        process = resolved.parts[2]
        if process.isdigit() or process in ("self", "thread-self"):
            raise ToolDeniedError(
                f"path {candidate!r} resolves to {resolved}, a process's own files "
                f"(environment, memory, command line); they are never readable here"
            )


def check_not_above_proc(command: str, resolved: Path, candidate: str) -> None:
    """Refuse giving ``/`` or ``/proc`` to a program that reads what files hold: a
    recursive search there reads every process's environment."""
    if PROC.is_relative_to(resolved):
        raise ToolDeniedError(
            f"{command} may not read under {candidate!r} ({resolved}): it holds /proc, "
            f"where each process's environment is; name a narrower directory"
        )


def _recursive_grep(argv: list[str]) -> bool:
    """Whether ``argv`` may be a recursive grep (over-approximated: -d and clusters with
    an r anywhere, and any abbreviation of the long options, count)."""
    if argv[0] != "grep":
        return False
    for arg in argv[1:]:
        option = arg.split("=", 1)[0]
        if option.startswith("--"):
            if len(option) > 2 and any(full.startswith(option) for full in GREP_RECURSIVE):
                return True
        elif arg.startswith("-") and any(c in arg for c in "rRd"):
            return True
    return False


def check_metacharacters(command: str) -> None:
    """Refuse pipes, redirection, chaining and substitution outside single quotes."""
    if "\n" in command or "\r" in command or "\0" in command:
        raise ToolDeniedError("the command contains a newline or NUL; give one command on one line")
    quote: str | None = None
    escaped = False
    for i, ch in enumerate(command):
        if escaped:
            escaped = False
            continue
        if quote == "'":
            if ch == "'":
                quote = None
            continue
        if ch == "\\":
            escaped = True
            continue
        if ch == '"':
            quote = None if quote == '"' else '"'
            continue
        if ch == "'" and quote is None:
            quote = "'"
            continue
        if ch == "`" or _VARIABLE.match(command, i):
            raise ToolDeniedError(
                f"{command!r}: command substitution and variables ({ch}...) are not supported; "
                f"there is no shell. Put literal text in single quotes"
            )
        if quote is None and ch in ";|&<>":
            raise ToolDeniedError(
                f"{command!r}: {ch!r} is not supported (no pipes, redirection or chaining; "
                f"there is no shell). Run one command per call"
            )


def check_option(command: str, arg: str) -> None:
    """Refuse the options of ``command`` that run programs, write files or escape."""
    if not arg.startswith("-") or arg == "-":
        return
    refused = REFUSED_OPTIONS.get(command, frozenset())
    option = arg.split("=", 1)[0]
    bad: str | None = None
    prefix = any(r.startswith("-fprint") and option.startswith(r) for r in refused)
    # GNU tools accept any unambiguous prefix of a long option: --out means --output.
    abbreviated = len(option) > 2 and any(
        r.startswith("--") and r.startswith(option) for r in refused
    )
    writes = command not in HARMLESS_OUTPUT and (
        option.startswith("--output") or (len(option) > 2 and "--output".startswith(option))
    )
    if option in refused or prefix or abbreviated or writes:
        bad = option
    elif command != "find" and not arg.startswith("--"):
        # A cluster like ``-rRn`` carries every letter in it.
        letters = {f"-{c}" for c in arg[1:]}
        hits = sorted(letters & {r for r in refused if len(r) == 2})
        bad = hits[0] if hits else None
    if bad is not None:
        raise ToolDeniedError(
            f"option {bad!r} of {command} is not allowed (it runs programs, writes files or "
            f"follows links out of the allowed directories)"
        )


def looks_like_path(text: str) -> bool:
    return "/" in text or text in (".", "..") or text.startswith("~")


def path_candidates(arg: str, cwd: Path) -> list[str]:
    """The parts of one argument that may name a file.

    A plain argument counts when it looks like a path or exists relative to ``cwd``
    (``cat link`` where ``link`` is a symlink). For options, the value after ``=`` counts,
    and so does every tail of a short option (``-f/etc/passwd`` reads ``/etc/passwd``).
    """
    if not arg.startswith("-") or arg == "-":
        return [arg] if looks_like_path(arg) or os.path.lexists(cwd / arg) else []
    found: list[str] = []
    if "=" in arg:
        value = arg.split("=", 1)[1]
        if value and (looks_like_path(value) or os.path.lexists(cwd / value)):
            found.append(value)
    if not arg.startswith("--"):
        found.extend(tail for i in range(2, len(arg)) if looks_like_path(tail := arg[i:]))
    return found


def resolve_roots(roots: Sequence[Path], *, base: Path) -> tuple[Path, ...]:
    return tuple((base / r.expanduser()).resolve() for r in roots)
