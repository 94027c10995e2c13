"""The hostile run's tally per category and its section of docs/benchmarks.md."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

TITLE = "## Hostile run (issue 9)"
START = "<!-- hostile.py: start (generated; edit bench/hostile.py, not this) -->"
END = "<!-- hostile.py: end -->"
EXAMPLE_CHARS = 160


@dataclass
class Row:
    """One category: what was tried, what got an answer, what went wrong."""

    category: str
    inputs: int = 0
    answered: int = 0
    refused: int = 0
    """Refused before the daemon: by the broker (over the daemon's Maximum Packet Size,
    malformed UTF-8) or by the kernel (the socket's listen backlog full)."""
    deaths: int = 0
    tracebacks: int = 0
    peak_mb: float | None = None
    rss_start_mb: float | None = None
    rss_end_mb: float | None = None
    unanswered_kinds: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    breaches: list[str] = field(default_factory=list)
    """Answers that should not have been given: a secret, a file outside the roots, a
    denied tool that ran, a reply on someone else's topic."""
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def unanswered(self) -> int:
        return self.inputs - self.answered - self.refused

    def record(
        self, kind: str, answered: bool, *, refused: bool = False, example: str = ""
    ) -> None:
        self.inputs += 1
        if answered:
            self.answered += 1
        elif refused:
            self.refused += 1
        else:
            self.unanswered_kinds[kind] += 1
            self.examples.setdefault(kind, example[:EXAMPLE_CHARS])

    def breach(self, what: str) -> None:
        self.breaches.append(what[: EXAMPLE_CHARS * 2])


def _mb(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}"


def table(rows: list[Row]) -> str:
    lines = [
        "| category | inputs | answered | refused before the daemon | unanswered | deaths | "
        "tracebacks in the log | breaches | peak RSS MB (daemon + worker) | RSS start → end MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    total = Row("**total**")
    for row in rows:
        flow = (
            "–" if row.rss_start_mb is None else f"{_mb(row.rss_start_mb)} → {_mb(row.rss_end_mb)}"
        )
        lines.append(
            f"| {row.category} | {row.inputs} | {row.answered} | {row.refused} | "
            f"{row.unanswered} | {row.deaths} | {row.tracebacks} | {len(row.breaches)} | "
            f"{_mb(row.peak_mb)} | {flow} |"
        )
        total.inputs += row.inputs
        total.answered += row.answered
        total.refused += row.refused
        total.deaths += row.deaths
        total.tracebacks += row.tracebacks
        total.breaches += row.breaches
    peaks = [r.peak_mb for r in rows if r.peak_mb is not None]
    lines.append(
        f"| **total** | {total.inputs} | {total.answered} | {total.refused} | "
        f"{total.unanswered} | {total.deaths} | {total.tracebacks} | {len(total.breaches)} | "
        f"{_mb(max(peaks) if peaks else None)} | |"
    )
    return "\n".join(lines)


def findings(rows: list[Row]) -> list[str]:
    """One bullet per unanswered kind, breach and note, per category."""
    out: list[str] = []
    for row in rows:
        for kind, count in row.unanswered_kinds.most_common():
            example = row.examples.get(kind, "")
            out.append(f"- {row.category}: {count} unanswered `{kind}`, e.g. `{example}`")
        for breach in dict.fromkeys(row.breaches):
            out.append(f"- {row.category}: breach: {breach}")
        out += [f"- {row.category}: {note}" for note in row.notes]
    return out


def section(header: list[str], rows: list[Row]) -> str:
    body = [*header, "", table(rows), ""]
    found = findings(rows)
    body += ["Findings and notes, per category:", "", *found] if found else ["Nothing to note."]
    return "\n".join([START, *body, END])


def write_section(path: Path, text: str) -> None:
    """Replace this script's block in ``path``, or append the section with it."""
    old = path.read_text() if path.exists() else ""
    pattern = re.compile(re.escape(START) + r".*?" + re.escape(END), re.S)
    if pattern.search(old):
        new = pattern.sub(lambda _m: text, old, count=1)
    elif TITLE in old:
        head, _, tail = old.partition(TITLE)
        new = head + TITLE + "\n\n" + text + "\n" + tail
    else:
        new = old.rstrip("\n") + f"\n\n{TITLE}\n\n{text}\n"
    path.write_text(new)
