"""The repeat limiter: a flood of one log line becomes a few lines and one summary."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest

from edgeagent.logs import RepeatLimiter, limit_repeats
from tests.fake_clock import FakeClock


@pytest.fixture
def logged(clock: FakeClock) -> Iterator[tuple[logging.Logger, io.StringIO, FakeClock]]:
    """A logger writing formatted lines (tracebacks included) through a limited handler."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RepeatLimiter(handler, burst=5, interval_s=10.0, clock=clock))
    logger = logging.getLogger("test.flood")
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.INFO)
    try:
        yield logger, stream, clock
    finally:
        logger.removeHandler(handler)
        logger.propagate = True


def accept_failed(logger: logging.Logger) -> None:
    # What asyncio logs when accept() runs out of files: a multi-line message + traceback.
    try:
        raise OSError(24, "Too many open files")
    except OSError:
        logger.error("socket.accept() out of system resource\nsocket: <socket fd=6>", exc_info=True)


def test_a_thousand_identical_records_give_a_handful_of_lines_and_a_summary(
    logged: tuple[logging.Logger, io.StringIO, FakeClock],
) -> None:
    logger, stream, clock = logged
    for _ in range(1000):
        accept_failed(logger)
        clock.now += 0.001  # a second in all: one window
    assert stream.getvalue().count("Traceback") == 5
    clock.now += 10
    logger.info("back to normal")
    lines = stream.getvalue().splitlines()
    assert len(lines) < 50
    assert lines[-2] == (
        "ERROR test.flood: 995 similar messages suppressed (more than 5 in 10 s): "
        "socket.accept() out of system resource"
    )
    assert lines[-1] == "INFO test.flood: back to normal"


def test_the_same_template_with_other_values_is_the_same_message(
    logged: tuple[logging.Logger, io.StringIO, FakeClock],
) -> None:
    logger, stream, _ = logged
    for i in range(100):
        logger.info("socket client error: %s", f"bad line {i}")
    logger.warning("a different message")
    lines = stream.getvalue().splitlines()
    assert lines == [f"INFO test.flood: socket client error: bad line {i}" for i in range(5)] + [
        "WARNING test.flood: a different message"
    ]


def test_each_window_lets_a_few_through_again(
    logged: tuple[logging.Logger, io.StringIO, FakeClock],
) -> None:
    logger, stream, clock = logged
    for _second in range(30):
        for _ in range(100):
            logger.warning("connection refused")
        clock.now += 1
    lines = stream.getvalue().splitlines()
    assert lines.count("WARNING test.flood: connection refused") == 15  # 3 windows x 5
    summaries = [line for line in lines if "similar messages suppressed" in line]
    summary = (
        "WARNING test.flood: 995 similar messages suppressed (more than 5 in 10 s): "
        "connection refused"
    )
    assert summaries == [summary, summary]  # the third window's summary is still owed


def test_flush_emits_the_summaries_still_owed(
    logged: tuple[logging.Logger, io.StringIO, FakeClock],
) -> None:
    logger, stream, _ = logged
    for _ in range(8):
        logger.warning("again")
    handler = logger.handlers[0]
    (limiter,) = [f for f in handler.filters if isinstance(f, RepeatLimiter)]
    limiter.flush()
    assert stream.getvalue().splitlines()[-1] == (
        "WARNING test.flood: 3 similar messages suppressed (more than 5 in 10 s): again"
    )


def test_limit_repeats_installs_once_per_handler() -> None:
    logger = logging.getLogger("test.install")
    handler = logging.StreamHandler(io.StringIO())
    logger.addHandler(handler)
    try:
        assert len(limit_repeats(logger)) == 1
        assert limit_repeats(logger) == []
        assert sum(isinstance(f, RepeatLimiter) for f in handler.filters) == 1
    finally:
        logger.removeHandler(handler)
