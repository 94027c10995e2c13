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
        ``messages`` at its end. A repeat of a call in ``failures`` ends the turn: the
        last event is a :class:`FinalAnswer` (for a tool the model made up, a plain
        refusal; when no call of the turn succeeded, the failure) or else an
        :class:`ErrorEvent`."""
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
            if key in failures and self._made_up(call, records):
                # "please shut the computer down" came as shutdown({}) twice: a tool
                # that is not there, asked for again, is a plain refusal, not an error.
                answer = (
                    f"I can't do that here: none of my tools can do that (there is no "
                    f"{call.name!r} tool)."
                )
                log.info("the model repeated a call of the unknown tool %r", call.name)
                messages.extend([*done, {"role": "assistant", "content": answer}])
                yield FinalAnswer(answer, tool_calls=records, steps=step)
                return
            if key in failures:
                reason = (
                    f"The model repeated the failing call {describe_call(call)}, which "
                    f"already failed with: {failures[key]}. Not running it again"
                )
                done.append(
                    {"role": "tool", "content": self.tool_content(ToolResult.failure(reason))}
                )
                if not any(r.get("ok") for r in records):
                    # "what's the melting point of solder?" came as math("180") twice:
                    # nothing of the turn worked, so the answer is that failure, said.
                    answer = did_not_work({"error": failures[key]})
                    log.info("the model repeated the failing call %s", describe_call(call))
                    messages.extend([*done, {"role": "assistant", "content": answer}])
                    yield FinalAnswer(answer, tool_calls=records, steps=step)
                    return
                messages.extend(done)
                yield ErrorEvent(f"{reason}; stopping this turn")
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

    def _made_up(self, call: ToolCall, records: Sequence[dict[str, Any]]) -> bool:
        """Whether ``call`` names no tool here (nor a command a tool runs) and no call
        of the turn has succeeded: a tool the model made up."""
        if any(r.get("ok") for r in records):
            return False
        return self.executor.resolve(call).name not in self.executor.registry
