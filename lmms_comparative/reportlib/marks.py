"""Runs whose values are not the released benchmark's, marked wherever their numbers stand.

A run's name gets a dagger in every table where its values are not the release's full item set
(fewer items, a ``--limit``, skipped items, items this package generated, an item count the release
does not publish, no record of the items at all), and the table gets a footnote per such run with
the reason, which is ``subsets.subset_of_tasks``'s (the rule ``export`` applies too), asked of the
tasks behind that table's values. Skipped items are also counted beside the score they left out
of (``with_skips``). Charts label such runs the same way (``chart_label``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lmms_comparative.provenance import KEY
from lmms_comparative.reportlib.runs import Run
from lmms_comparative.subsets import GENERATED, SUBSET, UNCONFIRMED, UNKNOWN, leaves, subset_of_tasks

DAGGER = "†"


def run_letter(index: int) -> str:
    """A run's letter where runs are named by their place: A for the first, then B, C, ... (then
    A27, ...): the Overview's columns and ``compare``'s pairs."""
    return chr(ord("A") + index) if index < 26 else f"A{index + 1}"


def code(text: str, in_table: bool = False) -> str:
    """``text`` as a Markdown code span whatever it holds (a submitted name may hold backticks):
    a fence one backtick longer than its longest run, padded where it starts or ends with one;
    in a table cell, ``|`` escaped so that it does not end the cell."""
    text = str(text)
    fence = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    body = text.replace("|", "\\|") if in_table else text
    return f"{fence}{pad}{body}{pad}{fence}"


# A reason's first words -> what a short cell says (a rank, a chart's legend).
_KINDS = (
    (GENERATED, "generated items"),
    (SUBSET, "subset"),
    (UNCONFIRMED, "release not confirmed"),
    (UNKNOWN, "items not recorded"),
)


def kind(reason: str | None) -> str | None:
    """A few words for a reason (``subset``, ``generated items``, ...); None for the release."""
    if reason is None:
        return None
    return next((short for start, short in _KINDS if reason.startswith(start)), "subset")


class Marks:
    """The marked runs of one table: ``name`` gives a run's name for a row (with the dagger where the
    values behind the row's ``tasks`` are not the release's), ``notes`` the footnote under the table;
    ``table(..., marks=)`` adds both to report.md and a ``subset`` field to the CSV and report.json."""

    def __init__(self, benchmark) -> None:
        self.benchmark = benchmark
        self.labels: dict[str, str | None] = {}  # a row's first cell (plain) -> its reason
        self._notes: dict[tuple[str, str], None] = {}  # (run name, reason), in order of marking

    def reason(self, run: Run, tasks: Iterable[str]) -> str | None:
        """Why the values of ``tasks`` (tasks or groups) of ``run`` are not the release's, or None."""
        return subset_of_tasks(run, self.benchmark, list(tasks))

    def name(self, run: Run, tasks: Iterable[str]) -> str:
        """The row's first cell: the run's name, with the dagger where the values behind ``tasks``
        are not the release's."""
        reason = self.reason(run, tasks)
        self.mark(run, reason)
        return f"{run.name} {DAGGER}" if reason is not None else run.name

    def mark(self, run: Run, reason: str | None) -> None:
        """Record a run's row whose reason is known already (a row made elsewhere)."""
        self.labels[run.name] = reason
        if reason is not None:
            self._notes[(run.name, reason)] = None

    def notes(self) -> list[str]:
        """The footnote lines under the table (after a blank line), or []."""
        if not self._notes:
            return []
        return [
            "",
            f"{DAGGER} Not the released benchmark's full item set, or not shown to be, so not comparable with the "
            "paper's numbers:",
            "",
        ] + [f"- {code(name)}: {reason}" for name, reason in self._notes]

    def subset_of_row(self, first_cell: str) -> str | None:
        """The reason of a row, by its first cell (with or without emphasis and dagger)."""
        plain = first_cell.replace("**", "").removesuffix(f" {DAGGER}")
        return self.labels.get(plain)


def plain_name(first_cell: str) -> str:
    """A row's first cell without the dagger (the CSV and report.json carry the reason instead)."""
    return first_cell.removesuffix(f" {DAGGER}")


def skipped(run: Run, tasks: Iterable[str]) -> int:
    """How many items the loaders skipped in the tasks behind ``tasks`` (tasks or groups): from the
    record's ``skipped`` lists, else each task's ``counts`` (``skipped``)."""
    record = run.results.get(KEY) or {}
    groups = run.results.get("group_subtasks") or {}
    entries = record.get("tasks") or {}
    total = 0
    for leaf in dict.fromkeys(
        leaf for task in tasks for leaf in (leaves(task, record, groups) or [task])
    ):  # each task once
        listed = (entries.get(leaf) or {}).get("skipped")
        if isinstance(listed, dict) and listed:
            total += len(listed)
            continue
        count = run.mapping(leaf, "counts").get("skipped")
        total += count if isinstance(count, int) and not isinstance(count, bool) else 0
    return total


def with_skips(text: str, run: Run, tasks: Iterable[str]) -> str:
    """A value's cell with the items skipped behind it: ``43.3 (2 skipped)``; unchanged without skips."""
    n = skipped(run, tasks)
    return f"{text} ({n} skipped)" if n and text != "-" else text


def chart_label(run: Run, benchmark, tasks: Iterable[str]) -> str:
    """A run's name in a chart's legend: with the dagger and what its items are where they are not the release's."""
    found = kind(subset_of_tasks(run, benchmark, list(tasks)))
    return f"{run.name} {DAGGER} ({found})" if found else run.name


CHART_NOTE = f"{DAGGER}: not the release's items, not comparable with the paper's numbers"
