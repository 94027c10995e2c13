"""What tool output may not hold: the chat template's control tokens and call frames.

Everything a tool returns (a web page, a file, a sensor name, an MCP server's text) is
data for the model, never instructions; :func:`sanitize` removes what could open a new
turn or fake a call before it reaches the prompt.
"""

from __future__ import annotations

import re

from edgeagent.tools.tool import ToolResult

# Chat-template control tokens (<|im_start|>, <|im_end|>, <|endoftext|>, <|eot_id|>...)
# and the tags that frame calls and results. Removed from tool output so that nothing a
# tool returns (a web page, a file, a sensor name) can open a new turn or fake a call.
_CONTROL_TOKENS = re.compile(r"<\|[\w.:/ -]{1,40}\|>")
_FRAME_TAGS = re.compile(r"</?\s*(?:tool_call|tool_response|tools|function(?:=[\w.-]*)?)\s*>")

DEFAULT_MAX_TOOL_CHARS = 4000
_SANITIZE_PASSES = 4
_DEFUSED_LT = "\N{SINGLE LEFT-POINTING ANGLE QUOTATION MARK}"


def sanitize(text: str, *, frame_tags: bool = True) -> str:
    """``text`` without template control tokens (and call/result tags).

    Removal can rebuild a token from the pieces around it (``<|im_<|x|>start|>``), so it
    repeats; past :data:`_SANITIZE_PASSES` the text is hostile, and what is left of the
    markers is defused instead (``<|`` becomes ``<¦``, a tag's ``<`` becomes ``‹``):
    replacing never joins pieces, so no pass after it could find anything.
    """
    for _ in range(_SANITIZE_PASSES):
        cleaned = _strip(text, frame_tags=frame_tags)
        if cleaned == text:
            return text
        text = cleaned
    if _strip(text, frame_tags=frame_tags) == text:
        return text
    text = text.replace("<|", "<\N{BROKEN BAR}").replace("|>", "\N{BROKEN BAR}>")
    if frame_tags:
        text = _FRAME_TAGS.sub(lambda tag: _DEFUSED_LT + tag[0][1:], text)
    return text


def _strip(text: str, *, frame_tags: bool) -> str:
    text = _CONTROL_TOKENS.sub("", text)
    return _FRAME_TAGS.sub("", text) if frame_tags else text


def tool_content(result: ToolResult, *, max_chars: int = DEFAULT_MAX_TOOL_CHARS) -> str:
    """A tool result as the model will read it: sanitised JSON of at most about
    ``max_chars`` characters (a longer payload is cut, and says so)."""
    content = sanitize(result.to_json())
    if len(content) <= max_chars:
        return content
    # Cut the payload, not the JSON, so the model still reads a valid object.
    body = sanitize(str(result.result if result.ok else result.error))
    keep = max(max_chars - 80, 0)
    note = f"{body[:keep]}... [truncated, {len(body)} characters in all]"
    cut = ToolResult.success(note) if result.ok else ToolResult.failure(note)
    return cut.to_json()
