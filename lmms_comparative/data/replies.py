"""Predictions made elsewhere, read: the replies, their item keys, the formats every benchmark reads
and the replay file (``run.py`` runs lmms-eval on it). How ``lmms-comparative score`` works:

``lmms-comparative score`` reads prediction files in a benchmark's published formats
(``benchmarks/<name>/predictions.py``: ``FORMATS``), writes them as one replay file, and runs the
real lmms-eval CLI with the ``replay`` model (``models/replay.py``), which answers each request
with the file's reply for that item. The task's own hooks score the replies, and lmms-eval writes
its own results JSON and samples logs: ``report`` and every tool that reads lmms-eval's output work
unchanged, and a reply is scored exactly as in a run of a model.

An item is found by its key: one field of the task's docs (the first of the benchmark's
``item_key`` columns), or what its key rule makes of those columns. A reply for an
item no task of the run has stops the run with the keys named; an item without a reply is answered
with lmms-eval's failed-request marker, so it is counted (``failed``) and scored by the
benchmark's own rule for failed requests, and past ``LMMS_COMPARATIVE_MAX_FAILED`` flags the run.

Formats every benchmark reads besides its own (``formats_of``):

- ``mapping``: one JSON object ``{item key: reply}`` or ``{item key: [reply, ...]}`` (one reply per
  ``--repeats``), for the tasks given with ``--tasks``;
- ``samples``: lmms-eval samples logs (``*_samples_<task>.jsonl``, or a folder holding them) of an
  earlier run: the replies that run got, for the tasks it ran.

The replies and item keys are held in ``reply_set``, an earlier run's samples logs read in
``samples_replies``; this module reads the formats every benchmark reads and the replay file, and
re-exports the names callers import.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from lmms_comparative.data import untrusted
from lmms_comparative.data.jsonl import json_file, json_lines
from lmms_comparative.data.reply_set import ALL_TASKS, ItemKey, PredictionsError, Replies, logged_keys, sample_key
from lmms_comparative.data.samples_replies import (
    SAMPLES_NAME,
    group_leaves,
    read_samples,
    run_results_file,
    samples_files,
)
from lmms_comparative.data.untrusted import MAX_LOG_BYTES

__all__ = [
    "ALL_TASKS",
    "MISSING_REPLY",
    "REPLAY_VERSION",
    "SAMPLES_NAME",
    "ItemKey",
    "Options",
    "PredictionsError",
    "Replies",
    "group_leaves",
    "is_json",
    "logged_keys",
    "needs_tasks",
    "read_json",
    "read_jsonl",
    "read_mapping",
    "read_replay",
    "read_samples",
    "run_results_file",
    "sample_key",
    "samples_files",
    "write_replay",
]

# The reply of an item the prediction files do not have: lmms-eval's API models' failed-request
# marker (metrics/aggregate.py FAILED_REQUEST_PREFIX), so every benchmark counts it as failed.
MISSING_REPLY = "[LMMS_EVAL_REQUEST_FAILED: no prediction for this item in the scored files]"
REPLAY_VERSION = 1


def read_json(path: Path):
    """A JSON file's content; PredictionsError naming the file if it cannot be read."""
    return json_file(path, PredictionsError, "JSON file", MAX_LOG_BYTES)


def read_jsonl(path: Path) -> list[dict]:
    """A JSON-lines file's records; PredictionsError naming the file and line if one cannot be read."""
    return json_lines(path, PredictionsError, "JSON-lines file")


# ---- the formats every benchmark reads --------------------------------------------------------


def read_mapping(path: Path, tasks: list[str]) -> Replies:
    """``{item key: reply}`` or ``{item key: [reply, ...]}``; the replies serve every task given."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise PredictionsError(f"{path}: expected a JSON object {{item key: reply}}, got {type(data).__name__}")
    out = Replies(tasks=list(tasks), sources=[str(path)])
    for key, value in data.items():
        out.add(ALL_TASKS, str(key), value, f"{path}, item {key!r}")
    return out


def needs_tasks(what: str, example: str) -> Callable:
    """A reader of ``{item key: reply}`` files that say nothing of the tasks they were made for
    (CaptionQA captions, ViDi descriptions): ``--tasks`` names them."""

    def read(path: Path, options: "Options") -> Replies:
        if not options.tasks:
            raise PredictionsError(
                f"{path}: {what} does not say which prompt made it: name the tasks with --tasks (e.g. {example})"
            )
        return read_mapping(path, list(options.tasks))

    return read


def is_json(path: Path) -> bool:
    """A format sniffer: the file ends in ``.json``."""
    return path.suffix == ".json"


# ---- the replay file the model reads ----------------------------------------------------------


def write_replay(replies: Replies, benchmark: str, path: Path, files: list[dict] | None = None) -> Path:
    """The replay file; ``files`` (path, format, sha256 of each prediction file read) goes into the
    results file's provenance. A link or a pipe where it goes: ``PredictionsError`` (``untrusted.write_file``)."""
    payload = {
        "version": REPLAY_VERSION,
        "benchmark": benchmark,
        "sources": replies.sources,
        "files": files or [],
        "replies": replies.by_task,
        "expected": replies.expected,
        "skipped": replies.skipped,
    }
    if replies.by_doc:
        payload.update(
            by_doc=replies.by_doc, order=replies.order, generation=replies.generation, generated_by=replies.generated_by
        )
    try:
        untrusted.write_file(untrusted.make_folder(path.parent) / path.name, json.dumps(payload, ensure_ascii=False))
    except untrusted.Unsafe as exc:
        raise PredictionsError(f"{path}: {exc}") from None
    return path


def read_replay(path: str | os.PathLike) -> dict:
    """A replay file written by ``write_replay`` (its version checked)."""
    data = read_json(Path(path))
    if not isinstance(data, dict) or data.get("version") != REPLAY_VERSION or not isinstance(data.get("replies"), dict):
        raise PredictionsError(
            f"{path}: not a replay file written by lmms-comparative score (version {REPLAY_VERSION})"
        )
    return data


# ---- reading files in a benchmark's formats ----------------------------------------------------


@dataclass(frozen=True)
class Options:
    """What the command line says about the files: the tasks they were made for (``--tasks``) and,
    for MLLM-CompBench, the task family (``--family``)."""

    tasks: tuple[str, ...] = ()
    family: str | None = None
