"""MLLM-CompBench in the report: Table 2's sixteen columns and Avg, position bias, the run summary."""

from __future__ import annotations

from lmms_comparative.metrics.bootstrap import bootstrap_ci, grouped_bootstrap_ci
from lmms_comparative.record import Benchmark, Headline, ReportPart
from lmms_comparative.reportlib.cells import (
    SAMPLES_NEEDED,
    captioned,
    cell,
    family_prefixes,
    interval_note,
    reference_rows,
    text_table,
    unscored_notes,
)
from lmms_comparative.reportlib.marks import Marks, with_skips
from lmms_comparative.reportlib.runs import Run
from lmms_comparative.tasklib.report_part import report_part

# Table 2 heads each column with two lines, the relativity ("Attribute", "Exist.", "State", ...) over
# the source ("ST", "FA", ...); MIT-States (ST) and VAW (VA) are columns of both Attribute and State,
# so a one-line header joins the two lines as the paper prints them: "Attribute ST", "State ST".
COMPBENCH_COLUMNS = [
    ("attribute_mitstates", "Attribute ST"), ("attribute_fashionpedia", "Attribute FA"),
    ("attribute_vaw", "Attribute VA"), ("attribute_cub", "Attribute CU"), ("attribute_wildfish", "Attribute WF"),
    ("existence_magicbrush", "Exist. MB"), ("existence_spotdiff", "Exist. SD"),
    ("state_mitstates", "State ST"), ("state_vaw", "State VA"),
    ("emotion_celeba", "Emot. CE"), ("emotion_fer2013", "Emot. FE"),
    ("temporality_soccernet", "Temp. SN"), ("temporality_compcars", "Temp. CC"),
    ("spatiality_nyudepth", "Spat. ND"), ("quantity_vqav2", "Quan. VQ"), ("quality_qbench2", "Qual. QB"),
]  # fmt: skip
KEYS = [c for c, _ in COMPBENCH_COLUMNS]  # the columns' task suffixes, in the table's order

# MLLM-CompBench Table 2 (the paper has no human row over the sixteen columns).
COMPBENCH_REFERENCE = {
    "Chance level (paper)": [
        50.0,
        50.0,
        50.0,
        50.0,
        50.0,
        8.6,
        9.7,
        50.0,
        50.0,
        50.0,
        50.0,
        50.0,
        50.0,
        50.0,
        33.3,
        37.4,
        43.1,
    ]
}


INPUTS = {
    "compbench": "concatenated (one image)",
    "compbench_pair": "two images",
    "compbench_full": "concatenated, all records",
}


def section(benchmark: Benchmark, runs: list[Run]) -> str | None:
    """Table 2 for the concatenated runs (the paper's protocol for most models), then every input
    protocol a run has side by side: concatenated, two images (``compbench_pair*``, the GPT-4V /
    Gemini protocol of Table 2) and the full set."""
    present = [r for r in runs if any(r.row(f"{family}_{c}") for family in INPUTS for c in KEYS)]
    if not present:
        return None
    out = ["## MLLM-CompBench"]
    main = [r for r in present if any(r.row(f"compbench_{c}") for c in KEYS)]
    if main:
        out += _main_table(benchmark, main)
    out += _protocol_table(benchmark, present) + unscored_notes(present, benchmark.name)
    return "\n".join(out)


def _main_table(benchmark: Benchmark, runs: list[Run]) -> list[str]:
    rows = reference_rows(COMPBENCH_REFERENCE)
    bias_rows = []
    marks, bias_marks = Marks(benchmark), Marks(benchmark)
    for run in runs:
        groups = [run.per_item(f"compbench_{c}") or [] for c, _ in COMPBENCH_COLUMNS]
        tasks = [f"compbench_{c}" for c, _ in COMPBENCH_COLUMNS]
        cells = [marks.name(run, [t for t in tasks if run.row(t)] + ["compbench"])]
        cells += [
            with_skips(cell(run.value(t, "accuracy"), bootstrap_ci(g) if g else None), run, [t])
            for t, g in zip(tasks, groups)
        ]
        cells.append(
            with_skips(cell(run.value("compbench", "accuracy"), grouped_bootstrap_ci(groups)), run, ["compbench"])
        )
        rows.append(cells)
        for c, label in COMPBENCH_COLUMNS:
            bias = run.mapping(f"compbench_{c}", "left_bias")
            if bias:
                bias_rows.append(
                    [
                        bias_marks.name(run, [f"compbench_{c}"]),
                        f"{c} ({label})",
                        cell(bias["predicted_left"]),
                        cell(bias["true_left"]),
                        cell(bias["gap"]),
                    ]
                )
    header = ["Model"] + [label for _, label in COMPBENCH_COLUMNS] + ["Avg"]
    note = interval_note(
        rows,
        "± the half-width of a 95% bootstrap interval over items (Avg: each column resampled on its own).",
        SAMPLES_NEEDED,
    )
    caption = (
        "Accuracy (%) per column of the paper's Table 2, headed as the paper heads them: the relativity, then the "
        "source (ST MIT-States, FA Fashionpedia, VA VAW, CU CUB-200-2011, WF Wildfish++, MB MagicBrush, SD "
        "Spot-the-diff, CE CelebA, FE FER-2013, SN SoccerNet, CC CompCars, ND NYU-Depth V2, VQ VQAv2, QB Q-Bench2). "
        f"{note}"
    )
    table2 = captioned(
        caption,
        header,
        rows,
        key="compbench_table2",
        title="MLLM-CompBench: accuracy per column (Table 2)",
        marks=marks,
    )
    return table2 + captioned(
        'Position bias: share of "Left" answers against the share of "Left" answers in the ground truth (%).',
        ["Model", "Column", "Answered Left", "Truly Left", "Gap"],
        bias_rows,
        marks=bias_marks,
    )


def _protocol_table(benchmark: Benchmark, runs: list[Run]) -> list[str]:
    rows = []
    marks = Marks(benchmark)
    for run in runs:
        families = [f for f in INPUTS if any(run.row(f"{f}_{c}") for c in KEYS)]
        if families == ["compbench"]:
            continue
        for family in families:
            tasks = [f"{family}_{c}" for c in KEYS]
            values = [run.value(t, "accuracy") for t in tasks]
            done = [v for v in values if isinstance(v, float) and v == v]
            avg = run.value(family, "accuracy") if run.row(family) else (sum(done) / len(done) if done else None)
            present = [t for t in tasks if run.row(t)]
            rows.append(
                [marks.name(run, present), INPUTS[family]]
                + [with_skips(cell(v), run, [t]) for v, t in zip(values, tasks)]
                + [with_skips(cell(avg), run, present)]
            )
    return captioned(
        "Input protocols side by side (%): concatenated pair (`compbench*`, the paper's protocol for most models), two "
        "images (`compbench_pair*`, Table 2's GPT-4V and Gemini rows), all records (`compbench_full*`). Avg: the mean "
        "of the columns the run has.",
        ["Model", "Input"] + [label for _, label in COMPBENCH_COLUMNS] + ["Avg"],
        rows,
        key="compbench_inputs",
        title="MLLM-CompBench: input protocols",
        marks=marks,
    )


def summary(run: Run) -> list[str]:
    prefixes = family_prefixes(run, KEYS, "compbench")
    if not prefixes:
        return []
    rows = [
        [p] + [cell(run.value(f"{p}_{c}", "accuracy")) for c in KEYS] + [cell(run.value(p, "accuracy"))]
        for p in prefixes
    ]
    chance = [run.value(f"{prefixes[0]}_{c}", "chance") for c in KEYS] + [run.value(prefixes[0], "chance")]
    rows.append(["chance"] + [cell(c) for c in chance])
    return ["MLLM-CompBench: accuracy (%) per column and Avg (paper Table 2)"] + text_table(
        ["task"] + [label for _, label in COMPBENCH_COLUMNS] + ["Avg"], rows
    )


def measure(run: Run, table_id: str, column: str):
    """(value, 95% interval) of a run in a column of the paper's Table 2, x100 (the concatenated
    protocol's tasks ``compbench_<column>``, and ``compbench``'s Avg); in Table 3's two-stage
    columns, the run's ``compbench_twostage_<column>``."""
    if table_id == "table3_two_stage":  # the two-stage tasks (compbench_twostage_*)
        value, items = (
            run.value(f"compbench_twostage_{column}", "accuracy"),
            run.per_item(f"compbench_twostage_{column}"),
        )
        if not isinstance(value, (int, float)) or value != value:
            return None, None
        ci = bootstrap_ci(items) if items else None
        return value * 100, (ci[0] * 100, ci[1] * 100) if ci else None
    if table_id not in ("table2", "table5"):  # Table 3's fine-tuned rows are another model
        return None, None
    # The paper's rows mix protocols (one concatenated image for most models, two images for
    # GPT-4V and Gemini): the run's concatenated tasks, else its two-image ones.
    family = _family(run)
    if column in KEYS:
        value, items = run.value(f"{family}_{column}", "accuracy"), run.per_item(f"{family}_{column}")
        ci = bootstrap_ci(items) if items else None
    elif column == "avg":
        value = run.value(family, "accuracy")
        groups = [run.per_item(f"{family}_{c}") or [] for c in KEYS]
        ci = grouped_bootstrap_ci(groups) if all(groups) else None
    else:
        return None, None
    if not isinstance(value, (int, float)) or value != value:
        return None, None
    return value * 100, (ci[0] * 100, ci[1] * 100) if ci else None


# ``lmms-comparative compare``: the Avg is the unweighted mean of the sixteen columns.


def _family(run: Run) -> str:
    """The protocol family the measure reads: concatenated where the run has it, else two images."""
    return next((f for f in ("compbench", "compbench_pair") if any(run.row(f"{f}_{c}") for c in KEYS)), "compbench")


# The first page's value: Table 2's Avg; a run without the group shows each column it has.
HEADLINES = (Headline("table2", "avg", "Avg", _family, lambda run, column: f"{_family(run)}_{column}"),)


def part(benchmark: Benchmark) -> ReportPart:
    """The report part, made for the record (``__init__.py``'s loader hands it over)."""
    return report_part(benchmark, section, summary, measure, HEADLINES, compare_group="macro")
