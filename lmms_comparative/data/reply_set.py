"""The replies of prediction files as ``lmms-comparative score`` holds them (``Replies``: by task and
item key, one per repeat), and how an item is found by its key (``ItemKey``, ``sample_key``)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

ALL_TASKS = "*"  # the replies apply to every task of the run (mapping files, captions files)


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
                f"{other.sources[0] if other.sources else 'predictions'}: the replies of a second --predict_only run;"
                " score each run's folder on its own (one scored record names one generating run)"
            )
        self.generation = other.generation or self.generation
        self.generated_by = other.generated_by or self.generated_by

    def repeats(self) -> int:
        """How many replies each item has (the run's ``--repeats``); files must agree."""
        counts = {len(v) for replies in (*self.by_task.values(), *self.by_doc.values()) for v in replies.values()}
        if len(counts) > 1:
            raise PredictionsError(
                f"items have different numbers of replies ({sorted(counts)}): give every item the same number"
                " (one per repeat)"
            )
        return counts.pop() if counts else 1

    def count(self) -> int:
        """How many items have replies, over all tasks."""
        return sum(len(r) for r in self.by_task.values()) + sum(len(r) for r in self.by_doc.values())


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
