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
