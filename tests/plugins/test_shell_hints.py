"""A command that names a missing file fails with the names that are there, so the model
can call it again right; a command that did its job (matches, a listing, no match)
stays a result."""

from __future__ import annotations

from pathlib import Path

import pytest
from edgeagent_shell import ShellOptions, build_shell_tool
from edgeagent_shell.hints import files_hint, missing_paths

from edgeagent.errors import ToolError
from edgeagent.tools import Tool


@pytest.fixture
def shell(tmp_path: Path) -> Tool:
    root = tmp_path / "root"
    (root / "logs").mkdir(parents=True)
    (root / "logs" / "app.log").write_text("boot ok\nservo ok\n")
    (root / "notes.txt").write_text("buy a new servo\n")
    (root / "todo.md").write_text("- milk\n- eggs\n")
    (root / ".secret").write_text("hidden\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "app.log").write_text("not yours\n")
    (root / "link_out").symlink_to(outside, target_is_directory=True)
    return build_shell_tool(ShellOptions(roots=[Path("root")]), base=tmp_path)


def test_the_only_file_of_a_guessed_name_is_read_and_the_answer_says_so(shell: Tool) -> None:
    result = shell.func(command="cat app.log")
    assert result["output"] == "boot ok\nservo ok\n"
    assert shell.answer is not None
    assert shell.answer(result) == "boot ok\nservo ok\n(app.log is logs/app.log)"


@pytest.mark.parametrize(
    ("command", "output", "note"),
    [
        # By its stem: the only file of that name with an extension.
        ("cat notes", "buy a new servo\n", "notes is notes.txt"),
        ("head -n 1 TODO", "- milk\n", "TODO is todo.md"),
        ("tail -n 1 app", "servo ok\n", "app is logs/app.log"),
        # By its type ("show me the last line of the log": "log" or "log.txt").
        ("tail -n 1 log", "servo ok\n", "log is logs/app.log"),
        ("wc -l log.txt", "2 logs/app.log\n", "log.txt is logs/app.log"),
        ("cat md", "- milk\n- eggs\n", "md is todo.md"),
    ],
)
def test_a_file_named_by_its_stem_or_its_type_is_the_only_such_file(
    shell: Tool, command: str, output: str, note: str
) -> None:
    result = shell.func(command=command)
    assert result["output"] == output
    assert shell.answer is not None
    assert shell.answer(result).endswith(f"({note})")


def test_a_type_two_files_share_is_not_guessed(shell: Tool, tmp_path: Path) -> None:
    (tmp_path / "root" / "logs" / "boot.log").write_text("booted\n")
    with pytest.raises(ToolError) as caught:
        shell.func(command="tail -n 1 log")
    assert "No such file or directory" in str(caught.value)


def test_a_type_name_that_is_also_a_stem_reads_the_stem(shell: Tool, tmp_path: Path) -> None:
    (tmp_path / "root" / "log.md").write_text("# changelog\n")
    result = shell.func(command="cat log")
    assert result["output"] == "# changelog\n"  # log.md, not logs/app.log


def test_a_stem_two_files_share_fails_naming_both(shell: Tool, tmp_path: Path) -> None:
    (tmp_path / "root" / "notes.md").write_text("other notes\n")
    with pytest.raises(ToolError) as caught:
        shell.func(command="cat notes")
    assert "notes.txt" in str(caught.value) and "notes.md" in str(caught.value)


@pytest.mark.parametrize(
    ("command", "note"),
    [
        # The model guesses the extension, and spells the stem as people do.
        ("cat todo.txt", "todo.txt is todo.md"),
        ("cat to-do.txt", "to-do.txt is todo.md"),
        ("cat To_Do", "To_Do is todo.md"),
    ],
)
def test_a_stem_spelled_loosely_or_with_a_guessed_extension_is_the_only_such_file(
    shell: Tool, command: str, note: str
) -> None:
    result = shell.func(command=command)
    assert result["output"] == "- milk\n- eggs\n"
    assert shell.answer is not None
    assert shell.answer(result).endswith(f"({note})")


def test_a_guessed_extension_of_a_stem_two_files_share_is_not_guessed(
    shell: Tool, tmp_path: Path
) -> None:
    (tmp_path / "root" / "todo.txt.bak").write_text("old\n")
    (tmp_path / "root" / "todo.org").write_text("* milk\n")
    with pytest.raises(ToolError) as caught:
        shell.func(command="cat to-do.txt")
    assert "No such file or directory" in str(caught.value)


def test_a_name_two_files_share_fails_naming_both(shell: Tool, tmp_path: Path) -> None:
    (tmp_path / "root" / "old").mkdir()
    (tmp_path / "root" / "old" / "app.log").write_text("old\n")
    with pytest.raises(ToolError) as caught:
        shell.func(command="tail -n 1 app.log")
    message = str(caught.value)
    assert "tail: cannot open 'app.log' for reading: No such file or directory" in message
    assert "Files with a similar name: logs/app.log, old/app.log." in message
    assert "Call it again with a path that exists" in message  # what to do next


def test_a_made_up_file_fails_listing_the_files(shell: Tool) -> None:
    with pytest.raises(ToolError) as caught:
        shell.func(command="head -n 3 shopping")
    assert "Files here: notes.txt, todo.md, logs/app.log." in str(caught.value)


@pytest.mark.parametrize("command", ["tail -n 3", "tail 3", "head", "wc -l", "cat"])
def test_a_file_reader_given_no_file_fails_naming_the_files(shell: Tool, command: str) -> None:
    # It would read its empty input and answer "(no output)".
    with pytest.raises(ToolError) as caught:
        shell.func(command=command)
    message = str(caught.value)
    assert message.startswith(f"{command.split()[0]} needs the file to read and was given none")
    assert "Files here: notes.txt, todo.md, logs/app.log." in message
    assert "Call it again with the file" in message


@pytest.mark.parametrize(
    ("command", "output", "mended"),
    [
        ("grep -rnI todo.md milk", "1:- milk\n", "searched todo.md for 'milk'"),
        # "grep for servo in the logs folder"
        ("grep -rnI logs servo", "logs/app.log:2:servo ok\n", "searched logs for 'servo'"),
        # "does my todo file mention milk?": a file named loosely
        ("grep -rnI todo milk", "1:- milk\n", "searched todo for 'milk'; todo is todo.md"),
    ],
)
def test_grep_with_the_file_or_folder_before_the_pattern_searches_it(
    shell: Tool, command: str, output: str, mended: str
) -> None:
    result = shell.func(command=command)
    assert result["output"] == output
    assert result["mended"] == mended


def test_grep_for_a_word_that_names_a_file_in_a_made_up_file_searches_every_file(
    shell: Tool,
) -> None:
    result = shell.func(command="grep -rnI notes file.txt")  # "which file mentions notes?"
    assert result["mended"] == "no file.txt here; searched every file"


def test_grep_for_a_word_that_names_a_file_in_a_missing_file_is_not_swapped(
    shell: Tool,
) -> None:
    # Both could be files: "notes" names notes.txt, and "todo" todo.md; as written.
    result = shell.func(command="grep -rnI notes todo")
    assert result["mended"] == "todo is todo.md"


@pytest.mark.parametrize("command", ["head todo.md 1", "head 1 todo.md"])
def test_a_number_given_to_head_as_a_file_is_the_line_count(shell: Tool, command: str) -> None:
    result = shell.func(command=command)  # {"file": "todo.md", "lines": 1}
    assert result["output"] == "- milk\n"
    assert result["mended"] == "1 read as the number of lines"


def test_a_line_count_and_a_guessed_name_are_both_mended(shell: Tool) -> None:
    result = shell.func(command="tail app.log 1")
    assert result["output"] == "servo ok\n"
    assert result["mended"] == "1 read as the number of lines; app.log is logs/app.log"


@pytest.mark.parametrize(
    ("command", "output", "mended"),
    [
        # "fine, just show me the last 3 lines of the log then" as ["logs/", "3"]
        ("tail logs/ 3", "boot ok\nservo ok\n", "logs/ is a folder: read its one file, "
         "logs/app.log; 3 read as the number of lines"),
        ("wc -l logs", "2 logs/app.log\n", "logs is a folder: read its one file, logs/app.log"),
    ],
)  # fmt: skip
def test_a_folder_of_one_file_is_read_as_that_file(
    shell: Tool, command: str, output: str, mended: str
) -> None:
    result = shell.func(command=command)
    assert result["output"] == output and result["mended"] == mended


def test_a_folder_of_more_files_is_no_file(shell: Tool, tmp_path: Path) -> None:
    (tmp_path / "root" / "logs" / "old.log").write_text("old\n")
    result = shell.func(command="tail -n 1 logs")
    assert result["exit_code"] != 0 and "Is a directory" in result["output"]
    assert "mended" not in result


def test_grep_of_a_made_up_file_searches_every_file(shell: Tool) -> None:
    result = shell.func(command="grep -rnI servo file.txt")  # "which file mentions servo?"
    assert sorted(result["output"].splitlines()) == [
        "logs/app.log:2:servo ok",
        "notes.txt:1:buy a new servo",
    ]
    assert result["mended"] == "no file.txt here; searched every file"


def test_a_mended_command_is_checked_again(shell: Tool) -> None:
    # The mended path is still inside the roots; a link out of them is never a candidate.
    with pytest.raises(ToolError) as caught:
        shell.func(command="cat link_out/app.log/x")
    assert "outside the allowed" in str(caught.value) or "No such file" in str(caught.value)


def test_the_hint_names_nothing_hidden_or_outside_the_roots(shell: Tool) -> None:
    with pytest.raises(ToolError) as caught:
        shell.func(command="head -n 1 secret")
    message = str(caught.value)
    assert ".secret" not in message and "outside" not in message
    assert "link_out" not in message  # a link out of the root is never walked


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("grep -rnI cheese .", ""),  # no match: exit 1 and nothing to correct
        ("grep -nI servo notes.txt nothere.txt", "buy a new servo"),  # matches and a miss
    ],
)
def test_a_command_that_did_its_job_stays_a_result(shell: Tool, command: str, output: str) -> None:
    result = shell.func(command=command)
    assert result["exit_code"] != 0
    assert output in result["output"]


@pytest.mark.parametrize(
    ("output", "paths"),
    [
        ("cat: app.log: No such file or directory\n", ["app.log"]),
        ("ls: cannot access 'x y': No such file or directory\n", ["x y"]),
        ("head: cannot open 'a.txt' for reading: No such file or directory", ["a.txt"]),
        ("find: ‘logs2’: No such file or directory", ["logs2"]),
        ("wc: a: No such file or directory\nwc: b: No such file or directory", ["a", "b"]),
        ("notes.txt:1:servo\ngrep: b: No such file or directory", []),
        ("", []),
    ],
)
def test_missing_paths_reads_every_commands_message(output: str, paths: list[str]) -> None:
    assert missing_paths(output) == paths


def test_an_empty_root_gives_no_hint(tmp_path: Path) -> None:
    assert files_hint(["a.txt"], roots=[tmp_path], cwd=tmp_path) == ""


@pytest.mark.parametrize(
    ("command", "output", "stem"),
    [
        # "which file talks about servos?": the notes say "servo".
        ("grep -rniI servos", "notes.txt:1:buy a new servo", "servo"),
        ("grep -i booting logs/app.log", "boot ok", "boot"),
    ],
)
def test_a_search_for_a_word_form_that_finds_nothing_searches_its_stem(
    shell: Tool, command: str, output: str, stem: str
) -> None:
    result = shell.func(command=command)
    assert result["exit_code"] == 0
    assert output in result["output"]
    assert shell.answer is not None
    assert shell.answer(result).endswith(
        f"(nothing matched {command.split()[2]!r}; searched for its stem {stem!r})"
    )


@pytest.mark.parametrize(
    "command",
    [
        "grep -rniI servo",  # a match: nothing to mend
        "grep -rniI eggs.*milk",  # a regular expression is left as written
        "grep -rniI kettle",  # its own stem: no match stays no match
        "grep -rniI kettles",  # the stem finds nothing either
        "grep -e booting -rniI .",  # -e: the pattern is the option's value
    ],
)
def test_a_search_is_only_widened_to_a_stem_that_finds_something(shell: Tool, command: str) -> None:
    result = shell.func(command=command)
    assert "mended" not in result


@pytest.mark.parametrize("command", ["ls -lA todo.md", "ls todo"])
def test_ls_of_one_file_shows_its_first_lines_after_the_listing(shell: Tool, command: str) -> None:
    # "what's on todo.md" came as ls todo.md: the listing line alone answers nothing.
    result = shell.func(command=command)
    listing, *text = result["output"].splitlines()
    assert listing.endswith("todo.md")
    assert text == ["- milk", "- eggs"]
    assert result["mended"].endswith("todo.md is a file: its first lines follow the listing")


@pytest.mark.parametrize("command", ["ls logs", "ls -lA notes.txt todo.md", "ls"])
def test_ls_of_a_folder_or_of_several_paths_is_the_listing_alone(shell: Tool, command: str) -> None:
    result = shell.func(command=command)
    assert "- milk" not in result["output"]
    assert "buy a new servo" not in result["output"]
    assert "mended" not in result


def test_ls_of_one_file_shows_no_text_where_head_is_not_allowed(tmp_path: Path) -> None:
    (tmp_path / "todo.md").write_text("- milk\n")
    options = ShellOptions(roots=[Path(".")], allow=["ls"])
    result = build_shell_tool(options, base=tmp_path).func(command="ls todo.md")
    assert result["output"].splitlines()[-1].endswith("todo.md")
    assert "- milk" not in result["output"]
