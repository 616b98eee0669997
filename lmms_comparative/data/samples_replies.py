"""The replies of an earlier run, read from its samples logs (``read_samples``): the logs the gate
finds in its folder (``samples_files``), each line's raw replies keyed by the item key its scores
carry, and what the run's results JSON says of them (its groups, ``--limit``, ``--offset``, skipped
items, and for a ``--predict_only`` run which items its doc ids are)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from lmms_comparative.data import gate, untrusted
from lmms_comparative.data.generating import generating_config
from lmms_comparative.data.reply_set import ItemKey, PredictionsError, Replies, sample_key

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
            item = sample_key(row, key)
            # lmms-eval drops ``resps`` where it equals ``filtered_resps``. The replies: one per repeat, or
            # a multi-step task's rounds (below).
            replies: list | None = _sample_replies(row["resps"] if "resps" in row else row.get("filtered_resps"))
            if replies is not None and _rounds_of(row):
                replies = [replies]  # a multi-step task: the list is its rounds, not repeats
            if item is None and replies is not None and "bypass" in row and isinstance(row.get("doc_id"), int):
                out.by_doc.setdefault(task, {})[str(row["doc_id"])] = replies  # a --predict_only run's reply
                continue
            if item is None or replies is None:
                raise PredictionsError(
                    f"{where}: a samples line needs 'resps' or 'filtered_resps' and a score carrying the item's"
                    f" {key.columns[0]!r} (an lmms-comparative task's samples log, written with --log_samples)"
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
            f"{path}: a --predict_only run's samples carry doc ids, not items: give the run's folder"
            " (its results JSON says which items they are)"
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
                f"{path}: the samples of {task} are a --predict_only run's (doc ids, no scores) and its results"
                " JSON does not say which items they are (no lmms_comparative record with the item order: a run"
                " made without this package, or with a version before 0.1)"
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
