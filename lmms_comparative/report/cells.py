"""Cells and tables of the report and the run summary: values x100 with their intervals, Markdown and text tables."""

from __future__ import annotations

import re

from lmms_comparative.report.runs import Run

SHARE = (0.0, 1.0)


def cell(value, ci=None, scale: float = 100.0, digits: int = 1, bounds: tuple[float, float] | None = SHARE) -> str:
    """``value`` x ``scale``; with an interval, ± its larger half-width, or its (low–high) where
    ± would reach past the metric's range ``bounds`` (the interval itself is clipped to it)."""
    if not isinstance(value, (int, float)) or value != value:
        return "-"
    text = f"{value * scale:.{digits}f}"
    if ci is None:
        return text
    low, high = ci
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    half = max(high - value, value - low)
    if bounds is not None and (value + half > bounds[1] + 1e-12 or value - half < bounds[0] - 1e-12):
        return f"{text} ({low * scale:.{digits}f}–{high * scale:.{digits}f})"
    return f"{text} ±{half * scale:.{digits}f}"


def _has_interval(rows: list[list[str]]) -> bool:
    return any(re.search(r"±|\(-?[\d.]+–", cell) for row in rows for cell in row[1:])


def interval_note(rows: list[list[str]], with_intervals: str, without: str) -> str:
    """The table caption's sentence on intervals: how they were made, or why there are none."""
    return with_intervals if _has_interval(rows) else without


SAMPLES_NEEDED = "No intervals: they are computed from per-item results, which only runs with `--log_samples` write (samples logs beside the results JSON)."

NO_CI95 = "No intervals: these results carry no `ci95` metric (a task publishes it when it scored at least two units)."


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def reference_rows(reference: dict[str, list], digits: int = 1) -> list[list[str]]:
    """A paper's reference rows, printed at the paper's precision."""
    return [[name] + [("-" if v is None else f"{v:.{digits}f}") for v in values] for name, values in reference.items()]


def text_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Plain-text columns for a log: the first left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in [header] + rows) for i in range(len(header))]
    return [" ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip() for row in [header] + rows]


def family_prefixes(run: Run, names: list[str], base: str) -> list[str]:
    """The task families of a run that have a task ``<prefix>_<name>`` (``subtlebench``,
    ``subtlebench_grid``, ...), the plain one first."""
    rows = {**run.results.get("results", {}), **run.results.get("groups", {})}
    found = {task[: -len(name) - 1] for task in rows for name in names if task.endswith(f"_{name}") and task.startswith(base)}
    return sorted(p for p in found if p == base or p.startswith(base + "_"))
