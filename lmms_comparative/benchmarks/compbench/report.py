"""MLLM-CompBench in the report: Table 2's sixteen columns and Avg, position bias, the run summary."""

from __future__ import annotations

from pathlib import Path

from lmms_comparative.metrics.bootstrap import bootstrap_ci, grouped_bootstrap_ci
from lmms_comparative.report.cells import SAMPLES_NEEDED, cell, family_prefixes, interval_note, reference_rows, table, text_table
from lmms_comparative.report.runs import Run

COMPBENCH_COLUMNS = [
    ("attribute_mitstates", "ST"), ("attribute_fashionpedia", "FA"), ("attribute_vaw", "VA"), ("attribute_cub", "CU"), ("attribute_wildfish", "WF"),
    ("existence_magicbrush", "MB"), ("existence_spotdiff", "SD"), ("state_mitstates", "ST"), ("state_vaw", "VA"), ("emotion_celeba", "CE"),
    ("emotion_fer2013", "FE"), ("temporality_soccernet", "SN"), ("temporality_compcars", "CC"), ("spatiality_nyudepth", "ND"), ("quantity_vqav2", "VQ"), ("quality_qbench2", "QB"),
]  # fmt: skip

# MLLM-CompBench Table 2 (the paper has no human row over the sixteen columns).
COMPBENCH_REFERENCE = {"Chance level (paper)": [50.0, 50.0, 50.0, 50.0, 50.0, 8.6, 9.7, 50.0, 50.0, 50.0, 50.0, 50.0, 50.0, 50.0, 33.3, 37.4, 43.1]}


def section(runs: list[Run]) -> str | None:
    runs = [r for r in runs if any(r.row(f"compbench_{c}") for c, _ in COMPBENCH_COLUMNS)]
    if not runs:
        return None
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
        "## MLLM-CompBench",
        "",
        f"Accuracy (%) per column of the paper's Table 2 (attribute ST FA VA CU WF, existence MB SD, state ST VA, emotion CE FE, temporality SN CC, spatiality ND, quantity VQ, quality QB). {note}",
        "",
        table(header, rows),
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
