"""A benchmark's headline rows for a set of runs: each headline of its report part that some run
has, else each other column of that paper table that some run has. The Overview draws them and the
leaderboard ranks the runs on them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Entry:
    """One row of a benchmark's overview: a label, the paper's table and column, and per run the
    task or group its value is of."""

    label: str
    table: str
    column: str
    tasks: list


def entries(benchmark, runs: list) -> list[Entry]:
    """The benchmark's overview rows for ``runs``: each headline some run has, else each other
    column of its table some run has (its ``part``)."""
    paper = benchmark.paper()["tables"]
    found = []
    for spec in benchmark.report_part().headlines:
        if spec.table not in paper:
            continue
        tasks = [spec.group(r) for r in runs]
        if any(r.row(t) for r, t in zip(runs, tasks)):
            found.append(Entry(spec.label, spec.table, spec.column, tasks))
            continue
        for column in paper[spec.table]["columns"] if spec.part else []:
            if column == spec.column:
                continue
            tasks = [spec.part(r, column) for r in runs]
            if any(r.row(t) for r, t in zip(runs, tasks)):
                found.append(
                    Entry(spec.column_label(column) if spec.column_label else column, spec.table, column, tasks)
                )
    return found


def headline_row(
    rows: list[dict] | None, problem: str | None, task_a: str, task_b: str, a: str = "A", b: str = "B"
) -> tuple[dict | None, str]:
    """compare's row of one headline for a pair of runs (the task's or group's own row, no
    category) and "", or why there is none: the pair's problem, other tasks under one headline, no
    such row; or the row and its note where it compares nothing (``metric`` None). The Overview's
    difference cell and the leaderboard's pair test both read it."""
    if problem:
        return None, problem
    if task_a != task_b:
        return None, f"{a} has {task_a}, {b} {task_b}"
    row = next((r for r in rows or [] if r["task"] == task_a and not r.get("category")), None)
    if row is None:
        return None, "not in both runs' samples logs"
    if row.get("metric") is None:
        return row, str(row.get("note", "not compared"))
    return row, ""
