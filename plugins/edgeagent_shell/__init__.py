"""The ``shell`` tool: allow-listed read-only commands, no shell, confined to roots.

Options (``[plugins.shell]``): ``roots`` (directories commands may touch; relative ones
are relative to the config file; default: the current directory), ``allow`` (command
names; programs that run other programs, such as ``env`` or ``xargs``, are refused),
``timeout_s``, ``max_output_bytes``.

The tool is wrappable: ``.tool`` files turn a template such as ``find {arguments} -type f``
and an argument list into a ``command`` for it, and every check below still applies.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from edgeagent.plugin import (
    ConfigError,
    PluginContext,
    Register,
    Tool,
    ToolDeniedError,
    ToolError,
    hookimpl,
    make_tool,
    tool,
)
from edgeagent_shell.hints import (
    files_hint,
    lacks_file,
    listed_file,
    mend_paths,
    missing_paths,
    stem_search,
)
from edgeagent_shell.policy import DEFAULT_ALLOW, RUNNERS, ShellPolicy, resolve_roots
from edgeagent_shell.rooted import inside_instead
from edgeagent_shell.runner import RunResult, redact, run_command, secret_values
from edgeagent_shell.said import asked_of, command_as_said, wrapped_as_said

ARGUMENTS_TOKEN = "{arguments}"
ANSWER_CHARS = 600
"""How much output the user's answer shows; the model's result holds all of it."""
LISTED_LINES = 20
"""How much of a file an ``ls`` of that file alone shows after its listing."""


class ShellOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    roots: list[Path] = Field(default_factory=lambda: [Path(".")], min_length=1)
    allow: list[str] = Field(default_factory=lambda: list(DEFAULT_ALLOW))
    timeout_s: float = Field(5.0, gt=0, le=300)
    max_output_bytes: int = Field(16384, ge=256, le=10_000_000)

    @field_validator("allow")
    @classmethod
    def _bare_names(cls, names: list[str]) -> list[str]:
        for name in names:
            if not name or "/" in name or name != name.strip():
                raise ValueError(f"{name!r} is not a bare command name such as 'ls'")
            if name in RUNNERS:
                raise ValueError(
                    f"{name!r} runs other programs or code, which would escape every check "
                    f"of the shell tool; remove it from the list"
                )
        return names


def wrap_command(command_template: str, arguments: list[str]) -> dict[str, Any]:
    """Build ``shell``'s arguments: ``{arguments}`` becomes the shell-quoted list,
    without an option the template gives already ("and memory?" came as ``free`` with
    ``["-m"]``, and ``free -m -m`` failed: "Multiple unit options")."""
    given = set(command_template.replace(ARGUMENTS_TOKEN, " ").split())
    arguments = [a for a in arguments if not (a.startswith("-") and a in given)]
    quoted = " ".join(shlex.quote(a) for a in arguments)
    if ARGUMENTS_TOKEN in command_template:
        command = command_template.replace(ARGUMENTS_TOKEN, quoted).strip()
    else:
        command = f"{command_template} {quoted}".strip()
    return {"command": command}


def shell_answer(result: dict[str, Any]) -> str:
    """The command's output, trimmed and cut at ``ANSWER_CHARS``; ``(no output)`` when
    there is none; a path it mended, and the exit code when it is not 0."""
    output = str(result.get("output", "")).strip()
    notes: list[str] = [str(result["mended"])] if result.get("mended") else []
    if len(output) > ANSWER_CHARS:
        notes.append(f"output cut at {ANSWER_CHARS} of {len(output)} characters")
        output = output[:ANSWER_CHARS].rstrip() + " …"
    if result.get("truncated"):
        notes.append("the command was stopped at the output limit")
    code = result.get("exit_code")
    if code not in (0, None):
        notes.append(f"exit code {code}")
    text = output or "(no output)"
    return f"{text}\n({'; '.join(notes)})" if notes else text


class Shell:
    """Runs one checked command at a time for the model."""

    def __init__(self, *, policy: ShellPolicy, timeout_s: float, max_output_bytes: int) -> None:
        self.policy = policy
        self.timeout_s = timeout_s
        self.max_output_bytes = max_output_bytes

    def _checked(self, command: str) -> tuple[list[str], list[str]]:
        """The argv the policy allows for ``command``, and notes: a path made up outside
        the allowed folders is read as the one file of its name inside them
        (:func:`~edgeagent_shell.rooted.inside_instead`), else refused."""
        try:
            return self.policy.check(command), []
        except ToolDeniedError as denied:
            try:
                argv = shlex.split(command)
            except ValueError:
                raise denied from None
            policy = self.policy
            found = inside_instead(argv, inside=policy.inside, roots=policy.roots, cwd=policy.cwd)
            if found is None:
                raise
            return self.policy.check(shlex.join(found[0])), found[1]

    @tool(name="shell", wrap=wrap_command, answer=shell_answer)
    def shell(
        self,
        command: Annotated[str, Field(description="e.g. 'ls -l' or 'df -h'")],
    ) -> dict[str, Any]:
        """Run a read-only command (no pipes): df -h (disk), free -m (memory), uptime, ps."""
        argv, instead = self._checked(command)
        mended, notes = mend_paths(argv, roots=self.policy.roots, cwd=self.policy.cwd)
        notes = [*instead, *notes]
        if notes:
            argv = self.policy.check(shlex.join(mended))  # every check again
        if lacks_file(argv):
            hint = files_hint([], roots=self.policy.roots, cwd=self.policy.cwd)
            raise ToolError(
                f"{argv[0]} needs the file to read and was given none ({shlex.join(argv)}). "
                f"{hint} Call it again with the file the user means"
            )
        ran = run_command(
            argv,
            cwd=self.policy.cwd,
            timeout_s=self.timeout_s,
            max_output_bytes=self.max_output_bytes,
        )
        stemmed = stem_search(argv) if ran.exit_code == 1 and not ran.output.strip() else None
        if stemmed is not None:
            again = self._run(stemmed[0])
            if again.exit_code == 0:
                ran, notes = again, [*notes, stemmed[1]]
        output = ran.output
        listed = listed_file(argv, cwd=self.policy.cwd) if ran.exit_code == 0 else None
        if listed is not None:
            try:
                shown = self._run(["head", "-n", str(LISTED_LINES), "--", listed])
            except ToolDeniedError:  # head is not allowed here: the listing alone
                shown = None
            if shown is not None and shown.exit_code == 0:
                output += shown.output
                notes = [*notes, f"{listed} is a file: its first lines follow the listing"]
        text = redact(output.decode("utf-8", errors="replace"), secret_values(os.environ))
        if ran.timed_out:
            raise ToolError(
                f"{argv[0]} was stopped after {self.timeout_s:g} s (timeout); "
                f"output so far: {text[-500:]!r}"
            )
        missing = missing_paths(text) if ran.exit_code else []
        if missing:
            # All it said is that a path is not there: a failure the model can correct
            # with the names that are (it guesses "app.log" for "logs/app.log").
            hint = files_hint(missing, roots=self.policy.roots, cwd=self.policy.cwd)
            raise ToolError(
                f"{text.strip()} (exit code {ran.exit_code}). {hint} "
                f"Call it again with a path that exists"
            )
        result: dict[str, Any] = {"exit_code": ran.exit_code, "output": text}
        if notes:
            result["mended"] = "; ".join(notes)
        if ran.truncated:
            result["truncated"] = (
                f"output cut at {self.max_output_bytes} bytes and the command stopped; "
                f"narrow it (head, grep, a subdirectory)"
            )
        return result

    def _run(self, argv: list[str]) -> RunResult:
        """A further command a call runs, checked by the policy like the call's own."""
        return run_command(
            self.policy.check(shlex.join(argv)),
            cwd=self.policy.cwd,
            timeout_s=self.timeout_s,
            max_output_bytes=self.max_output_bytes,
        )


def build_shell_tool(options: ShellOptions, *, base: Path) -> Tool:
    roots = resolve_roots(options.roots, base=base)
    for root in roots:
        if not root.is_dir():
            raise ConfigError(
                f"plugins.shell.roots: {root} is not a directory; create it or fix the path"
            )
    shell = Shell(
        policy=ShellPolicy(roots=roots, allow=frozenset(options.allow)),
        timeout_s=options.timeout_s,
        max_output_bytes=options.max_output_bytes,
    )
    # The executor's own timeout backs up the runner's, which kills the process first.
    # "commands": a call of an unknown tool named after one of these (the model writes
    # {"name": "ps"}) runs as that shell command (ToolExecutor.resolve). "How many
    # lines" runs wc -l, in a command or a wrapper's list, and a wc wrapper answers
    # only a request for a count (edgeagent_shell.said).
    return replace(
        make_tool(shell.shell, plugin="shell"),
        timeout_s=options.timeout_s + 2,
        extra={"commands": tuple(sorted(options.allow))},
        reread=command_as_said,
        reread_wrapped=wrapped_as_said,
        asked_wrapped=asked_of,
    )


@hookimpl
def register_tools(register: Register, context: PluginContext) -> None:
    options = context.options_as(ShellOptions)
    base = context.config_path.parent if context.config_path else Path.cwd()
    register(build_shell_tool(options, base=base))
