"""A step's calls run, and what the step leaves in the history.

A step's messages join the history only once the step is complete, so a turn cancelled
mid-step (client gone) never leaves a call without a result. Failures are data at the
model boundary: a malformed call, a failed one and calls over the per-reply limit come
back as failed results the model can read; only a repeat of a call that already failed
ends the turn: with that failure as the answer when nothing of the turn worked, else
with an error.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from edgeagent.agent.events import (
    ErrorEvent,
    Event,
    FinalAnswer,
    ToolCallEvent,
    ToolResultEvent,
)
from edgeagent.agent.honesty import did_not_work
from edgeagent.agent.meter import TurnMeter
from edgeagent.agent.sanitize import sanitize
from edgeagent.llm.base import Message
from edgeagent.tools.calls import CallFormat
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.tool import ToolResult

log = logging.getLogger(__name__)


def signature(call: ToolCall) -> str:
    """A call's identity for the repeat guard: name plus canonical arguments."""
    return call.name + json.dumps(call.arguments, sort_keys=True, default=str)


def describe_call(call: ToolCall) -> str:
    return f"{call.name}({json.dumps(call.arguments, ensure_ascii=False, default=str)})"


@dataclass(frozen=True)
class StepRunner:
    """Runs one step's calls for the agent loop."""

    executor: ToolExecutor
    call_format: CallFormat
    tool_content: Callable[[ToolResult], str]
    """A result as the history shows it (sanitised, cut to size)."""

    async def run(
        self,
        calls: Sequence[ToolCall],
        *,
        raw: str,
        errors: Sequence[str],
        skipped: Sequence[ToolCall],
        limit: int,
        step: int,
        frontend: str,
        meter: TurnMeter,
        records: list[dict[str, Any]],
        failures: dict[str, str],
        messages: list[Message],
        results: list[tuple[ToolCall, ToolResult]],
    ) -> AsyncGenerator[Event, None]:
        """Run ``calls`` (the step's ``raw`` text, its parse ``errors``, the calls over
        the per-reply ``limit`` ``skipped``), yielding a call and a result event per call;
        each result joins ``results`` and, as a record, ``records``; a failure's error
        joins ``failures`` by the call's :func:`signature`; the step's messages join
        ``messages`` at its end. A repeat of a call in ``failures`` ends the turn
        (:meth:`_repeated`)."""
        done: list[Message] = [
            {"role": "assistant", "content": self.call_format.render_call(list(calls))}
            if calls
            else {"role": "assistant", "content": sanitize(raw.strip(), frame_tags=False)}
        ]
        for error in errors:
            # Malformed attempts come back as a failed result, so the model can fix
            # the syntax on the next step instead of the turn failing.
            feedback = ToolResult.failure(
                f"your tool call could not be read: {error}. Write it exactly as the "
                f"instructions show, or answer in plain text"
            )
            done.append({"role": "tool", "content": self.tool_content(feedback)})
        if skipped:
            log.warning(
                "model asked for %d calls in one reply; ran %d ([agent] max_calls_per_step)",
                len(calls) + len(skipped),
                len(calls),
            )
        for call in calls:
            key = signature(call)
            if key in failures:
                yield self._repeated(call, failures[key], done, messages, records, step)
                return
            yield ToolCallEvent(call.name, call.arguments, step)
            with meter.tool():
                result = await self.executor.execute(call, frontend=frontend)
            yield ToolResultEvent(call.name, result.ok, result.result, result.error, step)
            record: dict[str, Any] = {"name": call.name, "arguments": call.arguments}
            record.update(result.to_dict())
            records.append(record)
            if not result.ok:
                failures[key] = result.error or "an error"
            results.append((call, result))
            done.append({"role": "tool", "content": self.tool_content(result)})
        if skipped:
            named = ", ".join(describe_call(c) for c in skipped[:3])
            more = f" and {len(skipped) - 3} more" if len(skipped) > 3 else ""
            capped = ToolResult.failure(
                f"only {limit} calls run per reply; not run: {named}"
                f"{more}. Call what is still needed in your next reply, or answer"
            )
            done.append({"role": "tool", "content": self.tool_content(capped)})
        messages.extend(done)

    def _repeated(
        self,
        call: ToolCall,
        error: str,
        done: list[Message],
        messages: list[Message],
        records: list[dict[str, Any]],
        step: int,
    ) -> FinalAnswer | ErrorEvent:
        """The end of a turn whose model repeated ``call``, which failed with ``error``:
        its refusal joins the step's messages (``done``, then ``messages``: the history
        never holds a call without a result). When nothing of the turn worked, the
        answer is a plain refusal for a tool the model made up ("please shut the
        computer down" as shutdown({}) twice) or the failure, said ("what's the
        melting point of solder?" as math("180") twice); else an error."""
        reason = (
            f"The model repeated the failing call {describe_call(call)}, which "
            f"already failed with: {error}. Not running it again"
        )
        done.append({"role": "tool", "content": self.tool_content(ToolResult.failure(reason))})
        if any(r.get("ok") for r in records):
            messages.extend(done)
            return ErrorEvent(f"{reason}; stopping this turn")
        if self.executor.resolve(call).name not in self.executor.registry:
            log.info("the model repeated a call of the unknown tool %r", call.name)
            answer = (
                f"I can't do that here: none of my tools can do that (there is no "
                f"{call.name!r} tool)."
            )
        else:
            log.info("the model repeated the failing call %s", describe_call(call))
            answer = did_not_work({"error": error})
        messages.extend([*done, {"role": "assistant", "content": answer}])
        return FinalAnswer(answer, tool_calls=records, steps=step)
