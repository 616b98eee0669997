"""DiffSpot predictions made elsewhere (``lmms-comparative score diffspot``).

Format ``predictions``: the authors' predictions JSONL (baselines/README.md, baselines/_common.py
``write_record``, docs/evaluation.md), one record per pair::

    {"id": "...", "split": "easy", "model": "...", "prompt_version": "v1.0", "raw_response": "...", "prediction": "..."}

The authors' scorer (scripts/evaluate.py -> diffspot/cli.py ``evaluate``) reads ``id`` (the join
key with the release), ``split`` (it decides whether the pair is a no-diff one) and ``prediction``
(the text the judge reads, the raw reply as the runners write it); a record without one of the
three stops it, and so it does here, naming the line. The pair's split is taken from the release,
as in a run of a model; the file's ``split`` must agree with it (a file made for another copy of
the data stops the run instead of being scored). A pair the file has no record for is a missing
prediction, left out of the scores as the authors' scorer leaves it out (the runners skip a failed
generation), and counted (``failed``); an empty prediction is judged like any other.

By default the records serve the task ``diffspot`` (all pairs); with ``--tasks`` they serve the
tasks named, each the records of its split.
"""

from __future__ import annotations

import json
from pathlib import Path

from lmms_comparative.benchmarks.diffspot.table import TASKS, task_name
from lmms_comparative.data.replies import Options, PredictionsError, Replies, read_jsonl
from lmms_comparative.record import PredictionsPart
from lmms_comparative.tasklib.file_opening import text_opening

REQUIRED = ("id", "split", "prediction")  # what diffspot/cli.py reads of a record


def _split_of_task(task: str) -> str | None:
    """The split a task reads ("all" for ``diffspot``), or None for a task not of DiffSpot."""
    return next((split for suffix, (split, _) in TASKS.items() if task_name(suffix) == task), None)


def read_predictions(path: Path, options: Options) -> Replies:
    """Format ``predictions`` (module docstring): each record's prediction, by ``id``, for the tasks of its split."""
    wanted = list(options.tasks) or ["diffspot"]
    unknown = [t for t in wanted if _split_of_task(t) is None]
    if unknown:
        raise PredictionsError(
            f"{path}: --tasks {', '.join(unknown)}: not a DiffSpot task ({', '.join(task_name(s) for s in TASKS)})"
        )
    out = Replies(tasks=wanted, sources=[str(path)])
    for number, record in enumerate(read_jsonl(path), 1):
        where = f"{path}, line {number}"
        missing = [k for k in REQUIRED if k not in record]
        if missing:
            raise PredictionsError(
                f"{where}: a record needs {', '.join(REQUIRED)} (the authors' evaluate.py reads them); it lacks "
                f"{', '.join(missing)}"
            )
        if not isinstance(record["prediction"], str) or not isinstance(record["id"], (str, int)):
            raise PredictionsError(
                f"{where}: 'id' must be a string and 'prediction' a string, got {type(record['id']).__name__} and "
                f"{type(record['prediction']).__name__}"
            )
        key, split = str(record["id"]), str(record["split"])
        for task in wanted:
            if _split_of_task(task) in ("all", split):
                out.add(task, key, record["prediction"], where)
                out.expected.setdefault(task, {})[key] = {"split": split}
    return out


def _looks_like_predictions(path: Path) -> bool:
    """A ``.jsonl`` file whose first record has the authors' ``id``, ``split`` and ``prediction``."""
    try:
        first = json.loads(text_opening(path, ".jsonl") or "null")
    except ValueError:
        return False
    return isinstance(first, dict) and all(k in first for k in REQUIRED)


FORMATS = {"predictions": read_predictions}
DETECT = {"predictions": _looks_like_predictions}
SIGNATURES = DETECT  # the first record's fields are the authors' own: another benchmark's score names it


PART = PredictionsPart(formats=FORMATS, detect=DETECT, signatures=SIGNATURES)
