"""MLLM-CompBench in the report: Table 2's sixteen columns and Avg, position bias, the run summary."""

from __future__ import annotations

from pathlib import Path

from lmms_comparative.metrics.bootstrap import bootstrap_ci, grouped_bootstrap_ci
from lmms_comparative.report.cells import SAMPLES_NEEDED, cell, family_prefixes, interval_note, reference_rows, table, text_table, unscored_notes
from lmms_comparative.report.runs import Run

COMPBENCH_COLUMNS = [
    ("attribute_mitstates", "ST"), ("attribute_fashionpedia", "FA"), ("attribute_vaw", "VA"), ("attribute_cub", "CU"), ("attribute_wildfish", "WF"),
    ("existence_magicbrush", "MB"), ("existence_spotdiff", "SD"), ("state_mitstates", "ST"), ("state_vaw", "VA"), ("emotion_celeba", "CE"),
    ("emotion_fer2013", "FE"), ("temporality_soccernet", "SN"), ("temporality_compcars", "CC"), ("spatiality_nyudepth", "ND"), ("quantity_vqav2", "VQ"), ("quality_qbench2", "QB"),
]  # fmt: skip

# MLLM-CompBench Table 2 (the paper has no human row over the sixteen columns).
COMPBENCH_REFERENCE = {"Chance level (paper)": [50.0, 50.0, 50.0, 50.0, 50.0, 8.6, 9.7, 50.0, 50.0, 50.0, 50.0, 50.0, 50.0, 50.0, 33.3, 37.4, 43.1]}


INPUTS = {"compbench": "concatenated (one image)", "compbench_pair": "two images", "compbench_full": "concatenated, all records"}


def section(runs: list[Run]) -> str | None:
    """Table 2 for the concatenated runs (the paper's protocol for most models), then every input
    protocol a run has side by side: concatenated, two images (``compbench_pair*``, the GPT-4V /
    Gemini protocol of Table 2) and the full set."""
    keys = [c for c, _ in COMPBENCH_COLUMNS]
    present = [r for r in runs if any(r.row(f"{family}_{c}") for family in INPUTS for c in keys)]
    if not present:
        return None
    out = ["## MLLM-CompBench"]
    main = [r for r in present if any(r.row(f"compbench_{c}") for c in keys)]
    if main:
        out += ["", _main_table(main)]
    out += _protocol_table(present) + unscored_notes(present, "compbench")
    return "\n".join(out)


def _protocol_table(runs: list[Run]) -> list[str]:
    keys = [c for c, _ in COMPBENCH_COLUMNS]
    rows = []
    for run in runs:
        families = [f for f in INPUTS if any(run.row(f"{f}_{c}") for c in keys)]
        if families == ["compbench"]:
            continue
        for family in families:
            values = [run.value(f"{family}_{c}", "accuracy") for c in keys]
            done = [v for v in values if isinstance(v, float) and v == v]
            avg = run.value(family, "accuracy") if run.row(family) else (sum(done) / len(done) if done else None)
            rows.append([run.name, INPUTS[family]] + [cell(v) for v in values] + [cell(avg)])
    if not rows:
        return []
    return [
        "",
        "Input protocols side by side (%): concatenated pair (`compbench*`, the paper's protocol for most models), two images (`compbench_pair*`, Table 2's GPT-4V and Gemini rows), all records (`compbench_full*`). Avg: the mean of the columns the run has.",
        "",
        table(["Model", "Input"] + [label for _, label in COMPBENCH_COLUMNS] + ["Avg"], rows, key="compbench_inputs", title="MLLM-CompBench: input protocols"),
    ]


def _main_table(runs: list[Run]) -> str:
    rows = reference_rows(COMPBENCH_REFERENCE)
    bias_rows = []
    for run in runs:
        groups = [run.per_item(f"compbench_{c}") or [] for c, _ in COMPBENCH_COLUMNS]
        cells = [run.name] + [cell(run.value(f"compbench_{c}", "accuracy"), bootstrap_ci(g) if g else None) for (c, _), g in zip(COMPBENCH_COLUMNS, groups)]
        cells.append(cell(run.value("compbench", "accuracy"), grouped_bootstrap_ci(groups)))
        rows.append(cells)
        for c, label in COMPBENCH_COLUMNS:
            bias = run.mapping(f"compbench_{c}", "left_bias")
            if bias:
                bias_rows.append([run.name, f"{c} ({label})", cell(bias["predicted_left"]), cell(bias["true_left"]), cell(bias["gap"])])
    header = ["Model"] + [label for _, label in COMPBENCH_COLUMNS] + ["Avg"]
    note = interval_note(rows, "± the half-width of a 95% bootstrap interval over items (Avg: each column resampled on its own).", SAMPLES_NEEDED)
    out = [
        f"Accuracy (%) per column of the paper's Table 2 (attribute ST FA VA CU WF, existence MB SD, state ST VA, emotion CE FE, temporality SN CC, spatiality ND, quantity VQ, quality QB). {note}",
        "",
        table(header, rows, key="compbench_table2", title="MLLM-CompBench: accuracy per column (Table 2)"),
    ]
    if bias_rows:
        out += ["", 'Position bias: share of "Left" answers against the share of "Left" answers in the ground truth (%).', "", table(["Model", "Column", "Answered Left", "Truly Left", "Gap"], bias_rows)]
    return "\n".join(out)


def summary(run: Run) -> list[str]:
    columns = [c for c, _ in COMPBENCH_COLUMNS]
    prefixes = family_prefixes(run, columns, "compbench")
    if not prefixes:
        return []
    rows = [[p] + [cell(run.value(f"{p}_{c}", "accuracy")) for c in columns] + [cell(run.value(p, "accuracy"))] for p in prefixes]
    chance = [run.value(f"{prefixes[0]}_{c}", "chance") for c in columns] + [run.value(prefixes[0], "chance")]
    rows.append(["chance"] + [cell(c) for c in chance])
    return ["MLLM-CompBench: accuracy (%) per column and Avg (paper Table 2)"] + text_table(["task"] + [label for _, label in COMPBENCH_COLUMNS] + ["Avg"], rows)


def charts(runs: list[Run], out: Path) -> list[Path]:
    return []


def measure(run: Run, table_id: str, column: str):
    """(value, 95% interval) of a run in a column of the paper's Table 2, x100 (the concatenated
    protocol's tasks ``compbench_<column>``, and ``compbench``'s Avg); in Table 3's two-stage
    columns, the run's ``compbench_twostage_<column>``."""
    keys = [c for c, _ in COMPBENCH_COLUMNS]
    if table_id == "table3_two_stage":  # the two-stage tasks (compbench_twostage_*)
        value, items = run.value(f"compbench_twostage_{column}", "accuracy"), run.per_item(f"compbench_twostage_{column}")
        if not isinstance(value, (int, float)) or value != value:
            return None, None
        ci = bootstrap_ci(items) if items else None
        return value * 100, (ci[0] * 100, ci[1] * 100) if ci else None
    if table_id not in ("table2", "table5"):  # Table 3's fine-tuned rows are another model
        return None, None
    # The paper's rows mix protocols (one concatenated image for most models, two images for
    # GPT-4V and Gemini): the run's concatenated tasks, else its two-image ones.
    family = next((f for f in ("compbench", "compbench_pair") if any(run.row(f"{f}_{c}") for c in keys)), "compbench")
    if column in keys:
        value, items = run.value(f"{family}_{column}", "accuracy"), run.per_item(f"{family}_{column}")
        ci = bootstrap_ci(items) if items else None
    elif column == "avg":
        value = run.value(family, "accuracy")
        groups = [run.per_item(f"{family}_{c}") or [] for c in keys]
        ci = grouped_bootstrap_ci(groups) if all(groups) else None
    else:
        return None, None
    if not isinstance(value, (int, float)) or value != value:
        return None, None
    return value * 100, (ci[0] * 100, ci[1] * 100) if ci else None
