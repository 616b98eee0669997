"""The report section and run summary of a benchmark whose folder has no ``report.py``: one table of
the runs' tasks with their accuracy (or their first number) and their number of items."""

from __future__ import annotations

from lmms_comparative.reportlib.cells import cell, table, text_table
from lmms_comparative.reportlib.marks import Marks, with_skips
from lmms_comparative.reportlib.runs import Run


def _tasks(benchmark, runs: list[Run]) -> list[str]:
    return sorted({task for run in runs for task in (run.results.get("results") or {}) if benchmark.owns_task(task)})


def _main_metric(run: Run, task: str) -> tuple[str, object]:
    """(metric, value): ``accuracy`` where the task reports it, else its first number."""
    row = run.row(task)
    if "accuracy,none" in row:
        return "accuracy", row["accuracy,none"]
    for name, value in row.items():
        if (
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and name.endswith(",none")
            and "stderr" not in name
        ):
            return name.split(",")[0], value
    return "", None


def _rows(benchmark, runs: list[Run], marks: Marks | None = None) -> list[list[str]]:
    rows = []
    for run in runs:
        for task in _tasks(benchmark, [run]):
            metric, value = _main_metric(run, task)
            counts = run.mapping(task, "counts")
            name = marks.name(run, [task]) if marks is not None else run.name
            rows.append(
                [
                    name,
                    task,
                    metric,
                    with_skips(cell(value, run.ci(task, metric)), run, [task]) if metric else "-",
                    str(counts.get("n", "-")),
                ]
            )
    return rows


def section(benchmark, runs: list[Run]) -> str | None:
    """The Markdown section: every run's tasks of this benchmark, with their main metric (x100)."""
    marks = Marks(benchmark)
    rows = _rows(benchmark, runs, marks)
    if not rows:
        return None
    caption = (
        "Each task's accuracy (or its first metric) x100; n is the number of items (the task's `counts`). "
        f"{benchmark.title} has no report layout of its own (no report.py)."
    )
    return "\n".join(
        [
            f"## {benchmark.title}",
            "",
            caption,
            "",
            table(
                ["Model", "Task", "Metric", "Value", "n"],
                rows,
                key=f"{benchmark.name}_tasks",
                title=f"{benchmark.title}: tasks",
                marks=marks,
            ),
        ]
    )


def summary(benchmark, run: Run) -> list[str]:
    """The run log's closing lines for this benchmark: its tasks and main metric (x100)."""
    rows = [row[1:] for row in _rows(benchmark, [run])]
    return [f"{benchmark.title}: tasks (x100)"] + text_table(["task", "metric", "value", "n"], rows) if rows else []
