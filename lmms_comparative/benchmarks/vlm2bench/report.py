"""VLM²-Bench in the report: Table 1's nine subtasks, Overall and the gap to humans, the run summary."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from lmms_comparative.record import Benchmark, Headline, ReportPart
from lmms_comparative.reportlib.cells import captioned, cell, interval_note, reference_rows, text_table, unscored_notes
from lmms_comparative.reportlib.marks import Marks, with_skips
from lmms_comparative.reportlib.runs import Run
from lmms_comparative.tasklib.report_part import report_part

VLM2_SUBTASKS = [
    ("gc_mat", "GC Mat"),
    ("gc_trk", "GC Trk"),
    ("oc_cpr", "OC Cpr"),
    ("oc_cnt", "OC Cnt"),
    ("oc_grp", "OC Grp"),
    ("pc_cpr", "PC Cpr"),
    ("pc_cnt", "PC Cnt"),
    ("pc_grp", "PC Grp"),
    ("pc_vid", "PC VID"),
]

# VLM2-Bench Table 1 (nine subtasks, then Overall: the mean of all nine, VID included, for the human
# and every model row; the chance row, with no VID score, averages eight), printed with the paper's
# two decimals (OC-Cnt 34.88 and PC-Cnt 34.87 differ only there).
VLM2_REFERENCE: dict[str, list] = {
    "Chance-Level (paper)": [25.00, 25.00, 50.00, 34.88, 25.00, 50.00, 34.87, 25.00, None, 33.72],
    "Human-Level (paper)": [95.06, 98.11, 96.02, 94.23, 91.92, 97.08, 92.87, 91.17, 100.00, 95.16],
}


# The prompting strategies of the paper's §4 (Fig. 5), by task family.
STRATEGIES = {
    "vlm2bench": "Vanilla",
    "vlm2bench_cot": "CoT-normal",
    "vlm2bench_cotspecial": "CoT-special",
    "vlm2bench_vpgrid": "VP-grid",
}


def _strategy_table(benchmark: Benchmark, runs: list[Run]) -> list[str]:
    """A row per run and prompting strategy it has, when it has one besides the vanilla prompt."""
    rows = []
    marks = Marks(benchmark)
    for run in runs:
        families = [f for f in STRATEGIES if any(run.row(f"{f}_{t}") for t, _ in VLM2_SUBTASKS)]
        if families in ([], ["vlm2bench"]):
            continue
        for family in families:
            tasks = [f"{family}_{t}" for t, _ in VLM2_SUBTASKS[:8]]
            rows.append(
                [marks.name(run, [t for t in tasks if run.row(t)]), STRATEGIES[family]]
                + [with_skips(cell(run.value(t, "score"), run.ci(t, "score"), digits=2), run, [t]) for t in tasks]
            )
    return captioned(
        "Prompting strategies (paper §4, Fig. 5; prompts: Tables 23-24, Figure 11): scores (%) per image subtask, one "
        "row per strategy a run has. "
        "A reasoning reply is scored on its answer segment (after the last MY_ANSWER:, else its last line; the authors "
        "published no extraction). "
        "The paper gives these results as a figure only: no paper rows are transcribed.",
        ["Model", "Strategy"] + [label for _, label in VLM2_SUBTASKS[:8]],
        rows,
        key="vlm2bench_strategies",
        title="VLM²-Bench: prompting strategies (§4, Fig. 5)",
        marks=marks,
    )


def section(benchmark: Benchmark, runs: list[Run]) -> str | None:
    strategy_lines = _strategy_table(benchmark, runs)
    runs = [r for r in runs if any(r.row(f"vlm2bench_{t}") for t, _ in VLM2_SUBTASKS)]
    if not runs:
        return "\n".join(["## VLM²-Bench", *strategy_lines]) if strategy_lines else None
    rows = reference_rows(VLM2_REFERENCE, digits=2)
    human = VLM2_REFERENCE["Human-Level (paper)"][-1]
    human_image = sum(VLM2_REFERENCE["Human-Level (paper)"][:8]) / 8  # the human row over the eight image subtasks
    marks = Marks(benchmark)
    for run in runs:
        tasks = [f"vlm2bench_{t}" for t, _ in VLM2_SUBTASKS]
        # Like with like: the nine-subtask Overall against the human 95.16, an image-only run's
        # eight-subtask Overall (vlm2bench_image, marked ⁸) against the human mean of those eight.
        group, reference, mark = (
            ("vlm2bench", human, "")
            if run.value("vlm2bench", "score") is not None
            else ("vlm2bench_image", human_image, " ⁸")
        )
        cells = [marks.name(run, [t for t in tasks if run.row(t)] + ([group] if run.row(group) else []))]
        cells += [with_skips(cell(run.value(t, "score"), run.ci(t, "score"), digits=2), run, [t]) for t in tasks]
        overall = run.value(group, "score")
        cells.append(
            with_skips(
                cell(overall, run.ci(group, "score"), digits=2) + (mark if overall is not None else ""), run, [group]
            )
        )
        cells.append(f"{overall * 100 - reference:+.2f}" if isinstance(overall, float) else "-")
        rows.append(cells)
        # Acc_num of uniform guessing on this run's own mix of sequence lengths (paper appendix D.1).
        chance = [
            run.mapping(f"vlm2bench_{t}", "counts").get("chance_acc_num") if t.endswith("_cnt") else None
            for t, _ in VLM2_SUBTASKS
        ]
        if any(isinstance(c, float) for c in chance):
            rows.append([f"chance on these items ({run.name})"] + [cell(c, digits=2) for c in chance] + ["-", "-"])
    rows = [r + ([f"{(VLM2_REFERENCE[r[0]][-1] or 0) - human:+.2f}"] if r[0] in VLM2_REFERENCE else []) for r in rows]
    header = ["Model"] + [label for _, label in VLM2_SUBTASKS] + ["Overall", "Δ human"]
    note = interval_note(
        rows,
        "± the half-width of a 95% bootstrap interval (pairs or questions resampled; Overall: a normal interval from "
        "the subtasks' standard errors, clipped to 0-100).",
    )
    caption = (
        "Scores (%) as the paper's Table 1, with its two decimals: pair accuracy (T/F), Acc_num (counting), "
        "accuracy (grouping), judge score (VID); Overall is the mean of the nine subtasks (⁸: of the eight image "
        f"subtasks, from `vlm2bench_image`, and Δ human against the human mean of those eight, 94.56). {note}"
    )
    table1 = captioned(
        caption, header, rows, key="vlm2bench_table1", title="VLM²-Bench: scores per subtask (Table 1)", marks=marks
    )
    return "\n".join(["## VLM²-Bench", *table1] + strategy_lines + unscored_notes(runs, benchmark.name))


def summary(run: Run) -> list[str]:
    if not any(run.row(f"vlm2bench_{t}") for t, _ in VLM2_SUBTASKS):
        return []
    group, mark = ("vlm2bench", "") if run.row("vlm2bench") else ("vlm2bench_image", " (8 image subtasks)")
    cells = [cell(run.value(f"vlm2bench_{t}", "score"), digits=2) for t, _ in VLM2_SUBTASKS] + [
        cell(run.value(group, "score"), digits=2)
    ]
    return ["VLM²-Bench: scores (%) per subtask and Overall (paper Table 1)"] + text_table(
        ["task"] + [label for _, label in VLM2_SUBTASKS] + ["Overall"], [[group + mark] + cells]
    )


def measure(run: Run, table_id: str, column: str):
    """(value, 95% interval) of a run in a column of the paper's Table 1, x100: a subtask's score,
    or the nine-subtask Overall (``vlm2bench``)."""
    task = "vlm2bench" if column == "overall" else f"vlm2bench_{column}"
    value, ci = run.value(task, "score"), run.ci(task, "score")
    if not isinstance(value, (int, float)) or value != value:
        return None, None
    return value * 100, (ci[0] * 100, ci[1] * 100) if ci else None


# ``lmms-comparative compare``: the Overall is the mean of the subtasks' scores (weight_by_size: false).


def compare_units(run, task: str) -> dict | None:
    """The scoring units of a task in one run, as the task's score counts them: a T/F pair (right
    when both halves are: the paper's pair accuracy, ``scoring.pair_accuracy``; a pair with a
    failed request left out, an incomplete pair dropped in OC/PC and not right in GC, as
    ``hooks.summarize`` scores them), a counting item with its Acc_num score (not right or wrong),
    else an item with its ``correct``; a failed request is no unit."""
    rows = run.samples.get(task)
    if not rows:
        return None
    values: dict[str, float] = {}
    binary = True
    pairs: dict[str, dict[str | None, bool]] = {}  # pair -> half ("p", "n") -> right
    failed_pairs, dropping = set(), set()
    for row in rows:
        item = next((v for v in row.values() if isinstance(v, dict) and "uid" in v), None)
        if item is None:
            return None
        failed = item.get("status") == "failed"
        if item.get("pair_id") is not None:
            key = str(item["pair_id"])
            if failed:
                failed_pairs.add(key)
            if item.get("kind") == "tf":
                dropping.add(key)
            half = pairs.setdefault(key, {})
            half[item.get("half")] = half.get(item.get("half"), False) or bool(item.get("correct"))
        elif failed:
            continue
        elif item.get("kind") == "cnt":
            values[str(item["uid"])] = float(item.get("score") or 0.0)
            binary = False
        else:
            values[str(item["uid"])] = float(item.get("correct") or 0)
    for key, half in pairs.items():
        if key in failed_pairs or (key in dropping and not {"p", "n"} <= set(half)):
            continue
        values[key] = float(half.get("p", False) and half.get("n", False))
    return {"values": values, "binary": binary, "metric": "score"}


# The first page's value: Table 1's Overall; a run without the group shows each subtask it has.
HEADLINES = (
    Headline("table1", "overall", "Overall", lambda run: "vlm2bench", lambda run, column: f"vlm2bench_{column}"),
)


def media_folders(copy: Path) -> list[Path]:
    """A VLMEvalKit TSV given as VLM2BENCH_ROOT keeps its images in its decode cache (``tsv.image_caches``)."""
    from lmms_comparative.benchmarks.vlm2bench.tsv import image_caches

    return image_caches(copy)


def part(benchmark: Benchmark) -> ReportPart:
    """The report part, made for the record (``__init__.py``'s loader hands it over), with what ``compare``
    and the item browser read of a run."""
    core = report_part(benchmark, section, summary, measure, HEADLINES)
    return replace(core, compare_units=compare_units, compare_group="macro", media_folders=media_folders)
