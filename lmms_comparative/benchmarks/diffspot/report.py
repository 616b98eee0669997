"""DiffSpot in the report: the leaderboard's columns (Easy, Med, Hard, Diff, No-Diff, Overall) per
run, with the judged and unjudged pairs beside them; recall per operator; the run summary; the
item browser's screenshots and the judge's verdicts; ``compare`` on TP/TN per pair, by tier,
operator and domain. The 13 published rows are ``paper.json``'s (leaderboard/leaderboard.json),
placed by ``measure``."""

from __future__ import annotations

from dataclasses import replace

from lmms_comparative.benchmarks.diffspot.table import TASKS as TASK_TABLE
from lmms_comparative.benchmarks.diffspot.table import task_name
from lmms_comparative.failures import DataError
from lmms_comparative.record import Benchmark, Headline, ReportPart
from lmms_comparative.reportlib.cells import breakdown_rows, captioned, cell, interval_note, text_table, unscored_notes
from lmms_comparative.reportlib.marks import Marks, with_skips
from lmms_comparative.reportlib.runs import Run
from lmms_comparative.tasklib.report_part import report_part

# The leaderboard's columns (leaderboard/update.py: Easy | Med | Hard | Diff | No-Diff | Overall):
# paper.json's column names, our metric, the task that reports it alone, the header.
COLUMNS = [
    ("easy_recall", "easy_recall", "diffspot_easy", "Easy"),
    ("med_recall", "medium_recall", "diffspot_medium", "Med"),
    ("hard_recall", "hard_recall", "diffspot_hard", "Hard"),
    ("diff_overall_recall", "diff_recall", None, "Diff"),
    ("no_diff_specificity", "nodiff_specificity", "diffspot_nodiff", "No-Diff"),
    ("overall_accuracy", "overall", None, "Overall"),
]
TASKS = tuple(task_name(s) for s in TASK_TABLE)  # diffspot, then each tier and the no-diff control


def _source(run: Run, metric: str) -> str | None:
    """The task a run's value of a column comes from: ``diffspot`` (all pairs) where it ran, else
    the task of that tier alone."""
    if run.row("diffspot"):
        return "diffspot"
    own = next((task for _, m, task, _ in COLUMNS if m == metric), None)
    return own if own and run.row(own) else None


def _value(run: Run, metric: str) -> tuple:
    task = _source(run, metric)
    if task is None:
        return None, None, None
    value = run.value(task, metric)
    return task, value, run.ci(task, metric)


def _counts(run: Run) -> dict:
    """The judged / unjudged / failed pairs summed over the tasks behind the run's row."""
    tasks = ["diffspot"] if run.row("diffspot") else [t for t in TASKS[1:] if run.row(t)]
    out: dict[str, int] = {}
    for task in tasks:
        for key in ("judged", "unjudged", "failed"):
            value = run.mapping(task, "counts").get(key)
            if isinstance(value, int):
                out[key] = out.get(key, 0) + value
    return out


def section(benchmark: Benchmark, runs: list[Run]) -> str | None:
    runs = [r for r in runs if any(r.row(t) for t in TASKS)]
    if not runs:
        return None
    marks = Marks(benchmark)
    rows = []
    for run in runs:
        cells, behind = [], []
        for _, metric, _, _ in COLUMNS:
            task, value, ci = _value(run, metric)
            behind += [task] if task else []
            cells.append(with_skips(cell(value, ci), run, [task]) if task else "-")
        counts = _counts(run)
        rows.append(
            [
                marks.name(run, list(dict.fromkeys(behind))),
                *cells,
                str(counts.get("judged", "-")),
                str(counts.get("unjudged", "-")),
                str(counts.get("failed", "-")),
            ]
        )
    header = ["Model"] + [label for *_, label in COLUMNS] + ["judged", "unjudged", "no reply"]
    note = interval_note(rows, "± the half-width of a 95% bootstrap interval over the judged pairs.")
    caption = (
        "The leaderboard's columns (%): recall on the Easy, Medium and Hard has-diff pairs and on all of them (Diff), "
        "specificity on the no-diff pairs, "
        "and Overall = (TP + TN) / N, the official score. A has-diff pair is a TP when the judge calls its mutation "
        '"correct"; a no-diff pair a TN when the judge lists no hallucination. '
        "N counts the judged pairs: a pair whose judgement failed or could not be read (unjudged), or without a reply "
        "from the model, is left out, as the authors' evaluate.py leaves it out. "
        f"{note}"
    )
    leaderboard = captioned(
        caption, header, rows, key="diffspot_leaderboard", title="DiffSpot: the leaderboard's columns", marks=marks
    )
    per_operator = captioned(
        "Recall (%) per mutation operator on the has-diff pairs (the authors' optional breakdown; 300 pairs each "
        "in the release).",
        ["Model", "Operator", "Recall", "n"],
        [row for run in runs for row in breakdown_rows(run, "diffspot", "by_operator", "recall")],
        key="diffspot_operators",
        title="DiffSpot: recall per operator",
    )
    return "\n".join(["## DiffSpot", *leaderboard, *per_operator] + unscored_notes(runs, benchmark.name))


def summary(run: Run) -> list[str]:
    if not any(run.row(t) for t in TASKS):
        return []
    cells = [cell(_value(run, metric)[1]) for _, metric, _, _ in COLUMNS]
    counts = _counts(run)
    return ["DiffSpot: the leaderboard's columns (%)"] + text_table(
        ["row"] + [label for *_, label in COLUMNS] + ["judged", "unjudged"],
        [["diffspot", *cells, str(counts.get("judged", "-")), str(counts.get("unjudged", "-"))]],
    )


def measure(run: Run, table_id: str, column: str):
    """(value, 95% interval) of a run in a leaderboard column, in %: from ``diffspot``, else from the
    task of that tier alone (Diff and Overall need ``diffspot``)."""
    metric = next((m for name, m, _, _ in COLUMNS if name == column), None)
    if metric is None:
        return None, None
    _, value, ci = _value(run, metric)
    if not isinstance(value, (int, float)) or value != value:
        return None, None
    return value * 100, (ci[0] * 100, ci[1] * 100) if ci else None


def _judge_rows(run: Run, task: str) -> list[dict] | None:
    return run.side.get("judge", {}).get(task)


def compare_units(run: Run, task: str) -> dict | None:
    """``lmms-comparative compare``: each judged pair, right when it is a TP or a TN (the
    judge's side log); unjudged pairs are left out, as they are of the score. Its categories, each
    compared apart: the tier (easy, medium, hard: recall there, the leaderboard's Easy/Med/Hard;
    no_diff: specificity, its No-Diff), the mutation operator of a has-diff pair (the authors'
    per-operator recall) and the page's domain (the samples' ``domain``)."""
    rows = _judge_rows(run, task)
    if not rows:
        return None
    judged = [r for r in rows if r.get("error") is None and "tp" in r]
    values = {str(r["id"]): float(bool(r.get("tp")) or bool(r.get("tn"))) for r in judged}
    facets: dict[str, dict[str, str]] = {"tier": {}, "operator": {}, "domain": {}}
    for r in judged:
        for facet, field in (("tier", "split"), ("operator", "operator")):
            if r.get(field):
                facets[facet][str(r["id"])] = str(r[field])
    for sample in run.samples.get(task) or []:
        item = next((v for v in sample.values() if isinstance(v, dict) and "id" in v and "split" in v), None)
        if item is not None and item.get("domain") and str(item["id"]) in values:
            facets["domain"][str(item["id"])] = str(item["domain"])
    return {"values": values, "binary": True, "metric": "overall", "facets": {k: v for k, v in facets.items() if v}}


def item_questions(run: Run, task: str) -> dict[str, list[dict]] | None:
    """The item browser's verdicts: per pair, the judge's verdict on each ground-truth mutation and
    its hallucinations, each row scored as the pair (1 for a TP or TN), so that the item's outcome
    is the pair's; a pair the judge failed on shows nothing (unscored)."""
    rows = _judge_rows(run, task)
    if not rows:
        return None
    out: dict[str, list[dict]] = {}
    for row in rows:
        verdict = row.get("verdict")
        if not isinstance(verdict, dict):
            verdict = {}
        if row.get("error") is not None or "tp" not in row:
            continue
        score = float(bool(row.get("tp")) or bool(row.get("tn")))
        found = []
        for m in verdict.get("mutations") or []:
            found.append(
                {
                    "question": f"{m.get('type') or row.get('operator') or 'mutation'}: {m.get('gt', '')}",
                    "answer": f"{m.get('verdict')}: {m.get('vlm_match') or ''}".strip(),
                    "correct": m.get("verdict") == "correct",
                    "score": score,
                }
            )
        hallucinations = verdict.get("hallucinations") or []
        shown = "; ".join(map(str, hallucinations)) if isinstance(hallucinations, list) else str(hallucinations)
        found.append(
            {"question": "hallucinations", "answer": shown or "none", "correct": not hallucinations, "score": score}
        )
        out[str(row["id"])] = found
    return out


def item_images(task: str, keys: list[str]) -> dict[str, list]:
    """Both screenshots of each pair (image A before, image B after), read from the data at hand
    (``DIFFSPOT_ROOT`` or the hub cache); {} where the data is not at hand."""
    from lmms_comparative.benchmarks.diffspot import data

    try:
        release = data.load_release()
    except (DataError, OSError, ValueError, SystemExit):
        return {}
    where = {str(r["id"]): r["row"] for r in release.rows}
    out = {}
    for key in keys:
        if key in where:
            try:
                out[key] = release.images(where[key])
            except (OSError, ValueError):
                continue
    return out


# The first page's value: the leaderboard's Overall (the official score); a run without the full
# task shows each tier it has.
HEADLINES = (
    Headline(
        "leaderboard",
        "overall_accuracy",
        "Overall",
        lambda run: "diffspot",
        lambda run, column: next((t for c, _, t, _ in COLUMNS if c == column and t), "diffspot"),
        lambda column: next((label for c, _, _, label in COLUMNS if c == column), column),
    ),
)


def part(benchmark: Benchmark) -> ReportPart:
    """The report part, made for the record (``__init__.py``'s loader hands it over), with what ``compare``
    and the item browser read of a run."""
    core = report_part(benchmark, section, summary, measure, HEADLINES)
    return replace(core, compare_units=compare_units, item_images=item_images, item_questions=item_questions)
