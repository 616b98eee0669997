"""ViDi in the report: Tables 1, 2 and 8 (caption metrics, judge P/R/F1, the human row), image-order
consistency, the run summary."""

from __future__ import annotations

from lmms_comparative.record import Benchmark, Headline, ReportPart
from lmms_comparative.reportlib.cells import captioned, cell, interval_note, text_table, unscored_notes
from lmms_comparative.reportlib.marks import Marks, with_skips
from lmms_comparative.reportlib.runs import Run
from lmms_comparative.tasklib.report_part import report_part

# ViDi: the human study (7 subjects, 10 pairs, the global-setting instruction), paper appendix F
# Table 8 "(avg) Human" (BLEU-1..4, ROUGE-L, CIDEr; CIDEr on the model rows' x100 scale: Table 8's
# "(avg) MLLM" 1.6 is the mean of Table 1's global CIDEr column) and Table 2 "Humans" (judge
# precision, recall, F1: means over the subjects, standard deviations 4.9, 6 and 5.3).
VIDI_REFERENCE = {"Human avg (paper, 10 pairs)": ("global", [35.3, 21.0, 11.5, 6.4, 26.5, 5.4, 77.9, 63.8, 70.1])}

VIDI_METRICS = [
    ("bleu1", "BLEU-1"),
    ("bleu2", "BLEU-2"),
    ("bleu3", "BLEU-3"),
    ("bleu4", "BLEU-4"),
    ("rougeL", "ROUGE-L"),
    ("cider", "CIDEr"),
]


def _vidi_scale(run: Run, task: str) -> float:
    """What turns a run's ViDi values into the paper's x100 scale: 1 for results of task version 2
    and later (written on that scale), 100 for version 1 results (fractions)."""
    version = (run.results.get("versions") or {}).get(task)
    return 1.0 if isinstance(version, (int, float)) and version >= 2 else 100.0


def _vidi_cell(run: Run, task: str, metric: str) -> str:
    scale = _vidi_scale(run, task)
    top = (10.0 if metric == "cider" else 1.0) * 100 / scale  # CIDEr-D reaches 10 (1000 x100)
    return cell(run.value(task, metric), run.ci(task, metric), scale=scale, bounds=(0.0, top))


def section(benchmark: Benchmark, runs: list[Run]) -> str | None:
    runs = [
        r
        for r in runs
        if any(
            r.row(t)
            for t in (
                "vidi_granular",
                "vidi_global",
                "vidi_granular_avg",
                "vidi_global_avg",
                "vidi_granular_swap",
                "vidi_global_swap",
                "vidi_fewshot",
            )
        )
    ]
    if not runs:
        return None
    rows = [[name, setting] + [f"{v:.1f}" for v in values] for name, (setting, values) in VIDI_REFERENCE.items()]
    marks = Marks(benchmark)
    for run in runs:
        for setting in ("granular", "global", "fewshot"):
            task = f"vidi_{setting}_avg" if run.row(f"vidi_{setting}_avg") else f"vidi_{setting}"
            if not run.row(task) and run.row(f"vidi_{setting}_swap"):
                task = f"vidi_{setting}_swap"
            if not run.row(task):
                continue
            judge = (
                [with_skips(_vidi_cell(run, task, m), run, [task]) for m in ("precision", "recall", "f1")]
                if setting == "global"
                else ["-"] * 3
            )
            label = {"fewshot": "few-shot (All, Table 7)"}.get(setting, setting) + (
                " (swapped order)" if task.endswith("_swap") else ""
            )
            rows.append(
                [marks.name(run, [task]), label]
                + [with_skips(_vidi_cell(run, task, m), run, [task]) for m, _ in VIDI_METRICS]
                + judge
            )
    header = ["Model", "Setting"] + [label for _, label in VIDI_METRICS] + ["Judge P", "Judge R", "Judge F1"]
    order_rows = []
    order_marks = Marks(benchmark)
    for run in runs:
        for setting in ("granular", "global"):
            original, swapped = f"vidi_{setting}", f"vidi_{setting}_swap"
            if run.row(original) and run.row(swapped):
                deltas = [
                    run.value(swapped, m) - run.value(original, m)
                    if isinstance(run.value(original, m), float) and isinstance(run.value(swapped, m), float)
                    else None
                    for m, _ in VIDI_METRICS
                ]
                order_rows.append(
                    [order_marks.name(run, [original, swapped]), setting]
                    + [cell(d, scale=_vidi_scale(run, original), bounds=None) for d in deltas]
                )
    extra = captioned(
        "Image-order consistency (paper Table 4's variation): swapped order minus original order, same pairs "
        "(points on the same x100 scale).",
        ["Model", "Setting"] + [label for _, label in VIDI_METRICS],
        order_rows,
        marks=order_marks,
    )
    note = interval_note(
        rows,
        "± the half-width of a 95% bootstrap interval over pairs (corpus BLEU recomputed per resample; CIDEr with the "
        "full corpus's document frequencies; the average of both orders: a normal interval, clipped to the metric's "
        "range).",
    )
    caption = (
        "Every metric on the paper's scale, x100 (its Tables 1, 2, 4 and 8): BLEU-1..4, ROUGE-L and CIDEr-D "
        "(pycocoevalcap's CIDEr-D x100, so 0-1000) "
        "averaged over both image orders where both ran; judge precision, recall, F1 (%) for the global setting. "
        f"{note} The human row is the paper's study of 7 people on 10 of the 200 pairs, global setting (Table 8's "
        "average, Table 2's judge scores; "
        "their standard deviations over the subjects, as printed: P 4.9, R 6, F1 5.3)."
    )
    main = captioned(
        caption,
        header,
        rows,
        key="vidi_tables1_2_7",
        title="ViDi: caption metrics and judge (Tables 1, 2, 7, 8)",
        marks=marks,
    )
    return "\n".join(["## ViDi", *main] + extra + unscored_notes(runs, benchmark.name))


def summary(run: Run) -> list[str]:
    rows = []
    for setting in ("granular", "global", "fewshot"):
        task = next((t for t in (f"vidi_{setting}_avg", f"vidi_{setting}", f"vidi_{setting}_swap") if run.row(t)), None)
        if task:
            # Results of the current task version are on the paper's x100 scale already.
            rows.append(
                [task]
                + [cell(run.value(task, m), scale=1.0, bounds=None) for m, _ in VIDI_METRICS]
                + [cell(run.value(task, m), scale=1.0, bounds=None) for m in ("precision", "recall", "f1")]
            )
    if not rows:
        return []
    return ["ViDi: caption metrics and judge (x100, paper Tables 1 and 2)"] + text_table(
        ["task"] + [label for _, label in VIDI_METRICS] + ["P", "R", "F1"], rows
    )


def measure(run: Run, table_id: str, column: str):
    """(value, 95% interval) of a run in a column of the paper's Tables 1 (caption metrics; the
    table's id names the setting, granular or global) and 2 (judge P/R/F1, global), on the paper's
    x100 scale; both image orders averaged where the run has them."""
    setting = "granular" if "granular" in table_id.lower() else "global"
    task = f"vidi_{setting}_avg" if run.row(f"vidi_{setting}_avg") else f"vidi_{setting}"
    value = run.value(task, column)
    if not isinstance(value, (int, float)) or value != value:
        return None, None
    scale = _vidi_scale(run, task)
    ci = run.ci(task, column)
    return value * scale, (ci[0] * scale, ci[1] * scale) if ci else None


def compare_units(run, task: str) -> None:
    """``lmms-comparative compare``: ViDi's metrics are corpus-level (BLEU, ROUGE-L, CIDEr over the
    whole set; the judge's precision and recall pooled over descriptions), so no unit carries a
    score of its own to pair."""
    return None


def _headline(setting: str) -> Headline:
    """Table 1's CIDEr of a setting."""

    def group(run: Run) -> str:
        """Both image orders' mean where the run has it, else the original order."""
        return f"vidi_{setting}_avg" if run.row(f"vidi_{setting}_avg") else f"vidi_{setting}"

    return Headline(f"table1_{setting}", "cider", f"CIDEr, {setting}", group)


# The first page's values: Table 1's CIDEr per setting (both image orders' mean where the run has it).
HEADLINES = (_headline("granular"), _headline("global"))


def part(benchmark: Benchmark) -> ReportPart:
    """The report part, made for the record (``__init__.py``'s loader hands it over)."""
    return report_part(benchmark, section, summary, measure, HEADLINES, compare_units=compare_units)
