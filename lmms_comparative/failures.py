"""The one failure policy: how much of a task may fail, how that is checked, and what stops a run.

- **The allowed share.** ``LMMS_COMPARATIVE_MAX_FAILED`` (default 0.05) is the share of a task's
  items that may fail (a model request, a judge or reader call) or be skipped (an unusable image or
  record) before the run counts as failed. ``max_failed_share`` reads it, ``parse_share`` parses it.
- **One share check.** ``exceeds`` is the test; ``check_share`` applies it to a task's items: within
  the share a warning, past it a *flag*. A flagged run still writes every task's results (the task
  that failed with its counts and reason), and its lmms-eval process ends with exit status 1 with
  the reasons repeated last (``harness.exit_status``).
- **What stops a run.** Every error that makes going on pointless (a missing data root, a model
  that cannot take the task's input, a setting the protocol forbids, an endpoint that refuses the
  key) derives from ``RunStopped``; ``stop_run`` turns one into the single ``lmms-comparative: …``
  line and exit status 1 (a ``SystemExit``, which lmms-eval's retry of ``process_docs`` does not
  retry and its CLI does not catch).
- **A scoring pass that failed** (``TooManyFailures``, raised by the judges past the share) is not
  a stop: the task is written ``Unscored`` (``tasklib.guard_scoring``) and the run flagged.

Nothing here imports lmms-eval.
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Iterator, NoReturn

MAX_FAILED_ENV = "LMMS_COMPARATIVE_MAX_FAILED"
DEFAULT_MAX_FAILED = 0.05


def parse_share(raw: str) -> float:
    """A ``LMMS_COMPARATIVE_MAX_FAILED`` value as a share (``"0.1"`` -> 0.1)."""
    return float(raw)


def max_failed_share() -> float:
    """The share of a task's items that may fail or be skipped before the run fails."""
    raw = os.environ.get(MAX_FAILED_ENV, "").strip()
    return parse_share(raw) if raw else DEFAULT_MAX_FAILED


def share_of(bad: int, total: int) -> float:
    """``bad / total`` (1.0 when there is nothing: an empty task counts as all bad)."""
    return bad / total if total else 1.0


def exceeds(bad: int, total: int, allowed: float) -> bool:
    """The one share test: more than ``allowed`` of ``total`` went bad."""
    return bool(bad) and share_of(bad, total) > allowed


# ---- errors -----------------------------------------------------------------------------------


class RunStopped(RuntimeError):
    """Base of every error that stops the run at once (see ``stop_run``)."""


class DataError(RunStopped):
    """A local data root, a record or an image is missing or malformed."""


class ModelCapabilityError(RunStopped):
    """The model under test cannot take the input a task needs."""


class ProtocolError(RunStopped, ValueError):
    """A run setting the benchmark's protocol does not allow."""


class TooManyFailures(RuntimeError):
    """More items stayed unjudged than the configured share allows (the task is written Unscored,
    the run flagged; not a stop)."""

    def __init__(self, message: str, failed: int = 0, total: int = 0):
        super().__init__(message)
        self.failed, self.total = failed, total


def stop_run(exc: BaseException) -> NoReturn:
    """End the run now with ``lmms-comparative: <message>`` and exit status 1."""
    raise SystemExit(f"lmms-comparative: {exc}") from None


# ---- flags: what went wrong in a run that goes on -----------------------------------------------

_flags: list[str] = []
_lock = threading.Lock()


def flag(reason: str) -> None:
    """Record that this run failed for ``reason`` (logged now, repeated at exit, exit status 1)."""
    with _lock:
        if reason in _flags:
            return
        _flags.append(reason)
    from loguru import logger

    logger.error(reason)


def add_flag(reason: str) -> None:
    """Record ``reason`` without logging it (for a reason lmms-eval has logged itself)."""
    with _lock:
        _flags.append(reason)


def flags() -> list[str]:
    """The reasons this run was flagged so far, in order."""
    with _lock:
        return list(_flags)


@contextlib.contextmanager
def collecting_flags() -> Iterator[list[str]]:
    """Within the block, flags are collected apart (the list it yields) and the run's own flags are
    left as they were: a check that runs a task's hooks outside a run (benchmarks/contract.py)."""
    with _lock:
        kept = list(_flags)
        _flags.clear()
    collected: list[str] = []
    try:
        yield collected
    finally:
        with _lock:
            collected.extend(_flags)
            _flags[:] = kept


def check_share(what: str, bad: int, total: int, kind: str) -> str | None:
    """Flag the run when ``bad / total`` exceeds the allowed share; returns the reason if flagged."""
    if not bad:
        return None
    from loguru import logger

    share, allowed = share_of(bad, total), max_failed_share()
    if not exceeds(bad, total, allowed):
        logger.warning(f"{what}: {bad} of {total} item(s) {kind} ({share:.1%}); within the allowed {allowed:.1%}.")
        return None
    reason = (
        f"{what}: {bad} of {total} item(s) {kind} ({share:.1%}), more than the allowed {allowed:.1%} "
        f"({MAX_FAILED_ENV})."
    )
    flag(reason)
    return reason
