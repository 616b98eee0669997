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
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from lmms_comparative.data import gate, untrusted
from lmms_comparative.data.generating import generating_config
from lmms_comparative.data.jsonl import json_file, json_lines
from lmms_comparative.data.untrusted import MAX_LOG_BYTES

# The reply of an item the prediction files do not have: lmms-eval's API models' failed-request
# marker (metrics/aggregate.py FAILED_REQUEST_PREFIX), so every benchmark counts it as failed.
MISSING_REPLY = "[LMMS_EVAL_REQUEST_FAILED: no prediction for this item in the scored files]"
ALL_TASKS = "*"  # the replies apply to every task of the run (mapping files, captions files)
REPLAY_VERSION = 1


class PredictionsError(ValueError):
    """A prediction file that cannot be read as the format says: one message naming the file."""


@dataclass
class Replies:
    """Replies by task (or ``ALL_TASKS``) and item key, each a list (one per repeat); and, where
    the files carry them, what the item's doc must hold (``expected``: task -> key -> {field:
    value}), so that files joined to the wrong split or order stop the run instead of being scored."""

    by_task: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    expected: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    tasks: list[str] = field(default_factory=list)  # the lmms-eval tasks to run (readers that know them)
    sources: list[str] = field(default_factory=list)
    limit: int | float | None = None  # the earlier run's --limit (samples logs): the same docs are scored
    offset: int = 0  # the earlier run's --offset: the docs it skipped before its first
    # Items the files record as skipped (the evaluator's skipped_items, a run's skipped images):
    # task -> key -> reason. They stay skipped, not failed (hooks.recorded_skips).
    skipped: dict[str, dict[str, str]] = field(default_factory=dict)
    # A ``--predict_only`` run's replies: its samples carry doc ids, not item keys. task -> doc id
    # -> replies; the replay model finds the items through the docs at hand, which must be the
    # generating run's (``order``: task -> {count, order_sha256} of its record's item set).
    by_doc: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    order: dict[str, dict] = field(default_factory=dict)
    generation: dict | None = None  # the generating run's provenance record
    # The generating run's command line as its results' ``config`` gives it (``generating.GENERATING_CONFIG``):
    # which model it names and any decoding it overrode, the generating run's claims.
    generated_by: dict | None = None

    def add(self, task: str, key: str, replies: list | str, where: str) -> None:
        """One item's replies: one per repeat; a multi-step task's reply is the list of its rounds."""
        replies = [replies] if isinstance(replies, str) else replies
        if (
            not isinstance(replies, list)
            or not replies
            or not all(
                isinstance(r, str) or (isinstance(r, list) and r and all(isinstance(x, str) for x in r))
                for r in replies
            )
        ):
            raise PredictionsError(
                f"{where}: a reply must be a string or a non-empty list of strings, got {replies!r:.120}"
            )
        task_replies = self.by_task.setdefault(task, {})
        if key in task_replies:
            raise PredictionsError(
                f"{where}: a second prediction for item {key!r} ({task if task != ALL_TASKS else 'every task'})"
            )
        task_replies[key] = list(replies)

    def merge(self, other: "Replies") -> None:
        """Add another file's replies, expected items, tasks, sources, limit and skipped items."""
        for task, replies in other.by_task.items():
            for key, value in replies.items():
                self.add(task, key, value, other.sources[0] if other.sources else "predictions")
        for task, expected in other.expected.items():
            self.expected.setdefault(task, {}).update(expected)
        self.tasks += [t for t in other.tasks if t not in self.tasks]
        self.sources += other.sources
        self.limit = self.limit if other.limit is None else other.limit
        self.offset = other.offset or self.offset
        for task, skipped in other.skipped.items():
            self.skipped.setdefault(task, {}).update(skipped)
        for task, by_doc in other.by_doc.items():
            self.by_doc.setdefault(task, {}).update(by_doc)
        self.order.update(other.order)
        if self.generation is not None and other.generation is not None and self.generation != other.generation:
            raise PredictionsError(
                f"{other.sources[0] if other.sources else 'predictions'}: the replies of a second --predict_only run; score each run's folder on its own (one scored record names one generating run)"
            )
        self.generation = other.generation or self.generation
        self.generated_by = other.generated_by or self.generated_by

    def repeats(self) -> int:
        """How many replies each item has (the run's ``--repeats``); files must agree."""
        counts = {len(v) for replies in (*self.by_task.values(), *self.by_doc.values()) for v in replies.values()}
        if len(counts) > 1:
            raise PredictionsError(
                f"items have different numbers of replies ({sorted(counts)}): give every item the same number (one per repeat)"
            )
        return counts.pop() if counts else 1

    def count(self) -> int:
        """How many items have replies, over all tasks."""
        return sum(len(r) for r in self.by_task.values()) + sum(len(r) for r in self.by_doc.values())


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


SAMPLES_NAME = re.compile(r"_samples_(?P<task>.+)\.jsonl$")


def _run_of_folder(folder: Path) -> gate.Run | None:
    """The run a folder holds (``gate.scan``: no link followed, bounded): the newest at the
    shallowest depth where any is (lmms-eval writes into ``<output_path>/`` or
    ``<output_path>/<model>/``), so that a score run written inside the folder (``score RUN -o
    RUN/rescored``) is not taken for it; None when there is none."""
    runs = gate.scan(folder).runs
    if not runs:
        return None
    depth = min(len(r.results.parts) for r in runs)
    return max((r for r in runs if len(r.results.parts) == depth), key=lambda r: (r.results.name, str(r.path)))


def run_results_file(folder: Path) -> Path | None:
    """The results JSON of the run a folder holds (``_run_of_folder``), or None."""
    run = _run_of_folder(folder)
    return run.path if run is not None else None


def samples_files(path: Path) -> list[gate.Entry]:
    """The samples logs a path names, as the gate found them: the file itself (given by the
    user); in a run's folder, the samples logs of its run (beside its results JSON, of the same
    date, recognised by name); in a folder without a results JSON, every ``*_samples_*.jsonl``
    the gate's listing holds (no link followed)."""
    if not path.is_dir():
        files = [gate.Entry(path.parent, (path.name,))]
    elif (run := _run_of_folder(path)) is not None:
        files = [run.samples[task] for task in sorted(run.samples)]
    else:
        files = sorted(gate.logs_named(path, SAMPLES_NAME.search), key=lambda e: str(e.path))
    if not files:
        raise PredictionsError(
            f"{path}: no lmms-eval samples logs (*_samples_<task>.jsonl) in this folder; the run needs --log_samples"
        )
    return files


@dataclass(frozen=True)
class ItemKey:
    """How a benchmark finds an item: the doc columns its key is made of, and the rule (none: the
    first column as it stands). A benchmark's record holds its own (``Benchmark.item_key``)."""

    columns: tuple[str, ...]
    rule: Callable[[dict], str] | None = None

    def __call__(self, fields: dict) -> str:
        return self.rule(fields) if self.rule is not None else str(fields[self.columns[0]])


def sample_key(row: dict, key: ItemKey) -> str | None:
    """The item key of a samples line: lmms-eval 0.7 logs no ``doc``, but every metric's value is
    the sample dict our ``process_results`` returned, which carries the key's columns."""
    for value in [row.get("doc")] + list(row.values()):
        if isinstance(value, dict) and value.get(key.columns[0]) is not None:
            return key(value)
    return None


def logged_keys(keys: list[str | None]) -> tuple[list[str], int, list[str]]:
    """What a samples log's item keys (``sample_key`` of each line, None where a line has none) say
    of its item set: the keys found, how many lines carry none, and the keys logged more than once."""
    found = [k for k in keys if k is not None]
    return found, len(keys) - len(found), sorted(k for k, n in Counter(found).items() if n > 1)


def _sample_replies(resps) -> list[str] | None:
    """A samples line's raw replies: one string, or one per repeat (lmms-eval writes ``resps`` as
    the reply itself for one response, a list for several, nested once more in older versions)."""
    if isinstance(resps, str):
        return [resps]
    if isinstance(resps, list) and resps:
        if len(resps) == 1 and isinstance(resps[0], list):
            resps = resps[0]
        if all(isinstance(r, str) for r in resps):
            return list(resps)
    return None


def _rounds_of(row: dict) -> bool:
    """Whether a samples line is a multi-step task's (its scores carry ``rounds``)."""
    return any(isinstance(v, dict) and isinstance(v.get("rounds"), list) for v in row.values())


def read_samples(path: Path, key: ItemKey, owns: Callable[[str], bool] = lambda task: True) -> Replies:
    """The replies of an earlier run, from its samples logs (raw ``resps``, one per repeat),
    keyed by the item key its scores carry; in a folder, the logs of the tasks ``owns`` accepts."""
    out = Replies(sources=[str(path)])
    for file in samples_files(path):
        match = SAMPLES_NAME.search(file.name)
        if not match:
            raise PredictionsError(f"{file.shown()}: not an lmms-eval samples log name (<date>_samples_<task>.jsonl)")
        task = match.group("task")
        if path.is_dir() and not owns(task):
            continue  # another benchmark's log in the same run folder
        for number, row in gate.rows(file, PredictionsError):
            where = f"{file.shown()}, line {number}"
            # lmms-eval drops ``resps`` where it equals ``filtered_resps``.
            item, replies = (
                sample_key(row, key),
                _sample_replies(row["resps"] if "resps" in row else row.get("filtered_resps")),
            )
            if replies is not None and _rounds_of(row):
                replies = [replies]  # a multi-step task: the list is its rounds, not repeats
            if item is None and replies is not None and "bypass" in row and isinstance(row.get("doc_id"), int):
                out.by_doc.setdefault(task, {})[str(row["doc_id"])] = replies  # a --predict_only run's reply
                continue
            if item is None or replies is None:
                raise PredictionsError(
                    f"{where}: a samples line needs 'resps' or 'filtered_resps' and a score carrying the item's {key.columns[0]!r} (an lmms-comparative task's samples log, written with --log_samples)"
                )
            out.add(task, item, replies, where)
        if task not in out.tasks:
            out.tasks.append(task)
    if path.is_dir():
        run = _run_results(path)  # read once for the run's groups, --limit and skipped items
        out.tasks = _as_run(run, out.tasks, owns)
        out.limit = _run_limit(run)
        out.offset = _run_offset(run)
        out.skipped = _run_skips(run, owns)
        if out.by_doc:
            _predict_only_run(out, run, path)
    elif out.by_doc:
        raise PredictionsError(
            f"{path}: a --predict_only run's samples carry doc ids, not items: give the run's folder (its results JSON says which items they are)"
        )
    return out


def _predict_only_run(out: Replies, run: dict, path: Path) -> None:
    """The generating run's record, which says which items a predict-only run's doc ids are."""
    record = run.get("lmms_comparative") or {}
    tasks = record.get("tasks") or {}
    for task in out.by_doc:
        items = (tasks.get(task) or {}).get("items") or {}
        if not items.get("order_sha256"):
            raise PredictionsError(
                f"{path}: the samples of {task} are a --predict_only run's (doc ids, no scores) and its results JSON does not say which items they are (no lmms_comparative record with the item order: a run made without this package, or with a version before 0.1)"
            )
        out.order[task] = {"count": items.get("count"), "order_sha256": items["order_sha256"]}
    out.generation = {k: v for k, v in record.items() if k != "llm"}
    out.generated_by = generating_config(run)


def _run_results(folder: Path) -> dict:
    """The earlier run's results JSON beside its samples logs (``run_results_file``), read through
    the gate (``data/gate.py``: no link followed, bounded, checked against its schema), or {}."""
    results = run_results_file(folder)
    try:
        return gate.results_json(gate.run_of(results).results) if results else {}
    except untrusted.Unsafe:
        return {}


def _run_skips(run: dict, owns: Callable[[str], bool]) -> dict[str, dict[str, str]]:
    """The items each task of the earlier run skipped (its results JSON's provenance)."""
    tasks = (run.get("lmms_comparative") or {}).get("tasks") or {}
    return {
        task: dict(record["skipped"])
        for task, record in tasks.items()
        if owns(task) and isinstance(record, dict) and isinstance(record.get("skipped"), dict)
    }


def _run_limit(run: dict) -> int | float | None:
    """The ``--limit`` of the earlier run (its results JSON's ``config``): it saw only the first
    docs of each task, and a rescoring run must take the same ones, or the rest count as failed."""
    limit = (run.get("config") or {}).get("limit")
    return limit if isinstance(limit, (int, float)) and not isinstance(limit, bool) else None


def _run_offset(run: dict) -> int:
    """The ``--offset`` of the earlier run (its results JSON's ``config``; 0 where none): its docs
    start there, and a rescoring run must start there too."""
    offset = (run.get("config") or {}).get("offset")
    return offset if isinstance(offset, int) and not isinstance(offset, bool) and offset > 0 else 0


def _as_run(run: dict, tasks: list[str], owns: Callable[[str], bool]) -> list[str]:
    """The tasks as the earlier run named them: its groups (``group_subtasks`` of the results JSON
    beside the logs) where all their tasks are here, so the group rows are written again too."""
    groups = run.get("group_subtasks") or {}
    if not groups:
        return tasks
    chosen = [
        g for g, subtasks in groups.items() if owns(g) and subtasks and set(group_leaves(g, groups)) <= set(tasks)
    ]
    chosen = [g for g in chosen if not any(g in groups.get(other, []) for other in chosen)]  # outermost only
    covered = {t for g in chosen for t in group_leaves(g, groups)}
    return chosen + [t for t in tasks if t not in covered]


def group_leaves(group: str, groups: dict) -> list[str]:
    """The tasks under ``group`` in ``groups`` ({group: its members}), nested groups walked down,
    without recursion, each group once (a folder's ``group_subtasks`` may name a group inside
    itself, or nest past any stack)."""
    leaves: list[str] = []
    seen = {group}
    pending = list(reversed(groups.get(group) or []))
    while pending:
        sub = pending.pop()
        if not isinstance(sub, str) or sub in seen and groups.get(sub):
            continue
        if groups.get(sub):
            seen.add(sub)
            pending.extend(reversed(groups[sub]))
        else:
            leaves.append(sub)
    return leaves


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
