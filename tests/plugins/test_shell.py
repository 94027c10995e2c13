"""The ``shell`` tool against escape attempts: each is refused or bounded, and none of
them writes or deletes a file (the temp tree and a canary outside the root are compared
byte for byte before and after)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import time
from pathlib import Path
from typing import Any

import pytest
from edgeagent_shell import ShellOptions, build_shell_tool, register_tools, wrap_command
from edgeagent_shell.policy import DEFAULT_ALLOW, MAX_ARGUMENTS, MAX_COMMAND_CHARS

from edgeagent.errors import ConfigError, ToolDeniedError, ToolError
from edgeagent.tools import PluginContext, Tool
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.wrapped import load_wrapped_tools

ROOT = Path(__file__).resolve().parents[2]

CANARY = b"canary: if this changes, a command escaped\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``root/`` (the only root) and ``outside/`` holding the canary, plus symlinks out."""
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("alpha\nsemi;colon\nsecret? no\n")
    (root / "sub" / "b.txt").write_text("beta\n")
    (root / "big.txt").write_bytes(b"x" * 200_000)
    (root / "list.txt").write_text("a.txt\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "canary.txt").write_bytes(CANARY)
    (root / "link_out").symlink_to(outside, target_is_directory=True)
    (root / "link_file").symlink_to(outside / "canary.txt")
    (root / "link_in").symlink_to(root / "sub", target_is_directory=True)
    return tmp_path


def snapshot(top: Path) -> dict[str, str]:
    """Every path under ``top`` with its content hash, link target or 'dir'."""
    seen: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            rel = str(path.relative_to(top))
            if path.is_symlink():
                seen[rel] = "-> " + os.readlink(path)
            elif path.is_dir():
                seen[rel] = "dir"
            else:
                seen[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return seen


def make_shell(tree: Path, **options: Any) -> Tool:
    allow = options.pop("allow", [*DEFAULT_ALLOW, "sort"])
    opts = ShellOptions(roots=[Path("root")], allow=allow, **options)
    return build_shell_tool(opts, base=tree)


def run(shell: Tool, command: str) -> dict[str, Any]:
    result: dict[str, Any] = shell.func(command=command)
    return result


OUT = "{outside}"  # replaced with the absolute path of outside/ in each case

# (command, words the refusal must contain)
REFUSED: list[tuple[str, str]] = [
    # path traversal and absolute paths outside the root
    ("cat ../outside/canary.txt", "outside the allowed"),
    ("ls ..", "outside the allowed"),
    ("cat sub/../../outside/canary.txt", "outside the allowed"),
    ("head -n 1 ./../outside/canary.txt", "outside the allowed"),
    ("cat /etc/passwd", "outside the allowed"),
    ("ls /", "outside the allowed"),
    ("find / -name canary.txt", "outside the allowed"),
    (f"cat {OUT}/canary.txt", "outside the allowed"),
    ("wc -l /proc/self/environ", "outside the allowed"),
    # symlinks out of the root, with and without a slash, and recursion that follows them
    ("cat link_file", "outside the allowed"),
    ("ls link_out/", "outside the allowed"),
    ("cat link_out/canary.txt", "outside the allowed"),
    ("grep -r canary link_out", "outside the allowed"),
    ("find -L . -name canary.txt", "'-L'"),
    ("grep -R canary .", "'-R'"),
    ("grep -rRn canary .", "'-R'"),
    ("grep --dereference-recursive canary .", "--dereference-recursive"),
    ("du -L .", "'-L'"),
    ("ls -lL link_in", "'-L'"),
    # option injection: run programs, write or delete files, read file names from files
    ("find . -exec rm {} ';'", "'-exec'"),
    ("find . -execdir rm {} +", "'-execdir'"),
    ("find . -ok rm {} ';'", "'-ok'"),
    ("find . -delete", "'-delete'"),
    ("find . -fprint out.txt", "'-fprint'"),
    ("find . -fprintf out.txt %p", "'-fprintf'"),
    ("find . -fls out.txt", "'-fls'"),
    ("sort -o out.txt a.txt", "'-o'"),
    ("sort -uo out.txt a.txt", "'-o'"),
    ("sort --output=out.txt a.txt", "'--output'"),
    ("sort --compress-program=sh a.txt", "--compress-program"),
    ("du --files0-from=list.txt", "--files0-from"),
    # GNU long-option abbreviations mean the same as the full option
    ("sort --out=out.txt a.txt", "'--out'"),
    ("sort --compress=sh a.txt", "'--compress'"),
    ("du --files0=list.txt", "'--files0'"),
    ("grep --dereference-rec canary .", "'--dereference-rec'"),
    ("date --se=2001-01-01", "'--se'"),
    ("find -files0-from list.txt -delete", "'-files0-from'"),
    ("wc --files0-from=list.txt", "--files0-from"),
    ("date -s 2001-01-01", "'-s'"),
    ("grep -f/etc/passwd a.txt", "outside the allowed"),
    ("grep --file=/etc/passwd a.txt", "outside the allowed"),
    (f"grep --file={OUT}/canary.txt a.txt", "outside the allowed"),
    # shell metacharacters: there is no shell, and the model is told so
    ("ls; rm a.txt", "';'"),
    ("cat a.txt | sh", "'|'"),
    ("ls && rm a.txt", "'&'"),
    ("ls || rm a.txt", "'|'"),
    ("ls & rm a.txt", "'&'"),
    ("ls `rm a.txt`", "substitution"),
    ("ls $(rm a.txt)", "substitution"),
    ('cat "$(rm a.txt)"', "substitution"),
    ("cat ${HOME}/x", "substitution"),
    ("cat $HOME", "variables"),
    ("cat a.txt > b.txt", "'>'"),
    ("cat < a.txt", "'<'"),
    ("ls\nrm a.txt", "newline"),
    ("ls\rrm a.txt", "newline"),
    # commands that are not on the allow-list, also by path
    ("rm a.txt", "not allowed"),
    ("sh -c 'rm a.txt'", "not allowed"),
    ("python3 -c 'import os'", "not allowed"),
    ("env rm a.txt", "not allowed"),
    ("xargs rm", "not allowed"),
    ("/bin/rm a.txt", "not allowed"),
    ("/bin/ls", "not allowed"),
    ("tee out.txt", "not allowed"),
    # arguments too long or too many; an unclosed quote; nothing at all
    ("ls " + "a" * MAX_COMMAND_CHARS, "limit"),
    ("ls" + " a" * MAX_ARGUMENTS, "limit"),
    ("ls 'a.txt", "cannot split"),
    ("   ", "empty command"),
]


def test_there_are_at_least_30_escape_attempts() -> None:
    assert len(REFUSED) >= 30


@pytest.mark.parametrize(("command", "reason"), REFUSED, ids=[c[:40] for c, _ in REFUSED])
def test_escape_attempt_is_refused_and_nothing_changes(
    tree: Path, command: str, reason: str
) -> None:
    shell = make_shell(tree)
    before = snapshot(tree)
    command = command.replace(OUT, str(tree / "outside"))
    with pytest.raises(ToolDeniedError) as info:
        run(shell, command)
    assert reason in str(info.value)
    assert snapshot(tree) == before
    assert (tree / "outside" / "canary.txt").read_bytes() == CANARY


@pytest.mark.parametrize(
    ("command", "ran", "note"),
    [
        # fresh70: "cat the todo list" came as ls /home/user/todo.txt, refused.
        ("cat /home/user/a.txt", "alpha", "/home/user/a.txt is outside the allowed folders"),
        ("cat /var/log/b.txt", "beta", "read sub/b.txt here"),  # the one b.txt
        ("head -n 1 /var/log/b.log", "beta", "read sub/b.txt here"),  # the one b.*
    ],
)
def test_a_made_up_path_outside_is_the_one_file_of_its_name_inside(
    tree: Path, command: str, ran: str, note: str
) -> None:
    shell = make_shell(tree)
    assert shell.answer is not None
    answer = shell.answer(run(shell, command))
    assert answer.startswith(ran) and note in answer


@pytest.mark.parametrize(
    "command",
    [
        "cat /etc/passwd",  # no passwd inside
        "cat {outside}/canary.txt",
        "ls /",
        "cat /home/user/a.txt /etc/passwd",  # one stays outside
        "cat /tmp/*.txt",
    ],
)
def test_a_path_outside_with_no_one_file_of_its_name_inside_stays_refused(
    tree: Path, command: str
) -> None:
    with pytest.raises(ToolDeniedError, match="outside the allowed"):
        run(make_shell(tree), command.replace(OUT, str(tree / "outside")))


def test_huge_output_is_capped_and_says_so(tree: Path) -> None:
    shell = make_shell(tree, max_output_bytes=1024)
    before = snapshot(tree)
    result = run(shell, "cat big.txt")
    assert len(result["output"]) == 1024
    assert "1024 bytes" in result["truncated"]
    assert result["exit_code"] is None  # stopped, not finished
    assert snapshot(tree) == before


def test_a_hanging_command_is_stopped_at_the_timeout(tree: Path) -> None:
    shell = make_shell(tree, timeout_s=0.5)
    before = snapshot(tree)
    started = time.monotonic()
    with pytest.raises(ToolError, match=r"stopped after 0\.5 s"):
        run(shell, "tail -f a.txt")
    assert time.monotonic() - started < 3
    assert snapshot(tree) == before


def test_stdin_is_closed_so_grep_without_files_ends_at_once(tree: Path) -> None:
    shell = make_shell(tree, timeout_s=5)
    started = time.monotonic()
    assert run(shell, "grep alpha") == {"exit_code": 1, "output": ""}
    assert time.monotonic() - started < 3


def test_allowed_commands_run_in_the_first_root(tree: Path) -> None:
    shell = make_shell(tree)
    assert run(shell, "cat sub/b.txt") == {"exit_code": 0, "output": "beta\n"}
    listing = run(shell, "ls")["output"].split()
    assert {"a.txt", "sub", "big.txt", "link_out"} <= set(listing)
    assert run(shell, "ls link_in")["output"] == "b.txt\n"  # a symlink that stays inside
    found = run(shell, "grep -rn beta .")
    assert found["output"] == "./sub/b.txt:1:beta\n"
    assert run(shell, "find . -name b.txt")["output"].splitlines() == ["./sub/b.txt"]


def test_recursive_grep_does_not_follow_links_out(tree: Path) -> None:
    result = make_shell(tree).func(command="grep -r canary .")
    assert "canary" not in result["output"]
    assert result["exit_code"] == 1


def test_metacharacters_in_single_quotes_are_literal_text(tree: Path) -> None:
    shell = make_shell(tree)
    before = snapshot(tree)
    assert run(shell, "grep 'semi;colon' a.txt")["output"] == "semi;colon\n"
    assert run(shell, "grep -c '$(rm a.txt)' a.txt")["output"] == "0\n"
    assert snapshot(tree) == before


def test_failing_command_reports_its_exit_code_and_message(tree: Path) -> None:
    # A missing file, or a folder of one file: tests/plugins/test_shell_hints
    result = run(make_shell(tree), "cat .")
    assert result["exit_code"] == 1
    assert "cat: .: Is a directory" in result["output"]


def test_environment_is_minimal(tree: Path) -> None:
    shell = make_shell(tree, allow=["printenv"])
    lines = sorted(run(shell, "printenv")["output"].splitlines())
    assert lines == ["LANG=C.UTF-8", "PATH=/usr/bin:/bin"]


def test_configured_allow_list_replaces_the_default(tree: Path) -> None:
    shell = make_shell(tree, allow=["wc"])
    assert run(shell, "wc -l a.txt")["output"] == "3 a.txt\n"
    with pytest.raises(ToolDeniedError, match="allowed commands: wc"):
        run(shell, "ls")


def test_a_second_root_is_reachable_by_absolute_path(tree: Path) -> None:
    opts = ShellOptions(roots=[Path("root"), Path("outside")])
    shell = build_shell_tool(opts, base=tree)
    assert run(shell, f"cat {tree / 'outside' / 'canary.txt'}")["output"] == CANARY.decode()


def test_wrap_handler_quotes_every_argument_into_the_template() -> None:
    built = wrap_command("find {arguments} -type f", [".", "-name", "*.py", "a b; rm x"])
    assert built == {"command": "find . -name '*.py' 'a b; rm x' -type f"}
    assert wrap_command("df -h", ["."]) == {"command": "df -h ."}


def test_an_option_the_template_gives_is_not_given_twice(tree: Path) -> None:
    # "and memory?" came as free with ["-m"]: "free -m -m" fails with "Multiple unit
    # options don't make sense".
    assert wrap_command("free -m {arguments}", ["-m"]) == {"command": "free -m"}
    assert wrap_command("ls -lA {arguments}", ["-l", "logs"]) == {"command": "ls -lA -l logs"}
    assert wrap_command("grep {arguments}", ["-i", "-i", "milk"])["command"] == "grep -i -i milk"
    result = run(make_shell(tree), wrap_command("free -m {arguments}", ["-m"])["command"])
    assert result["exit_code"] == 0 and "Mem" in result["output"]


def test_wrapped_semicolon_stays_an_argument_and_find_exec_is_still_refused(tree: Path) -> None:
    shell = make_shell(tree)
    command = wrap_command("find {arguments} -type f", [".", "-exec", "rm", "{}", ";"])["command"]
    before = snapshot(tree)
    with pytest.raises(ToolDeniedError, match="'-exec'"):
        run(shell, command)
    assert snapshot(tree) == before


def test_refusals_reach_the_model_as_failed_results(tree: Path) -> None:
    executor = ToolExecutor(ToolRegistry([make_shell(tree)]))
    result = asyncio.run(executor.execute(ToolCall("shell", {"command": "rm a.txt"})))
    assert not result.ok
    assert result.error is not None and "'rm' is not allowed" in result.error
    assert (tree / "root" / "a.txt").exists()


def test_plugin_hook_reads_options_and_rejects_a_missing_root(tree: Path) -> None:
    registered: list[Tool] = []
    context = PluginContext(
        name="shell",
        options={"roots": ["root"], "timeout_s": 2},
        config_path=tree / "edgeagent.toml",
    )
    register_tools(register=registered.append, context=context)
    assert [t.name for t in registered] == ["shell"]
    assert run(registered[0], "cat sub/b.txt")["output"] == "beta\n"
    bad = PluginContext(name="shell", options={"roots": ["nope"]}, config_path=tree / "x.toml")
    with pytest.raises(ConfigError, match="nope"):
        register_tools(register=registered.append, context=bad)
    with pytest.raises(ConfigError, match=r"plugins\.shell\.allow"):
        register_tools(
            register=registered.append,
            context=PluginContext(name="shell", options={"allow": ["/bin/rm"]}),
        )


def test_answer_is_the_commands_output(tree: Path) -> None:
    shell = make_shell(tree)
    assert shell.answer is not None
    assert shell.answer(run(shell, "cat sub/b.txt")) == "beta"
    assert shell.answer(run(shell, "grep -l nothing-here a.txt")) == "(no output)\n(exit code 1)"
    assert shell.answer(run(shell, "cat .")) == "cat: .: Is a directory\n(exit code 1)"
    assert shell.answer(run(shell, "grep -c nothing-here a.txt")) == "0\n(exit code 1)"


def test_answer_cuts_long_output_and_says_so(tree: Path) -> None:
    shell = make_shell(tree)
    assert shell.answer is not None
    text = shell.answer(run(shell, "head -c 5000 big.txt"))
    assert text == "x" * 600 + " …\n(output cut at 600 of 5000 characters)"
    capped = shell.answer(run(make_shell(tree, max_output_bytes=1024), "cat big.txt"))
    assert capped.endswith(
        "(output cut at 600 of 1024 characters; the command was stopped at the output limit)"
    )


@pytest.mark.parametrize(
    ("command", "request_", "read"),
    [
        # fresh34: refused as outside the allowed directories.
        (
            "wc -l /logs/app.log",
            "fine, then how many lines are in logs/app.log?",
            "wc -l logs/app.log",
        ),
        ("cat /notes.txt", "what does notes.txt say", "cat notes.txt"),
        ("wc /logs/app.log", "how many lines in logs/app.log", "wc -l logs/app.log"),
        ("cat /etc/passwd", "show me etc/passwd and /etc/passwd", None),  # said rooted too
        ("cat /etc/hostname", "what's this machine called?", None),  # never said
        ("ls /", "list everything in /", None),
    ],
)
def test_a_path_the_request_says_relative_is_relative(
    tree: Path, command: str, request_: str, read: str | None
) -> None:
    assert reread_command(tree, command, request_) == read


@pytest.mark.parametrize(
    ("command", "request_", "read"),
    [
        ("wc notes.txt", "how many lines are in notes.txt?", "wc -l notes.txt"),
        ("wc data.csv", "wie viele Zeilen hat data.csv", "wc -l data.csv"),
        ("wc notes.txt", "how many words are in my notes", "wc -w notes.txt"),
        ("wc notes.txt", "count the characters", "wc -m notes.txt"),
        ("wc -l notes.txt", "how many words", None),  # the model's own option stands
        ("wc notes.txt", "how many lines and words", None),
        ("cat notes.txt", "how many lines are in notes.txt?", None),
        ("wc 'notes.txt", "how many lines", None),  # the policy names the bad quote
        ("wc logs/app.log", "logs/app.log 有多少行？", "wc -l logs/app.log"),
        ("wc logs/app.log", "app.log は何行ありますか", "wc -l logs/app.log"),
        ("wc logs/app.log", "app.log 몇 줄이야?", "wc -l logs/app.log"),
        ("wc logs/app.log", "Сколько строк в app.log?", "wc -l logs/app.log"),
        ("wc logs/app.log", "hvor mange linjer har loggen?", "wc -l logs/app.log"),
    ],
)
def test_a_count_the_request_asks_for_is_the_one_wc_counts(
    tree: Path, command: str, request_: str, read: str | None
) -> None:
    assert reread_command(tree, command, request_) == read


def reread_wrapper(
    tree: Path, name: str, arguments: list[object], request: str
) -> list[str] | None:
    """The shipped ``.tool`` wrapper ``name``'s argument list for ``request`` read again,
    or ``None``: as written."""
    registry = ToolRegistry([make_shell(tree)])
    assert load_wrapped_tools(ROOT / "config" / "tools.d", registry) == []
    reread = registry.get(name).reread
    assert reread is not None
    again = reread({"arguments": arguments}, request)
    return None if again is None else list(again["arguments"])


def reread_command(tree: Path, command: str, request: str) -> str | None:
    """The ``shell`` tool's command for ``request`` read again, or ``None``: as written."""
    shell = make_shell(tree)
    assert shell.reread is not None
    again = shell.reread({"command": command}, request)
    return None if again is None else str(again["command"])


@pytest.mark.parametrize(
    ("request_", "asks"),
    [
        ("how many lines are in notes.txt?", True),
        ("count the words in my notes", True),
        ("Combien de lignes y a-t-il dans le journal ?", True),
        ("¿Cuántas filas tiene data.csv?", True),
        ("how big is the log", True),
        ("what's on my todo list?", False),
        ("show me what my notes say", False),
        ("was steht in todo.md?", False),
        ("logs/app.log 有多少行？", True),
        ("Сколько слов в notes.txt?", True),
        ("todo.md 里有什么？", False),
        ("Что написано в notes.txt?", False),
    ],
)
def test_a_wc_wrapper_answers_only_a_request_for_a_count(
    tree: Path, request_: str, asks: bool
) -> None:
    registry = ToolRegistry([make_shell(tree)])
    assert load_wrapped_tools(ROOT / "config" / "tools.d", registry) == []
    wc, cat = registry.get("wc"), registry.get("cat")
    assert wc.asked_in is not None and wc.asked_in(request_) is asks
    assert cat.asked_in is None  # its topic question decides


@pytest.mark.parametrize(
    ("arguments", "request_", "read"),
    [
        (["./todo.md", 1], "what's in it", ["./todo.md"]),  # fresh59
        (["-n", "5", "notes.txt"], "show me my notes", ["notes.txt"]),
        (["-n5", "notes.txt"], "show me my notes", ["notes.txt"]),
        (["-n", "5", "notes.txt"], "first 5 lines of my notes", None),
        (["-n", "3", "notes.txt"], "the first three lines of my notes", None),
        (["-n", "1", "notes.txt"], "what's the first line of my notes?", None),
        (["data.csv", 1], "what are the column names in data.csv?", None),  # its first line
        (["-n", "3", "notes.txt"], "notes.txt 的前几行", None),
        (["notes.txt"], "show me my notes", None),
    ],
)
def test_a_number_of_lines_nobody_asked_for_is_not_given_to_head(
    tree: Path, arguments: list[object], request_: str, read: list[str] | None
) -> None:
    assert reread_wrapper(tree, "head", arguments, request_) == read


def test_the_shell_tool_gives_head_no_number_of_lines_nobody_asked_for(tree: Path) -> None:
    assert reread_command(tree, "head -n 5 notes.txt", "show me my notes") == "head notes.txt"
    assert reread_command(tree, "tail 3 notes.txt", "what's in notes") == "tail notes.txt"
    assert reread_command(tree, "head -n 5 notes.txt", "the first 5 lines of my notes") is None


@pytest.mark.parametrize(
    ("arguments", "request_", "read"),
    [
        # fresh68: the pattern "solder.*todo.md", searched in nothing.
        (["solder.*todo.md"], "does todo.md mention solder anywhere", ["solder", "todo.md"]),
        (["milk in todo.md"], "is milk in todo.md?", ["milk", "todo.md"]),
        (["solder", "todo.md"], "does todo.md mention solder", None),  # apart already
        (["eggs.*todo.md"], "does todo.md mention solder", None),  # a word nobody said
        (["todo.md"], "grep todo.md", None),
    ],
)
def test_a_word_and_a_file_written_as_one_pattern_are_searched_apart(
    tree: Path, arguments: list[str], request_: str, read: list[str] | None
) -> None:
    assert reread_wrapper(tree, "grep", list(arguments), request_) == read


@pytest.mark.parametrize(
    ("arguments", "request_", "read"),
    [
        # fresh74: "todo.md" searched in "|", "grep" and "milk".
        (
            ["todo.md", "|", "grep", "milk"],
            "how many lines in todo.md mention milk",
            ["milk", "todo.md"],
        ),
        (
            ["cat", "notes.txt", "|", "grep", "-i", "servo", "|", "wc", "-l"],
            "does notes.txt mention the servo",
            ["-i", "servo", "notes.txt"],
        ),
        (["todo.md", "|", "grep", "eggs"], "does todo.md mention milk", None),  # unsaid
        (["todo.md", "|", "grep", "milk"], "does my list mention milk", None),  # no file named
    ],
)
def test_a_grep_written_as_a_pipeline_searches_the_word_said_in_the_file_named(
    tree: Path, arguments: list[str], request_: str, read: list[str] | None
) -> None:
    assert reread_wrapper(tree, "grep", list(arguments), request_) == read


@pytest.mark.parametrize(
    ("arguments", "request_", "read"),
    [
        (["LED", "notes"], "and 'servo'?", ["servo", "notes"]),  # fresh59, a follow-up
        (["milk", "todo.md"], "what about solder?", ["solder", "todo.md"]),
        (["milk", "todo.md"], "und “header”?", ["header", "todo.md"]),
        (["solder", "todo.md"], "search the todo list for 'solder'", None),  # as said
        (["milk", "todo.md"], "does my todo list say milk?", None),  # no word named
        (["milk", "todo.md"], "'milk' or 'eggs'?", None),  # two
        (["milk", "todo.md"], "and then?", None),  # said: the pattern is not replaced
    ],
)
def test_the_one_word_a_follow_up_names_is_what_grep_searches_for(
    tree: Path, arguments: list[str], request_: str, read: list[str] | None
) -> None:
    assert reread_wrapper(tree, "grep", list(arguments), request_) == read
    shell = reread_command(tree, "grep -i " + " ".join(arguments), request_)
    assert shell == (None if read is None else "grep -i " + " ".join(read))
