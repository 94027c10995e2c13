"""``.tool`` files: aliases and full wrapped tools, bad files skipped with their path."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Annotated, Any

import pytest
from edgeagent_shell import ShellOptions, build_shell_tool
from pydantic import Field

from edgeagent.tools import Tool, make_tool, tool, tools_from
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.wrapped import load_wrapped_tools

REPO = Path(__file__).resolve().parents[2]


def say_wrap(command_template: str, arguments: list[str]) -> dict[str, Any]:
    """Fill the template; one repetition per argument (so 4 arguments break ``times``)."""
    return {
        "text": command_template.replace("{arguments}", " ".join(arguments)),
        "times": max(len(arguments), 1),
    }


def say_answer(result: str) -> str:
    return f"I said {result!r}."


class Parrot:
    """A wrappable test tool that records what it was asked to say."""

    def __init__(self) -> None:
        self.said: list[str] = []

    @tool(name="say", kind="act", timeout_s=3.0, wrap=say_wrap, answer=say_answer)
    def say(
        self,
        text: Annotated[str, Field(max_length=40)],
        times: Annotated[int, Field(ge=1, le=3)] = 1,
    ) -> str:
        """Say something."""
        self.said.append(text * times)
        return text * times


@tool
def plain(x: int) -> int:
    """Not wrappable."""
    return x


@pytest.fixture
def parrot() -> Parrot:
    return Parrot()


@pytest.fixture
def registry(parrot: Parrot) -> ToolRegistry:
    return ToolRegistry([*tools_from(parrot, plugin="test"), make_tool(plain, plugin="test")])


def write(directory: Path, name: str, text: str) -> Path:
    directory.mkdir(exist_ok=True)
    path = directory / name
    path.write_text(text)
    return path


FULL = """Greet someone by name.
Politely.

@title Greeter
@name greet
@wrapped say
@command hello {arguments}!
@param arguments {array<string>} [required] names, e.g. ["Ada"]
"""


def call(registry: ToolRegistry, name: str, arguments: Any) -> Any:
    result = asyncio.run(ToolExecutor(registry).execute(ToolCall(name, arguments)))
    return result.to_dict()


def test_full_form_builds_a_tool_that_calls_the_wrapped_one(
    tmp_path: Path, registry: ToolRegistry, parrot: Parrot
) -> None:
    write(tmp_path, "greet.tool", FULL)
    assert load_wrapped_tools(tmp_path, registry) == []
    greet = registry.get("greet")
    assert greet.description == "Greet someone by name. Politely."
    assert greet.title == "Greeter"
    assert greet.parameters == {
        "properties": {
            "arguments": {
                "description": 'names, e.g. ["Ada"]',
                "items": {"type": "string"},
                "type": "array",
            }
        },
        "required": ["arguments"],
        "type": "object",
    }
    assert (greet.kind, greet.timeout_s, greet.plugin) == ("act", 3.0, "greet.tool")
    assert not greet.wrappable
    assert call(registry, "greet", {"arguments": ["Ada", "Bob"]}) == {
        "ok": True,
        "result": "hello Ada Bob!hello Ada Bob!",
    }
    assert parrot.said == ["hello Ada Bob!hello Ada Bob!"]


def test_alias_registers_the_same_tool_under_a_new_name(
    tmp_path: Path, registry: ToolRegistry, parrot: Parrot
) -> None:
    write(tmp_path, "speak.tool", "@name speak\n@wrapped say\n")
    assert load_wrapped_tools(tmp_path, registry) == []
    speak, say = registry.get("speak"), registry.get("say")
    assert (speak.parameters, speak.description, speak.func) == (
        say.parameters,
        say.description,
        say.func,
    )
    assert call(registry, "speak", {"text": "hi", "times": 2})["result"] == "hihi"
    assert parrot.said == ["hihi"]


def test_both_forms_keep_the_wrapped_tools_answer(tmp_path: Path, registry: ToolRegistry) -> None:
    write(tmp_path, "greet.tool", FULL)
    write(tmp_path, "speak.tool", "@name speak\n@wrapped say\n")
    assert load_wrapped_tools(tmp_path, registry) == []
    for name in ("greet", "speak"):
        assert registry.get(name).answer is say_answer
    greet = registry.get("greet")
    assert greet.answer is not None
    result = call(registry, "greet", {"arguments": ["Ada"]})["result"]
    assert greet.answer(result) == "I said 'hello Ada!'."


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("@wrapped say\n", "missing @name"),
        ("@name x\n", "missing @wrapped"),
        ("Desc.\n\n@name x\n@wrapped say\n@command go {arguments}\n", "missing @title"),
        ("@title T\n@name x\n@wrapped say\n@command go {arguments}\n", "missing a description"),
        ("Desc.\n\n@title T\n@name x\n@wrapped say\n", "missing @command"),
        ("Desc.\n\n@title T\n@name x\n@wrapped say\n@command go\n", "has no {arguments} token"),
        ("@name my-tool\n@wrapped say\n", "not an identifier"),
        ("@name x\n@wrapped say\n@colour red\n", "expected one of @title"),
        ("@name x\n@name y\n@wrapped say\n", "@name is given twice"),
        ("D.\n\n@title T\n@name x\n@wrapped say\n@command {arguments}\n@param arguments {string} d",
         "expected '@param arguments {array<string>}"),
        ("@name x\n@wrapped nothing\n", "@wrapped 'nothing' is not a loaded tool"),
        ("@name x\n@wrapped plain\n", "'plain' cannot be wrapped"),
        ("D.\n\n@title T\n@name x\n@wrapped plain\n@command {arguments}\n",
         "'plain' cannot be wrapped"),
    ],
)  # fmt: skip
def test_bad_file_is_logged_with_its_path_and_skipped(
    tmp_path: Path,
    registry: ToolRegistry,
    caplog: pytest.LogCaptureFixture,
    text: str,
    problem: str,
) -> None:
    bad = write(tmp_path, "a_bad.tool", text)
    write(tmp_path, "b_good.tool", FULL)
    before = set(registry.names())
    with caplog.at_level(logging.ERROR, logger="edgeagent.tools.wrapped"):
        errors = load_wrapped_tools(tmp_path, registry)
    assert len(errors) == 1
    assert str(bad) in errors[0] and problem in errors[0]
    assert errors[0] in caplog.messages
    assert set(registry.names()) == before | {"greet"}  # the good file still loads


def test_duplicate_names_first_file_wins_with_a_warning(
    tmp_path: Path, registry: ToolRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    write(tmp_path, "1.tool", "@name speak\n@wrapped say\n")
    write(tmp_path, "2.tool", FULL.replace("@name greet", "@name speak"))
    write(tmp_path, "3.tool", FULL.replace("@name greet", "@name plain"))
    with caplog.at_level(logging.WARNING, logger="edgeagent.tools.wrapped"):
        errors = load_wrapped_tools(tmp_path, registry)
    assert len(errors) == 2
    assert "2.tool" in errors[0] and "'speak' is already taken by '1.tool'" in errors[0]
    assert "3.tool" in errors[1] and "'plain' is already taken by 'test'" in errors[1]
    assert [r.levelname for r in caplog.records] == ["WARNING", "WARNING"]
    assert registry.get("speak").parameters == registry.get("say").parameters  # the alias
    assert registry.get("plain").func is plain


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({}, "missing required argument 'arguments'"),
        ({"arguments": ["Ada", {"n": 7}]}, "arguments.1: Input should be a valid string"),
        ({"arguments": ["a", "b", "c", "d"]}, "times must be 1-3, got 4"),
        ({"arguments": ["x" * 40]}, "text: String should have at most 40 characters"),
    ],
)
def test_bad_arguments_are_errors_the_model_can_read(
    tmp_path: Path, registry: ToolRegistry, parrot: Parrot, arguments: Any, error: str
) -> None:
    write(tmp_path, "greet.tool", FULL)
    load_wrapped_tools(tmp_path, registry)
    result = call(registry, "greet", arguments)
    assert result["ok"] is False
    assert error in result["error"]
    assert parrot.said == []


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"arguments": "Ada Lovelace"}, ["Ada", "Lovelace"]),  # a string, split like argv
        ({"name": "Ada"}, ["Ada"]),  # another key than the schema's, as Qwen writes it
        ({"name": "Ada", "times": 2}, ["Ada", "2"]),  # in the order written
        ({"file": "todo.md", "pattern": "milk"}, ["milk", "todo.md"]),  # a pattern first
        ({"path": "logs", "Query": "ok", "n": 1}, ["ok", "logs", "1"]),
        # "what are the column names in data.csv?" (blind prompts): a number in the list.
        ({"arguments": ["data.csv", 1]}, ["data.csv", "1"]),
        # "how many lines does it have?" (the 408's c033.3): an option's bare letter.
        ({"path": "data.csv", "option": "l"}, ["data.csv", "-l"]),
        ({"path": "data.csv", "option": "-l"}, ["data.csv", "-l"]),
    ],
)
def test_what_a_small_model_writes_for_the_list_is_read_as_the_list(
    tmp_path: Path, registry: ToolRegistry, parrot: Parrot, arguments: Any, words: list[str]
) -> None:
    write(tmp_path, "greet.tool", FULL)
    load_wrapped_tools(tmp_path, registry)
    assert call(registry, "greet", arguments)["ok"] is True
    direct = call(registry, "greet", {"arguments": words})
    assert direct["ok"] is True
    assert parrot.said[0] == parrot.said[1]


def test_optional_arguments_default_to_an_empty_list(
    tmp_path: Path, registry: ToolRegistry
) -> None:
    write(tmp_path, "g.tool", FULL.replace("[required] ", ""))
    load_wrapped_tools(tmp_path, registry)
    assert registry.get("greet").parameters["required"] == []
    assert call(registry, "greet", {})["result"] == "hello !"


def test_async_wrappable_tools_stay_async(tmp_path: Path) -> None:
    async def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    base = make_tool(tool(wrap=lambda t, a: {"text": t.replace("{arguments}", ",".join(a))})(shout))
    registry = ToolRegistry([base])
    write(
        tmp_path,
        "loud.tool",
        "Loud.\n\n@title L\n@name loud\n@wrapped shout\n@command <{arguments}>\n",
    )
    assert load_wrapped_tools(tmp_path, registry) == []
    assert registry.get("loud").is_async
    assert call(registry, "loud", {"arguments": ["a", "b"]})["result"] == "<A,B>"


def test_missing_directory_is_not_an_error(tmp_path: Path, registry: ToolRegistry) -> None:
    assert load_wrapped_tools(tmp_path / "absent", registry) == []
    file = write(tmp_path, "x", "")
    assert "not a directory" in load_wrapped_tools(file, registry)[0]


def test_shipped_tool_files_wrap_the_real_shell(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('TODO: more')\n")
    (root / "notes.md").write_text("nothing\n")
    shell: Tool = build_shell_tool(ShellOptions(roots=[root]), base=tmp_path)
    registry = ToolRegistry([shell])
    assert load_wrapped_tools(REPO / "config" / "tools.d", registry) == []
    assert registry.names() == [
        *("cat", "df", "free", "glob", "grep", "head", "ls", "shell", "tail", "uptime", "wc")
    ]

    found = call(registry, "glob", {"arguments": ["*.py"]})
    assert found["result"]["output"] == "./src/main.py\n"
    assert call(registry, "cat", {"file": "notes.md"})["result"]["output"] == "nothing\n"
    hits = call(registry, "grep", {"arguments": ["TODO", "src"]})
    assert hits["result"]["output"] == "src/main.py:1:print('TODO: more')\n"
    listing = call(registry, "ls", {"arguments": []})["result"]["output"]
    assert "notes.md" in listing and "src" in listing
    assert call(registry, "df", {})["result"]["exit_code"] == 0
    assert call(registry, "wc", {"arguments": ["-l", "notes.md"]})["result"]["output"] == (
        "1 notes.md\n"
    )
    first = call(registry, "head", {"arguments": ["-n", "1", "src/main.py"]})
    assert first["result"]["output"] == "print('TODO: more')\n"
    assert call(registry, "tail", {"file": "notes.md"})["result"]["output"] == "nothing\n"
    assert "load average" in call(registry, "uptime", {})["result"]["output"]
    grep = registry.get("grep")
    assert grep.answer is not None and grep.answer(hits["result"]) == (
        "src/main.py:1:print('TODO: more')"
    )

    escape = call(registry, "cat", {"arguments": ["/etc/passwd"]})
    assert escape["ok"] is False and "outside the allowed directories" in escape["error"]
    injected = call(registry, "glob", {"arguments": ["*.py", "-delete"]})
    assert injected["ok"] is False and "'-delete'" in injected["error"]
    assert (root / "src" / "main.py").exists()


def test_a_call_named_after_an_allowed_command_runs_that_command(tmp_path: Path) -> None:
    # Qwen2.5-Coder calls {"name": "ps"} or {"name": "wc", ...} as if they were tools.
    (tmp_path / "notes.txt").write_text("one\ntwo\n")
    executor = ToolExecutor(
        ToolRegistry([build_shell_tool(ShellOptions(roots=[tmp_path]), base=tmp_path)])
    )
    resolved = executor.resolve(ToolCall("wc", {"file": "notes.txt", "flags": "-l"}))
    assert resolved == ToolCall("shell", {"command": "wc notes.txt -l"})
    result = asyncio.run(executor.execute(resolved))
    assert result.ok and "2" in result.result["output"]
    # Not an allowed command: left alone, so it fails as an unknown tool, naming the tools.
    assert executor.resolve(ToolCall("rm", {"arguments": ["notes.txt"]})).name == "rm"
    assert (tmp_path / "notes.txt").exists()


def test_a_wrapper_reads_again_what_its_wrapped_tool_reads_again(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("one two\nthree\n")
    registry = ToolRegistry([build_shell_tool(ShellOptions(roots=[tmp_path]), base=tmp_path)])
    assert load_wrapped_tools(REPO / "config" / "tools.d", registry) == []
    wc = registry.get("wc")
    assert wc.reread is not None
    # "how many lines": wc alone prints lines, words and bytes; the user asked for one.
    counted = wc.reread({"file": "notes.txt"}, "how many lines has my notes file got?")
    assert counted == {"arguments": ["-l", "notes.txt"]}
    assert call(registry, "wc", counted)["result"]["output"] == "2 notes.txt\n"
    assert wc.reread({"arguments": ["notes.txt"]}, "count the words in it") == {
        "arguments": ["-w", "notes.txt"]
    }
    # An option of the model's own, or a request for no one count: as written.
    assert wc.reread({"arguments": ["-c", "notes.txt"]}, "how many lines?") is None
    assert wc.reread({"arguments": ["notes.txt"]}, "lines and words in notes?") is None
    assert wc.reread({"arguments": ["notes.txt"]}, "how big is notes.txt?") is None
    assert wc.reread({"arguments": "'unbalanced"}, "how many lines") is None
    # A path the request says relative, written rooted (fresh34: refused as outside).
    rooted = wc.reread({"arguments": ["-l", "/notes.txt"]}, "how many lines are in notes.txt?")
    assert rooted == {"arguments": ["-l", "notes.txt"]}
    assert call(registry, "wc", rooted)["result"]["output"] == "2 notes.txt\n"
    # A wrapper of a tool that reads nothing again reads nothing again.
    assert registry.get("cat").reread is not None
    assert registry.get("cat").reread({"arguments": ["notes.txt"]}, "how many lines") is None


def test_a_wrapper_keeps_a_call_with_another_tools_argument_names(
    tmp_path: Path, registry: ToolRegistry, parrot: Parrot
) -> None:
    # greet reads any object as its command's arguments; "text" is say's parameter too.
    write(tmp_path, "greet.tool", FULL)
    load_wrapped_tools(tmp_path, registry)
    executor = ToolExecutor(registry)
    assert executor.resolve(ToolCall("greet", {"text": "Ada"})) == ToolCall(
        "greet", {"text": "Ada"}
    )
    assert call(registry, "greet", {"text": "Ada"})["ok"]
    assert parrot.said == ["hello Ada!"]
