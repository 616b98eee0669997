"""ViDiC-1K in the report: the README's columns (Avg, Diff, Sim and the seven dimensions) per run,
with the pairs and the items the judge could not answer beside them; accuracy per checklist class
as the release names them; the run summary; the item browser's checklist with the judge's answers;
``compare`` on each checklist item, by section and class. The published rows are ``paper.json``'s
(the README's table), placed by ``measure``."""

from __future__ import annotations

from lmms_comparative.benchmarks.vidic.table import TASK
from lmms_comparative.record import Benchmark, Headline, ReportPart
from lmms_comparative.reportlib.cells import breakdown_rows, captioned, cell, interval_note, text_table, unscored_notes
from lmms_comparative.reportlib.marks import Marks, with_skips
from lmms_comparative.reportlib.runs import Run
from lmms_comparative.tasklib.report_part import report_part

# The README's columns: our metric (paper.json's column name), its header.
COLUMNS = [
    ("avg", "Avg."),
    ("diff", "Diff."),
    ("sim", "Sim."),
    ("subject", "Subject"),
    ("motion", "Motion"),
    ("position", "Pos."),
    ("background", "Backgr."),
    ("camera", "Cam."),
    ("style", "Style"),
    ("technique", "Tech."),
]


def _counts(run: Run) -> dict:
    return run.mapping(TASK, "counts")


def section(benchmark: Benchmark, runs: list[Run]) -> str | None:
    runs = [r for r in runs if r.row(TASK)]
    if not runs:
        return None
    marks = Marks(benchmark)
    rows = []
    for run in runs:
        cells = [with_skips(cell(run.value(TASK, m), run.ci(TASK, m)), run, [TASK]) for m, _ in COLUMNS]
        counts = _counts(run)
        rows.append(
            [
                marks.name(run, [TASK]),
                *cells,
                str(counts.get("items", "-")),
                str(counts.get("pairs", "-")),
                str(counts.get("failed", "-")),
                str(counts.get("judge_failed", "-")),
            ]
        )
    header = ["Model", *(label for _, label in COLUMNS), "items", "pairs", "no description", "judge failed"]
    note = interval_note(rows, "± the half-width of a 95% bootstrap interval over the pairs.")
    caption = (
        "The README's columns (%): accuracy on every checklist item (Avg.), on the Difference items (missed "
        "differences lower it) and on the Similarity items (invented differences lower it), and on each dimension's "
        "items of both sections. An item is right when the judge's answer equals its gold answer; an item the judge "
        "could not answer, or of a pair without a description, is wrong and counted, as the authors' "
        f"utils/calculate.py counts it. {note}"
    )
    readme = captioned(caption, header, rows, key="vidic_readme", title="ViDiC-1K: the README's columns", marks=marks)
    per_class = captioned(
        "Accuracy (%) per checklist class, as the release names them (each pooled over both sections).",
        ["Model", "Class", "Accuracy", "n"],
        [row for run in runs for row in breakdown_rows(run, TASK, "by_class", "accuracy")],
        key="vidic_classes",
        title="ViDiC-1K: per class",
    )
    return "\n".join(["## ViDiC-1K", *readme, *per_class] + unscored_notes(runs, benchmark.name))


def summary(run: Run) -> list[str]:
    if not run.row(TASK):
        return []
    cells = [cell(run.value(TASK, m)) for m, _ in COLUMNS]
    return ["ViDiC-1K: the README's columns (%)"] + text_table(
        ["row", *(label for _, label in COLUMNS), "items"], [[TASK, *cells, str(_counts(run).get("items", "-"))]]
    )


def measure(run: Run, table_id: str, column: str):
    """(value, 95% interval) of a run in a README column, in %."""
    if column not in dict(COLUMNS) or not run.row(TASK):
        return None, None
    value, ci = run.value(TASK, column), run.ci(TASK, column)
    if not isinstance(value, (int, float)) or value != value:
        return None, None
    return value * 100, (ci[0] * 100, ci[1] * 100) if ci else None


def _judge_rows(run: Run, task: str) -> list[dict]:
    return run.side.get("judge", {}).get(task) or []


def compare_units(run: Run, task: str) -> dict | None:
    """``lmms-comparative compare``: each checklist item (``<pair> #<n>``), right when the judge's
    answer equals its gold, the units Avg pools; compared apart by section and by class."""
    values: dict[str, float] = {}
    facets: dict[str, dict[str, str]] = {"section": {}, "class": {}}
    for row in _judge_rows(run, task):
        for number, item in enumerate(row.get("items") or []):
            if not isinstance(item, dict):
                continue
            key = f"{row.get('pair')} #{number}"
            values[key] = float(bool(item.get("correct")))
            facets["section"][key] = str(item.get("section"))
            facets["class"][key] = str(item.get("class"))
    if not values:
        return None
    return {"values": values, "binary": True, "metric": "avg", "facets": facets}


def item_questions(run: Run, task: str) -> dict[str, list[dict]] | None:
    """The item browser's checklist: per pair, each item's question (with its section and class),
    the judge's answer and explanation, right or wrong."""
    out: dict[str, list[dict]] = {}
    for row in _judge_rows(run, task):
        found = []
        for item in row.get("items") or []:
            if isinstance(item, dict):
                found.append(
                    {
                        "question": f"{item.get('section')} / {item.get('class')}: {item.get('question')} "
                        f"(gold: {item.get('correct_answer')})",
                        "answer": f"{item.get('answer')}: {item.get('explanation') or ''}".strip(),
                        "correct": bool(item.get("correct")),
                        "score": float(bool(item.get("correct"))),
                    }
                )
        out[str(row.get("pair"))] = found
    return out or None


# The first page's value: Avg, the README's first column.
HEADLINES = (Headline("readme", "avg", "Avg.", lambda run: TASK, lambda run, column: TASK, lambda c: dict(COLUMNS)[c]),)


def part(benchmark: Benchmark) -> ReportPart:
    """The report part, made for the record (``__init__.py``'s loader hands it over)."""
    return report_part(
        benchmark, section, summary, measure, HEADLINES, compare_units=compare_units, item_questions=item_questions
    )
