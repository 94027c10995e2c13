"""Model outputs and what the call parser must make of them (shared by two test files)."""

from __future__ import annotations

from edgeagent.tools.executor import ToolCall

RED = ToolCall("led", {"color": "red"})
PARIS = ToolCall("weather", {"location": "Paris", "day": 1})
FENCE_CALL = '```json\n{"name": "led", "arguments": {"color": "red"}}\n```'

# (id, model output, expected calls, expected text)
CASES: list[tuple[str, str, list[ToolCall], str]] = [
    # --- Qwen2.5-Coder's usual shape: a ```json fence and no tags
    ("fence", FENCE_CALL, [RED], ""),
    ("fence-text-before", "Sure, turning it red.\n" + FENCE_CALL, [RED], "Sure, turning it red."),
    ("fence-text-after", FENCE_CALL + "\nDone.", [RED], "Done."),
    (
        "fence-both-sides",
        "Okay.\n\n" + FENCE_CALL + "\n\nAnything else?",
        [RED],
        "Okay.\n\nAnything else?",
    ),
    ("fence-no-lang", '```\n{"name": "led", "arguments": {"color": "red"}}\n```', [RED], ""),
    ("fence-unclosed", '```json\n{"name": "led", "arguments": {"color": "red"}}', [RED], ""),
    (
        "fence-two-calls",
        '```json\n{"name": "led", "arguments": {"color": "red"}}\n'
        '{"name": "weather", "arguments": {"location": "Paris", "day": 1}}\n```',
        [RED, PARIS],
        "",
    ),
    (
        "two-fences",
        FENCE_CALL
        + '\n```json\n{"name": "weather", "arguments": {"location": "Paris", "day": 1}}\n```',
        [RED, PARIS],
        "",
    ),
    ("fence-same-line", '```json {"name": "led", "arguments": {"color": "red"}} ```', [RED], ""),
    (
        "fence-with-tags-inside",
        '```xml\n<tool_call>{"name": "led", "arguments": {"color": "red"}}</tool_call>\n```',
        [RED],
        "",
    ),
    # --- the tags we ask for
    ("tags", '<tool_call>{"name": "led", "arguments": {"color": "red"}}</tool_call>', [RED], ""),
    (
        "tags-newlines",
        '<tool_call>\n{"name": "led", "arguments": {"color": "red"}}\n</tool_call>',
        [RED],
        "",
    ),
    (
        "tags-missing-close",
        '<tool_call>\n{"name": "led", "arguments": {"color": "red"}}',
        [RED],
        "",
    ),
    (
        "tags-missing-close-text-after",
        '<tool_call>{"name": "led", "arguments": {"color": "red"}}\nThe LED is now red.',
        [RED],
        "The LED is now red.",
    ),
    (
        "tags-two-calls",
        '<tool_call>{"name": "led", "arguments": {"color": "red"}}</tool_call>\n'
        '<tool_call>{"name": "weather", "arguments": {"location": "Paris", "day": 1}}</tool_call>',
        [RED, PARIS],
        "",
    ),
    (
        "tags-text-around",
        'Let me check. <tool_call>{"name": "weather", "arguments": {"location": "Paris", '
        '"day": 1}}</tool_call> One moment.',
        [PARIS],
        "Let me check. One moment.",
    ),
    (
        "tags-name-only",
        '<tool_call>{"name": "led_state"}</tool_call>',
        [ToolCall("led_state", {})],
        "",
    ),
    (
        "tools-wrapper",
        '<tools>\n{"name": "led", "arguments": {"color": "red"}}\n</tools>',
        [RED],
        "",
    ),
    (
        "tags-fence-inside",
        '<tool_call>\n```json\n{"name": "led", "arguments": {"color": "red"}}\n```\n</tool_call>',
        [RED],
        "",
    ),
    ("stray-close-tag", "Done.</tool_call>", [], "Done."),
    # --- XML style
    (
        "xml",
        "<tool_call><function=led><parameter=color>red</parameter></function></tool_call>",
        [RED],
        "",
    ),
    (
        "xml-multiline-typed",
        "<tool_call>\n<function=weather>\n<parameter=location>\nParis\n</parameter>\n"
        "<parameter=day>\n1\n</parameter>\n</function>\n</tool_call>",
        [PARIS],
        "",
    ),
    (
        # What Qwen2.5-Coder-1.5B writes in 23 of 40 xml-format answers (bench/results).
        "xml-value-inside-tag",
        "<tool_call><function=weather><parameter=location=Paris></parameter>"
        "<parameter=day=1></parameter></function></tool_call>",
        [PARIS],
        "",
    ),
    (
        "xml-bare-function",
        "<function=led><parameter=color>red</parameter></function> Done.",
        [RED],
        "Done.",
    ),
    (
        "xml-missing-function-close",
        "<function=led><parameter=color>red</parameter>\nDone.",
        [RED],
        "Done.",
    ),
    (
        "xml-json-values",
        "<function=led><parameter=on>true</parameter><parameter=brightness>50</parameter>"
        "</function>",
        [ToolCall("led", {"on": True, "brightness": 50})],
        "",
    ),
    # --- bare JSON
    ("bare-json", '{"name": "led", "arguments": {"color": "red"}}', [RED], ""),
    (
        "bare-json-in-sentence",
        'I will call {"name": "led", "arguments": {"color": "red"}} now.',
        [RED],
        "I will call now.",
    ),
    (
        "json-list",
        '[{"name": "led", "arguments": {"color": "red"}}, '
        '{"name": "weather", "arguments": {"location": "Paris", "day": 1}}]',
        [RED, PARIS],
        "",
    ),
    (
        "tool-calls-key",
        '{"tool_calls": [{"name": "led", "arguments": {"color": "red"}}]}',
        [RED],
        "",
    ),
    (
        "openai-function-shape",
        '{"type": "function", "function": '
        '{"name": "led", "arguments": "{\\"color\\": \\"red\\"}"}}',
        [RED],
        "",
    ),
    # --- almost-JSON
    ("single-quotes", "{'name': 'led', 'arguments': {'color': 'red'}}", [RED], ""),
    ("trailing-commas", '{"name": "led", "arguments": {"color": "red",},}', [RED], ""),
    (
        "python-literals",
        "{'name': 'led', 'arguments': {'on': True, 'color': None}}",
        [ToolCall("led", {"on": True, "color": None})],
        "",
    ),
    ("arguments-as-string", '{"name": "led", "arguments": "{\\"color\\": \\"red\\"}"}', [RED], ""),
    ("parameters-key", '{"name": "led", "parameters": {"color": "red"}}', [RED], ""),
    ("args-key", '{"name": "led", "args": {"color": "red"}}', [RED], ""),
    (
        "empty-arguments-string",
        '{"name": "led_state", "arguments": ""}',
        [ToolCall("led_state", {})],
        "",
    ),
    (
        "cut-off-by-token-limit",
        'Checking. {"name": "weather", "arguments": {"location": "Paris", "day": 1',
        [PARIS],
        "Checking.",
    ),
    (
        "unicode",
        '```json\n{"name": "weather", "arguments": {"location": "Zürich 東京 🌧"}}\n```\nVoilà !',
        [ToolCall("weather", {"location": "Zürich 東京 🌧"})],
        "Voilà !",
    ),
    (
        "braces-inside-strings",
        '{"name": "shell", "arguments": {"command": "echo \'{x}\' }"}}',
        [ToolCall("shell", {"command": "echo '{x}' }"})],
        "",
    ),
    # --- text that is not a call stays text
    ("plain-answer", "The LED is red now.", [], "The LED is red now."),
    ("empty", "", [], ""),
    (
        "json-not-a-call",
        'The config is {"name": "Alice", "age": 30}.',
        [],
        'The config is {"name": "Alice", "age": 30}.',
    ),
    (
        "fence-json-not-a-call",
        'Example:\n```json\n{"city": "Paris", "temp": 21}\n```',
        [],
        'Example:\n```json\n{"city": "Paris", "temp": 21}\n```',
    ),
    (
        "fence-python-code",
        'Use this:\n```python\nprint({"name": "x"})\n```\nThat is all.',
        [],
        'Use this:\n```python\nprint({"name": "x"})\n```\nThat is all.',
    ),
    (
        "echoed-tool-definition",
        '{"name": "led", "description": "Set the LED", "parameters": {"type": "object", '
        '"properties": {}}}',
        [],
        '{"name": "led", "description": "Set the LED", "parameters": {"type": "object", '
        '"properties": {}}}',
    ),
    (
        "braces-in-prose",
        "Use {braces} and [brackets] freely.",
        [],
        "Use {braces} and [brackets] freely.",
    ),
    (
        "apostrophes",
        "It's sunny, isn't it? {'a' is a letter}",
        [],
        "It's sunny, isn't it? {'a' is a letter}",
    ),
    ("list-of-numbers", "Values: [1, 2, 3].", [], "Values: [1, 2, 3]."),
    ("less-than", "2 < 3 and <b>bold</b>", [], "2 < 3 and <b>bold</b>"),
]


# (id, model output, expected calls, expected text, a word the error must contain)
BROKEN: list[tuple[str, str, list[ToolCall], str, str]] = [
    (
        "bad-json-in-fence",
        '```json\n{"name": "led", "arguments": {"color": red}}\n```',
        [],
        "",
        "parse",
    ),
    (
        "bad-bare-json",
        'Ok {"name": "led", "arguments": {"color": red}} then',
        [],
        "Ok then",
        "parse",
    ),
    ("arguments-not-object", '{"name": "led", "arguments": [1, 2]}', [], "", "JSON object"),
    (
        "arguments-string-not-json",
        '{"name": "led", "arguments": "red please"}',
        [],
        "",
        "red please",
    ),
    (
        "tag-without-call",
        "<tool_call>I should turn on the LED</tool_call>",
        [],
        "I should turn on the LED",
        "<tool_call>",
    ),
    ("empty-tag-at-end", "Sure.<tool_call>", [], "Sure.", "no tool call"),
    ("function-without-name", "<function=><parameter=a>1</parameter></function>", [], "", "name"),
    (
        "one-good-one-bad",
        '<tool_call>{"name": "led", "arguments": {"color": "red"}}</tool_call>'
        '<tool_call>{"name": "led", "arguments": 5}</tool_call>',
        [RED],
        "",
        "JSON object",
    ),
]
