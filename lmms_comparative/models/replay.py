"""``replay``: answers each request with a reply read from a file, so that predictions made
elsewhere are scored by the tasks' own hooks in a real lmms-eval run (``lmms-comparative score``
writes the file and runs it; see ``predictions.py``).

model_args: ``predictions=<replay file>`` (required); ``model_version=<name>``, the name the report
gives the run (e.g. the paper's model whose replies these are). The images are never opened.
"""

from __future__ import annotations

from collections import Counter
from typing import List

from lmms_eval.api.instance import Instance
from lmms_eval.api.model import lmms
from loguru import logger

from lmms_comparative.data.replies import ALL_TASKS, MISSING_REPLY, ItemKey, PredictionsError, read_replay
from lmms_comparative.failures import DataError, stop_run
from lmms_comparative.models import HARNESS_SETTINGS
from lmms_comparative.registry import named_like
from lmms_comparative.tasklib.docs import column_of

SHOWN = 5  # keys named in a message


def _named(keys) -> str:
    keys = sorted(keys)
    return ", ".join(repr(k) for k in keys[:SHOWN]) + (f" and {len(keys) - SHOWN} more" if len(keys) > SHOWN else "")


def item_key(task: str) -> ItemKey:
    """The item key of a request's doc, by its benchmark's rule (``rescoring.replies.ItemKey``)."""
    benchmark = named_like(task)
    if benchmark is None:
        stop_run(DataError(f"replay: task {task!r} is not one of lmms-comparative's tasks"))
    return benchmark.item_key


def _text(value) -> str:
    """A doc's field as the files' value is compared with it (an absent field is empty)."""
    return "" if value is None else str(value).strip()


class Replay(lmms):
    """``--model replay``: answers each request with a replay file's reply for its item (``lmms-comparative score``
    runs it)."""

    is_simple = True
    supports_video = True  # it never looks at its inputs

    def __init__(self, predictions: str = "", model_version: str = "", **kwargs) -> None:
        super().__init__()
        unknown = sorted(k for k in kwargs if k not in HARNESS_SETTINGS)
        if unknown:
            logger.warning(f"replay ignores model_args {unknown}")
        if not predictions:
            stop_run(DataError("replay: model_args predictions=<file> is required (lmms-comparative score writes it)"))
        try:
            self.replay = read_replay(predictions)
        except PredictionsError as exc:
            stop_run(DataError(str(exc)))
        self.model_version = model_version
        self.device = "cpu"
        self._checked = False
        self._key_cache: dict[tuple[str, str], list[str]] = {}

    def _keys(self, task: str, split: str) -> list[str]:
        """The key of every doc of a task's split, in doc_id order (a column read: no image is
        decoded), read once per run."""
        if (task, split) not in self._key_cache:
            self._key_cache[(task, split)] = self._read_keys(task, split)
        return self._key_cache[(task, split)]

    def _read_keys(self, task: str, split: str) -> list[str]:
        docs = self.task_dict[task][split]
        key = item_key(task)
        try:
            columns = {name: column_of(docs, name, required=True) for name in key.columns}
        except KeyError as exc:
            stop_run(DataError(f"replay: the docs of {task} have no {exc} field to find the predictions by"))
        return [key(dict(zip(columns, values))) for values in zip(*columns.values())]

    def _check(self, keys: dict[tuple[str, str], list[str]]) -> None:
        """Every reply must be for an item of the run, and every expected field must match."""
        replies, expected = self.replay["replies"], self.replay.get("expected") or {}
        run_tasks = {task for task, _ in keys}
        by_task: dict[str, set[str]] = {}
        for (task, _split), task_keys in keys.items():
            by_task.setdefault(task, set()).update(task_keys)
        for scope, scope_replies in replies.items():
            if scope != ALL_TASKS and scope not in run_tasks:
                stop_run(
                    DataError(
                        f"replay: the predictions have replies for task {scope!r}, which this run does not have "
                        f"(tasks: {', '.join(sorted(run_tasks))})"
                    )
                )
            known = set().union(*by_task.values()) if scope == ALL_TASKS else by_task[scope]
            unknown = set(scope_replies) - known
            if scope == ALL_TASKS and unknown and len(unknown) < len(scope_replies):
                # A file for every task (a captions file of all domains) scored on some of them.
                logger.warning(
                    f"replay: {len(unknown)} prediction(s) are for items outside this run's tasks and are not scored: "
                    f"{_named(unknown)}"
                )
            elif unknown:
                where = "any task of this run" if scope == ALL_TASKS else scope
                stop_run(
                    DataError(
                        f"replay: {len(unknown)} prediction(s) for items that {where} does not have: "
                        f"{_named(unknown)} (wrong file, split or benchmark?)"
                    )
                )
        for task, fields_by_key in expected.items():
            for (run_task, split), task_keys in keys.items():
                if run_task != task:
                    continue
                docs = self.task_dict[task][split]
                where = {k: i for i, k in enumerate(task_keys)}
                # The fields the files name, read as columns (one read each: indexing a dataset
                # row by row decodes every field of every row).
                names = sorted({name for fields in fields_by_key.values() for name in fields})
                columns = {name: column_of(docs, name) for name in names}
                wrong = []
                for key, fields in fields_by_key.items():
                    if key in where:
                        row = where[key]
                        wrong += [
                            f"{key} {name}: file {value!r}, data {str(columns[name][row])!r}"
                            for name, value in fields.items()
                            if _text(columns[name][row]) != str(value).strip()
                        ]
                if wrong:
                    stop_run(
                        DataError(
                            f"replay: {len(wrong)} item(s) of {task} disagree with the data, so the files do not "
                            "belong to this split or order: " + "; ".join(wrong[:SHOWN])
                        )
                    )

    def _by_doc(self, keys: dict[tuple[str, str], list[str]]) -> None:
        """A ``--predict_only`` run's replies (by doc id) become replies by item key, through the
        docs at hand: their keys, in doc order, must be the generating run's (its record's
        ``order_sha256``), or the doc ids would name other items. lmms-eval's ``doc_hash`` is not
        used: it hashes the doc as the generating process held it (decoded images included for
        some benchmarks), which a scoring run that opens no image does not reproduce."""
        import hashlib

        by_doc, order = self.replay.get("by_doc") or {}, self.replay.get("order") or {}
        for task, replies in by_doc.items():
            split_keys = [k for (t, _split), k in keys.items() if t == task]
            if not split_keys:
                stop_run(
                    DataError(
                        f"replay: the predict-only run has replies for task {task!r}, which this run does not have"
                    )
                )
            recorded = order.get(task) or {}
            count = recorded.get("count") or 0
            here = split_keys[0][:count]
            if len(here) != count or hashlib.sha256("\n".join(here).encode("utf-8")).hexdigest() != recorded.get(
                "order_sha256"
            ):
                stop_run(
                    DataError(
                        f"replay: the docs of {task} at hand are not the ones the predictions were generated on "
                        f"({len(split_keys[0])} doc(s) here, {count} generated on; the items or their order differ): "
                        "score with the data the run used (its record's data source and fingerprint)"
                    )
                )
            unknown = [d for d in replies if not d.isdigit() or int(d) >= count]
            if unknown:
                stop_run(
                    DataError(
                        f"replay: {len(unknown)} predict-only sample(s) of {task} have doc ids the run did not "
                        f"generate ({_named(unknown)})"
                    )
                )
            self.replay["replies"].setdefault(task, {}).update({here[int(d)]: value for d, value in replies.items()})

    def generate_until(self, requests: List[Instance]) -> List[str]:
        return [a if isinstance(a, str) else a[-1] for a in self._answers(requests)]

    def _answers(self, requests: List[Instance]) -> list:
        keys: dict[tuple[str, str], list[str]] = {}
        # Every request shape ends with (doc_id, task, split): a single-round request of a simple
        # model and a multi-round one (which also carries doc_to_text).
        for request in requests:
            task, split = request.args[-2:]
            if (task, split) not in keys:
                keys[(task, split)] = self._keys(task, split)
        if not self._checked:
            # Checked once against every task of the run (a run may hand its single-round and
            # multi-round requests over in separate calls).
            every = dict(keys)
            for task, splits in (self.task_dict or {}).items():
                if any(t == task for t, _ in every) or named_like(task) is None:
                    continue
                columns = item_key(task).columns
                for split in getattr(splits, "keys", lambda: [])():
                    if all(
                        c in getattr(splits[split], "column_names", ()) for c in columns
                    ):  # the docs, not a placeholder
                        every[(task, split)] = self._keys(task, split)
            self._by_doc(every)
            self._check(every)
            self._checked = True
        replies = self.replay["replies"]
        seen: Counter = Counter()
        missing: Counter = Counter()
        answers = []
        for request in requests:
            doc_id, task, split = request.args[-3:]
            repeat = seen[id(request)]
            seen[id(request)] += 1
            key = keys[(task, split)][doc_id]
            found = (replies.get(task) or {}).get(key) or (replies.get(ALL_TASKS) or {}).get(key)
            if found is None or repeat >= len(found):
                missing[task] += 1
                answers.append(MISSING_REPLY)
            else:
                answers.append(found[repeat])
        for task, n in sorted(missing.items()):
            total = sum(1 for r in requests if r.args[-2] == task)
            logger.warning(
                f"replay: {n} of {total} request(s) of {task} have no prediction; they are counted as failed requests"
            )
        return answers

    def loglikelihood(self, requests):
        raise NotImplementedError("replay only answers generation tasks")

    def generate_until_multi_round(self, requests: List[Instance]) -> List[List[str]]:
        """A multi-step task's requests: the file's rounds (an earlier run's samples), or one reply,
        the item's final answer given as its only round (published multi-step replies keep only
        the final answer)."""
        return [list(answer) if isinstance(answer, list) else [answer] for answer in self._answers(requests)]
