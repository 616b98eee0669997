"""Cells and tables of the report and the run summary: values x100 with their intervals, Markdown and text tables."""

from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar

from lmms_comparative.reportlib.marks import code, plain_name
from lmms_comparative.reportlib.runs import Run

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


SAMPLES_NEEDED = (
    "No intervals: they are computed from per-item results, which only runs with `--log_samples` write "
    "(samples logs beside the results JSON)."
)

NO_CI95 = "No intervals: these results carry no `ci95` metric (a task publishes it when it scored at least two units)."


def interval_note(rows: list[list[str]], with_intervals: str, without: str = NO_CI95) -> str:
    """The table caption's sentence on intervals: how they were made, or why there are none
    (by default: the results carry no ``ci95``)."""
    return with_intervals if _has_interval(rows) else without


# The tables of the report being written (``collecting``): report.json and the CSV files carry
# the same cells as report.md.
_collected: ContextVar[list | None] = ContextVar("lmms_comparative_report_tables", default=None)
_section: ContextVar[str] = ContextVar("lmms_comparative_report_section", default="")


@contextmanager
def collecting(section: str = ""):
    """Collect every table made inside (``table``), tagged with ``section`` (a benchmark)."""
    tables = _collected.get()
    token = _collected.set([] if tables is None else tables)
    section_token = _section.set(section)
    try:
        yield _collected.get()
    finally:
        _section.reset(section_token)
        _collected.reset(token)


_NUMBER = re.compile(r"^\**(-?[\d.]+)\**(?: ±([\d.]+)| \((-?[\d.]+)–(-?[\d.]+)\))?")


def parse_cell(text: str) -> dict:
    """A cell's text with its number and interval where it has them: ``{"text", "value", "low",
    "high"}`` (value x100 as printed; low/high from ``±`` or ``(low–high)``)."""
    found: dict[str, str | float] = {"text": text}
    match = _NUMBER.match(text.strip())
    if match and match.group(1) not in ("", ".", "-"):
        try:
            value = float(match.group(1))
        except ValueError:
            return found
        found["value"] = value
        if match.group(2):
            half = float(match.group(2))
            found.update(low=round(value - half, 10), high=round(value + half, 10))
        elif match.group(3):
            found.update(low=float(match.group(3)), high=float(match.group(4)))
    return found


def table(
    header: list[str], rows: list[list[str]], key: str | None = None, title: str | None = None, marks=None
) -> str:
    """A Markdown table; while a report is collected, also recorded as ``key`` (a file name) with
    ``title``. ``marks`` (``reportlib.marks.Marks``): the runs of the rows whose values are not the
    release's; their footnote goes under the table, and the recorded table gets a ``subset``
    column (the reason, empty for the release and for the paper's rows)."""
    tables = _collected.get()
    if tables is not None:
        section = _section.get()
        name = key or f"{section or 'table'}_{sum(1 for t in tables if t['section'] == section) + 1}"
        entry = {
            "key": re.sub(r"[^A-Za-z0-9_.-]+", "_", name),
            "section": section,
            "title": title or name,
            "columns": list(header),
            "rows": [list(r) for r in rows],
        }
        if marks is not None:
            entry["subset"] = [marks.subset_of_row(r[0]) for r in rows]
            entry["rows"] = [[plain_name(r[0])] + list(r[1:]) for r in rows]
        tables.append(entry)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines + (marks.notes() if marks is not None else []))


def captioned(
    caption: str,
    header: list[str],
    rows: list[list[str]],
    key: str | None = None,
    title: str | None = None,
    marks=None,
) -> list[str]:
    """A section's table (``table``) under its caption, a blank line before each: the lines a
    section adds for it; [] without rows (and no table recorded)."""
    return ["", caption, "", table(header, rows, key, title, marks)] if rows else []


def breakdown_rows(run: Run, task: str, field: str, metric: str) -> list[list[str]]:
    """A run's rows of a breakdown its task reports (``by_class``, ``by_operator``: {name: {metric,
    n, ...}}), by name: the run, the name, the metric (%) and n."""
    breakdown = sorted(run.mapping(task, field).items())
    return [
        [run.name, name, cell(entry.get(metric)), str(entry.get("n", "-"))]
        for name, entry in breakdown
        if isinstance(entry, dict)
    ]


def reference_rows(reference: dict[str, list], digits: int = 1) -> list[list[str]]:
    """A paper's reference rows, printed at the paper's precision."""
    return [[name] + [("-" if v is None else f"{v:.{digits}f}") for v in values] for name, values in reference.items()]


def text_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Plain-text columns for a log: the first left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in [header] + rows) for i in range(len(header))]
    return [
        " ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
        for row in [header] + rows
    ]


def family_prefixes(run: Run, names: list[str], base: str) -> list[str]:
    """The task families of a run that have a task ``<prefix>_<name>`` (``subtlebench``,
    ``subtlebench_grid``, ...), the plain one first."""
    rows = {**run.results.get("results", {}), **run.results.get("groups", {})}
    found = {
        task[: -len(name) - 1] for task in rows for name in names if task.endswith(f"_{name}") and task.startswith(base)
    }
    return sorted(p for p in found if p == base or p.startswith(base + "_"))


def unscored_notes(runs: list[Run], prefix: str) -> list[str]:
    """A line per task of a run that was written unscored (its judge or reader failed past the
    allowed share): why, from its ``counts`` (its cells show "-")."""
    lines = []
    for run in runs:
        rows = {**run.results.get("results", {}), **run.results.get("groups", {})}
        for task in sorted(rows):
            if task == prefix or task.startswith(prefix + "_"):
                reason = run.mapping(task, "counts").get("failure") or run.mapping(task, "counts").get("judge_failure")
                if reason:
                    lines.append(f"- {code(run.name)} / {code(task)}: not scored ({' '.join(str(reason).split())})")
    return ["", "Unscored tasks (their cells show -):", "", *lines] if lines else []
