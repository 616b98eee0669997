"""``lmms-comparative report``: lmms-eval results directories as the papers' own tables and charts.

For each benchmark present in the runs it writes the paper's table layout in Markdown, the paper's
reference rows (chance, human) at the paper's precision beside the models, 95% bootstrap intervals
(± half-width; from the samples logs of ``--log_samples`` runs, or the ``ci95`` metric the task
published) for every number that has per-item values, and PNG charts.
"""

from __future__ import annotations

import glob
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from lmms_comparative.data.subtlebench import BINARY_IMAGE_OPTIONS
from lmms_comparative.metrics import aggregate
from lmms_comparative.metrics.bootstrap import bootstrap_ci, grouped_bootstrap_ci

# ---- the papers' reference rows -----------------------------------------------------------------

SUBTLEBENCH_TYPES = [("at", "AT"), ("st", "ST"), ("em", "EM"), ("tm", "TM"), ("sp", "SP"), ("ex", "EX"), ("qn", "QN"), ("ql", "QL"), ("vp", "VP"), ("ac", "AC")]
# VLM-SubtleBench Table 2.
SUBTLEBENCH_REFERENCE = {
    "Random Guess (paper)": [35.9, 50.0, 50.0, 50.0, 36.6, 23.2, 48.9, 50.0, 42.1, 50.0, 43.3],
    "Human Eval (paper)": [92.0, 93.0, 93.0, 93.0, 95.0, 97.0, 97.0, 99.0, 98.0, 98.0, 95.5],
}
COMPBENCH_COLUMNS = [
    ("attribute_mitstates", "ST"), ("attribute_fashionpedia", "FA"), ("attribute_vaw", "VA"), ("attribute_cub", "CU"), ("attribute_wildfish", "WF"),
    ("existence_magicbrush", "MB"), ("existence_spotdiff", "SD"), ("state_mitstates", "ST"), ("state_vaw", "VA"), ("emotion_celeba", "CE"),
    ("emotion_fer2013", "FE"), ("temporality_soccernet", "SN"), ("temporality_compcars", "CC"), ("spatiality_nyudepth", "ND"), ("quantity_vqav2", "VQ"), ("quality_qbench2", "QB"),
]  # fmt: skip
# MLLM-CompBench Table 2 (the paper has no human row over the sixteen columns).
COMPBENCH_REFERENCE = {"Chance level (paper)": [50.0, 50.0, 50.0, 50.0, 50.0, 8.6, 9.7, 50.0, 50.0, 50.0, 50.0, 50.0, 50.0, 50.0, 33.3, 37.4, 43.1]}
# ViDi: the human study (7 subjects, 10 pairs, the global-setting instruction), paper appendix F
# Table 8 "(avg) Human" (BLEU-1..4, ROUGE-L, CIDEr; CIDEr on the model rows' x100 scale: Table 8's
# "(avg) MLLM" 1.6 is the mean of Table 1's global CIDEr column) and Table 2 "Humans" (judge
# precision, recall, F1: means over the subjects, standard deviations 4.9, 6 and 5.3).
VIDI_REFERENCE = {"Human avg (paper, 10 pairs)": ("global", [35.3, 21.0, 11.5, 6.4, 26.5, 5.4, 77.9, 63.8, 70.1])}
VLM2_SUBTASKS = [("gc_mat", "GC Mat"), ("gc_trk", "GC Trk"), ("oc_cpr", "OC Cpr"), ("oc_cnt", "OC Cnt"), ("oc_grp", "OC Grp"), ("pc_cpr", "PC Cpr"), ("pc_cnt", "PC Cnt"), ("pc_grp", "PC Grp"), ("pc_vid", "PC VID")]
# VLM2-Bench Table 1 (nine subtasks, then Overall: the mean of all nine, VID included, for the human
# and every model row; the chance row, with no VID score, averages eight), printed with the paper's
# two decimals (OC-Cnt 34.88 and PC-Cnt 34.87 differ only there).
VLM2_REFERENCE = {
    "Chance-Level (paper)": [25.00, 25.00, 50.00, 34.88, 25.00, 50.00, 34.87, 25.00, None, 33.72],
    "Human-Level (paper)": [95.06, 98.11, 96.02, 94.23, 91.92, 97.08, 92.87, 91.17, 100.00, 95.16],
}
CAPTIONQA_DOMAINS = [("natural", "Natural"), ("document", "Document"), ("ecommerce", "E-commerce"), ("embodiedai", "Embodied AI")]
VIDI_METRICS = [("bleu1", "BLEU-1"), ("bleu2", "BLEU-2"), ("bleu3", "BLEU-3"), ("bleu4", "BLEU-4"), ("rougeL", "ROUGE-L"), ("cider", "CIDEr")]


@dataclass
class Run:
    name: str
    results: dict
    samples: dict[str, list[dict]] = field(default_factory=dict)

    def row(self, task: str) -> dict:
        return self.results.get("results", {}).get(task) or self.results.get("groups", {}).get(task) or {}

    def value(self, task: str, metric: str):
        return self.row(task).get(f"{metric},none")

    def ci(self, task: str, metric: str) -> tuple[float, float] | None:
        """The (low, high) a task published in its ``ci95`` metric (benchmarks scored after
        generation: CaptionQA, VLM2-Bench, ViDi), or None."""
        found = (self.value(task, "ci95") or {}).get(metric)
        return (found["low"], found["high"]) if isinstance(found, dict) else None

    def per_item(self, task: str, metric: str = "accuracy", key: str = "correct") -> list[float] | None:
        rows = self.samples.get(task)
        if not rows:
            return None
        values = [s.get(metric, {}).get(key) for s in rows]
        return [float(v) for v in values if isinstance(v, (int, float))] or None


class ReportError(Exception):
    """Bad input to the report (a missing folder, no results, an unreadable file): one message."""


def _model_args(results: dict) -> dict[str, str]:
    args = str(results.get("config", {}).get("model_args") or "")
    return dict(part.split("=", 1) if "=" in part else (part, "") for part in args.split(",") if part.strip())


def _run_name(results: dict, path: Path) -> str:
    args = _model_args(results)
    for key in ("pretrained", "model_version", "model"):
        if args.get(key):
            return args[key]
    return str(results.get("config", {}).get("model") or path.parent.name)


def _read_json(path: Path, what: str):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ReportError(f"{path}: not a readable {what} ({exc.__class__.__name__}: {exc})") from None


def _read_samples(path: Path) -> list[dict]:
    rows = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: not a readable samples log ({exc})") from None
    for number, line in enumerate(lines, 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                raise ReportError(f"{path}, line {number}: not a readable samples log line ({exc})") from None
    return rows


def _distinct_names(runs: list[Run], origins: list[tuple[str, Path]]) -> None:
    """Runs sharing a model name are named by what differs: their model_args, else the results
    folder given on the command line, else the results file."""
    by_name: dict[str, list[int]] = {}
    for i, run in enumerate(runs):
        by_name.setdefault(run.name, []).append(i)
    for name, idx in by_name.items():
        if len(idx) < 2:
            continue
        args = [_model_args(runs[i].results) for i in idx]
        keys = sorted({k for a in args for k in a})
        differing = [k for k in keys if len({a.get(k) for a in args}) > 1]
        labels = [", ".join(f"{k}={a[k]}" for k in differing if k in a) for a in args] if differing else [""] * len(idx)
        for attempt in (lambda i: origins[i][0], lambda i: str(origins[i][1])):
            if len(set(labels)) == len(labels):
                break
            labels = [f"{label}, {attempt(i)}" if label else attempt(i) for label, i in zip(labels, idx)]
        if len(set(labels)) < len(labels):  # the same file given twice
            labels = [f"{label}, #{n + 1}" for n, label in enumerate(labels)]
        for label, i in zip(labels, idx):
            runs[i].name = f"{name} ({label})"


def load_runs(paths: list[str]) -> list[Run]:
    """Every ``*_results.json`` under the given directories, with the samples logs beside it."""
    runs: list[Run] = []
    origins: list[tuple[str, Path]] = []
    for base in paths:
        if not os.path.exists(base):
            raise ReportError(f"{base}: no such results folder")
        if not os.path.isdir(base):
            raise ReportError(f"{base}: not a folder (give the --output_path folder of an lmms-eval run)")
        found = sorted(glob.glob(os.path.join(glob.escape(base), "**", "*_results.json"), recursive=True))
        if not found:
            raise ReportError(f"{base}: no lmms-eval *_results.json under this folder")
        for result_file in found:
            path = Path(result_file)
            results = _read_json(path, "lmms-eval results JSON")
            if not isinstance(results, dict) or not isinstance(results.get("results"), dict):
                raise ReportError(f"{path}: not an lmms-eval results JSON (no \"results\" table)")
            prefix = path.name[: -len("_results.json")]
            samples = {}
            for sample_file in sorted(path.parent.glob(f"{glob.escape(prefix)}_samples_*.jsonl")):
                task = sample_file.stem.split("_samples_", 1)[1]
                samples[task] = _read_samples(sample_file)
            runs.append(Run(_run_name(results, path), results, samples))
            origins.append((Path(base).resolve().name or str(base), path.relative_to(base)))
    _distinct_names(runs, origins)
    return runs


# ---- formatting ---------------------------------------------------------------------------------


SHARE = (0.0, 1.0)


def _cell(value, ci=None, scale: float = 100.0, digits: int = 1, bounds: tuple[float, float] | None = SHARE) -> str:
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


def _interval_note(rows: list[list[str]], with_intervals: str, without: str) -> str:
    """The table caption's sentence on intervals: how they were made, or why there are none."""
    return with_intervals if _has_interval(rows) else without


SAMPLES_NEEDED = "No intervals: they are computed from per-item results, which only runs with `--log_samples` write (samples logs beside the results JSON)."
NO_CI95 = "No intervals: these results carry no `ci95` metric (a task publishes it when it scored at least two units)."


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _reference_rows(reference: dict[str, list], digits: int = 1) -> list[list[str]]:
    """A paper's reference rows, printed at the paper's precision."""
    return [[name] + [("-" if v is None else f"{v:.{digits}f}") for v in values] for name, values in reference.items()]


# ---- one section per benchmark ------------------------------------------------------------------


def subtlebench_section(runs: list[Run]) -> str | None:
    runs = [r for r in runs if any(r.row(f"subtlebench_{k}") for k, _ in SUBTLEBENCH_TYPES)]
    if not runs:
        return None
    rows = _reference_rows(SUBTLEBENCH_REFERENCE)
    for run in runs:
        cells = [run.name]
        items_all = []
        for key, _ in SUBTLEBENCH_TYPES:
            task = f"subtlebench_{key}"
            items = run.per_item(task)
            items_all += items or []
            cells.append(_cell(run.value(task, "accuracy"), bootstrap_ci(items) if items else None))
        avg = run.value("subtlebench", "accuracy")
        cells.append(_cell(avg, bootstrap_ci(items_all) if items_all and avg is not None else None))
        rows.append(cells)
        chance = [run.value(f"subtlebench_{k}", "chance") for k, _ in SUBTLEBENCH_TYPES] + [run.value("subtlebench", "chance")]
        rows.append([f"chance on these items ({run.name})"] + [_cell(c) for c in chance])
    note = _interval_note(rows, "± the half-width of a 95% bootstrap interval over items (an interval that ± would carry past 0 or 100 is printed as its range).", SAMPLES_NEEDED)
    out = ["## VLM-SubtleBench", "", f"Accuracy (%). {note}", "", _table(["Model"] + [c for _, c in SUBTLEBENCH_TYPES] + ["AVG"], rows)]
    order_rows = [row for run in runs for row in _image_order_rows(run)]
    if order_rows:
        out += [
            "",
            "Image-order check (`subtlebench_swap`): the \"first image\" / \"second image\" items asked again with the images swapped. "
            "Consistent: both orders answered and the answers differ (the right behaviour). Answered first: share of \"first image\" answers; "
            "a model without position bias tracks the truth in both orders (%).",
            "",
            _table(["Model", "Type", "Items", "Acc original", "Acc swapped", "Consistent", "Answered first (orig / swap)", "Truly first (orig / swap)"], order_rows),
        ]
    domains = sorted({d for run in runs for d in (run.value("subtlebench", "by_domain") or {})})
    if domains:
        drows = [[run.name] + [_cell((run.value("subtlebench", "by_domain") or {}).get(d, {}).get("accuracy")) for d in domains] for run in runs]
        out += ["", "By domain (paper Table 10):", "", _table(["Model"] + domains, drows)]
    return "\n".join(out)


def _image_order_rows(run: Run) -> list[list[str]]:
    swapped = {s["accuracy"]["item_id"]: s["accuracy"] for s in run.samples.get("subtlebench_swap", []) if isinstance(s.get("accuracy"), dict)}
    if not swapped:
        if run.row("subtlebench_swap"):  # scores without samples: the swapped order alone
            return [[run.name, "all", "-", "-", _cell(run.value("subtlebench_swap", "accuracy")), "-", "-", "-"]]
        return []
    original = {}
    for key, _ in SUBTLEBENCH_TYPES:
        for s in run.samples.get(f"subtlebench_{key}", []):
            if isinstance(s.get("accuracy"), dict) and s["accuracy"].get("item_id") in swapped:
                original[s["accuracy"]["item_id"]] = s["accuracy"]

    def share(items, field):
        return aggregate.share_answering(items, field, BINARY_IMAGE_OPTIONS[0])

    rows = []
    categories = sorted({s["category"] for s in swapped.values()})
    for category in categories + ["all"]:
        ids = [k for k, s in swapped.items() if category in ("all", s["category"])]
        swap_items, orig_items = [swapped[k] for k in ids], [original[k] for k in ids if k in original]
        both = [k for k in ids if k in original and swapped[k].get("picked") and original[k].get("picked")]
        consistent = sum(swapped[k]["picked"] != original[k]["picked"] for k in both) / len(both) if both else None
        pair = lambda a, b: f"{_cell(a)} / {_cell(b)}"  # noqa: E731
        truth_orig = share(orig_items, "answer_text")
        rows.append([run.name, category, str(len(ids)), _cell(aggregate.accuracy(orig_items)), _cell(aggregate.accuracy(swap_items)), _cell(consistent),
                     pair(share(orig_items, "picked"), share(swap_items, "picked")), pair(truth_orig, share(swap_items, "answer_text"))])  # fmt: skip
    return rows


def compbench_section(runs: list[Run]) -> str | None:
    runs = [r for r in runs if any(r.row(f"compbench_{c}") for c, _ in COMPBENCH_COLUMNS)]
    if not runs:
        return None
    rows = _reference_rows(COMPBENCH_REFERENCE)
    bias_rows = []
    for run in runs:
        groups = [run.per_item(f"compbench_{c}") or [] for c, _ in COMPBENCH_COLUMNS]
        cells = [run.name] + [_cell(run.value(f"compbench_{c}", "accuracy"), bootstrap_ci(g) if g else None) for (c, _), g in zip(COMPBENCH_COLUMNS, groups)]
        cells.append(_cell(run.value("compbench", "accuracy"), grouped_bootstrap_ci(groups)))
        rows.append(cells)
        for c, label in COMPBENCH_COLUMNS:
            bias = run.value(f"compbench_{c}", "left_bias")
            if bias:
                bias_rows.append([run.name, f"{c} ({label})", _cell(bias["predicted_left"]), _cell(bias["true_left"]), _cell(bias["gap"])])
    header = ["Model"] + [label for _, label in COMPBENCH_COLUMNS] + ["Avg"]
    note = _interval_note(rows, "± the half-width of a 95% bootstrap interval over items (Avg: each column resampled on its own).", SAMPLES_NEEDED)
    out = ["## MLLM-CompBench", "", f"Accuracy (%) per column of the paper's Table 2 (attribute ST FA VA CU WF, existence MB SD, state ST VA, emotion CE FE, temporality SN CC, spatiality ND, quantity VQ, quality QB). {note}", "", _table(header, rows)]
    if bias_rows:
        out += ["", "Position bias: share of \"Left\" answers against the share of \"Left\" answers in the ground truth (%).", "", _table(["Model", "Column", "Answered Left", "Truly Left", "Gap"], bias_rows)]
    return "\n".join(out)


def vlm2bench_section(runs: list[Run]) -> str | None:
    runs = [r for r in runs if any(r.row(f"vlm2bench_{t}") for t, _ in VLM2_SUBTASKS)]
    if not runs:
        return None
    rows = _reference_rows(VLM2_REFERENCE, digits=2)
    human = VLM2_REFERENCE["Human-Level (paper)"][-1]
    human_image = sum(VLM2_REFERENCE["Human-Level (paper)"][:8]) / 8  # the human row over the eight image subtasks
    for run in runs:
        cells = [run.name] + [_cell(run.value(f"vlm2bench_{t}", "score"), run.ci(f"vlm2bench_{t}", "score"), digits=2) for t, _ in VLM2_SUBTASKS]
        # Like with like: the nine-subtask Overall against the human 95.16, an image-only run's
        # eight-subtask Overall (vlm2bench_image, marked ⁸) against the human mean of those eight.
        group, reference, mark = ("vlm2bench", human, "") if run.value("vlm2bench", "score") is not None else ("vlm2bench_image", human_image, " ⁸")
        overall = run.value(group, "score")
        cells.append(_cell(overall, run.ci(group, "score"), digits=2) + (mark if overall is not None else ""))
        cells.append(f"{overall * 100 - reference:+.2f}" if isinstance(overall, float) else "-")
        rows.append(cells)
        # Acc_num of uniform guessing on this run's own mix of sequence lengths (paper appendix D.1).
        chance = [(run.value(f"vlm2bench_{t}", "counts") or {}).get("chance_acc_num") if t.endswith("_cnt") else None for t, _ in VLM2_SUBTASKS]
        if any(isinstance(c, float) for c in chance):
            rows.append([f"chance on these items ({run.name})"] + [_cell(c, digits=2) for c in chance] + ["-", "-"])
    rows = [r + ([f"{(VLM2_REFERENCE[r[0]][-1] or 0) - human:+.2f}"] if r[0] in VLM2_REFERENCE else []) for r in rows]
    header = ["Model"] + [label for _, label in VLM2_SUBTASKS] + ["Overall", "Δ human"]
    note = _interval_note(rows, "± the half-width of a 95% bootstrap interval (pairs or questions resampled; Overall: a normal interval from the subtasks' standard errors, clipped to 0-100).", NO_CI95)
    return "\n".join(["## VLM²-Bench", "", f"Scores (%) as the paper's Table 1, with its two decimals: pair accuracy (T/F), Acc_num (counting), accuracy (grouping), judge score (VID); Overall is the mean of the nine subtasks (⁸: of the eight image subtasks, from `vlm2bench_image`, and Δ human against the human mean of those eight, 94.56). {note}", "", _table(header, rows)])


def captionqa_section(runs: list[Run]) -> str | None:
    prompts = ["simple", "short", "long", "taxonomy"]
    runs = [r for r in runs if any(r.row(f"captionqa_{p}_{d}") for p in prompts for d, _ in CAPTIONQA_DOMAINS) or r.row("captionqa_image_natural")]
    if not runs:
        return None
    rows = []
    for run in runs:
        for prompt in prompts:
            if not any(run.row(f"captionqa_{prompt}_{d}") for d, _ in CAPTIONQA_DOMAINS):
                continue
            group = f"captionqa_{prompt}"
            domains = [_cell(run.value(f"{group}_{d}", "score"), run.ci(f"{group}_{d}", "score")) for d, _ in CAPTIONQA_DOMAINS]
            rows.append([run.name, prompt, _cell(run.value(group, "score"), run.ci(group, "score"))] + domains)
    note = _interval_note(rows, "± the half-width of a 95% bootstrap interval (images resampled with their questions; Overall: a normal interval from the domains' standard errors, clipped to 0-100).", NO_CI95)
    out = ["## CaptionQA", "", f"Score (%) per domain and Overall (their unweighted mean), paper Table 3. {note}", "", _table(["Model", "Prompt", "Overall"] + [label for _, label in CAPTIONQA_DOMAINS], rows)]
    gap_rows = []
    for run in runs:
        image = [run.value(f"captionqa_image_{d}", "accuracy") for d, _ in CAPTIONQA_DOMAINS]
        if not any(isinstance(v, float) for v in image):
            continue
        for prompt in prompts:
            caption = [run.value(f"captionqa_{prompt}_{d}", "accuracy") for d, _ in CAPTIONQA_DOMAINS]
            if any(isinstance(v, float) for v in caption):
                gaps = [(i - c) if isinstance(i, float) and isinstance(c, float) else None for i, c in zip(image, caption)]
                gap_rows.append([run.name, prompt] + [_cell(g) for g in gaps])
    if gap_rows:
        out += ["", "Caption-vs-image utility gap: QA-on-image accuracy minus QA-on-caption accuracy (points; paper Table 4).", "", _table(["Model", "Prompt"] + [label for _, label in CAPTIONQA_DOMAINS], gap_rows)]
    return "\n".join(out)


def _vidi_scale(run: Run, task: str) -> float:
    """What turns a run's ViDi values into the paper's x100 scale: 1 for results of task version 2
    and later (written on that scale), 100 for version 1 results (fractions)."""
    version = (run.results.get("versions") or {}).get(task)
    return 1.0 if isinstance(version, (int, float)) and version >= 2 else 100.0


def _vidi_cell(run: Run, task: str, metric: str) -> str:
    scale = _vidi_scale(run, task)
    top = (10.0 if metric == "cider" else 1.0) * 100 / scale  # CIDEr-D reaches 10 (1000 x100)
    return _cell(run.value(task, metric), run.ci(task, metric), scale=scale, bounds=(0.0, top))


def vidi_section(runs: list[Run]) -> str | None:
    runs = [r for r in runs if any(r.row(t) for t in ("vidi_granular", "vidi_global", "vidi_granular_avg", "vidi_global_avg"))]
    if not runs:
        return None
    rows = [[name, setting] + [f"{v:.1f}" for v in values] for name, (setting, values) in VIDI_REFERENCE.items()]
    for run in runs:
        for setting in ("granular", "global"):
            task = f"vidi_{setting}_avg" if run.row(f"vidi_{setting}_avg") else f"vidi_{setting}"
            if not run.row(task):
                continue
            judge = [_vidi_cell(run, task, m) for m in ("precision", "recall", "f1")] if setting == "global" else ["-"] * 3
            rows.append([run.name, setting] + [_vidi_cell(run, task, m) for m, _ in VIDI_METRICS] + judge)
    header = ["Model", "Setting"] + [label for _, label in VIDI_METRICS] + ["Judge P", "Judge R", "Judge F1"]
    order_rows = []
    for run in runs:
        for setting in ("granular", "global"):
            original, swapped = f"vidi_{setting}", f"vidi_{setting}_swap"
            if run.row(original) and run.row(swapped):
                deltas = [run.value(swapped, m) - run.value(original, m) if isinstance(run.value(original, m), float) and isinstance(run.value(swapped, m), float) else None for m, _ in VIDI_METRICS]
                order_rows.append([run.name, setting] + [_cell(d, scale=_vidi_scale(run, original), bounds=None) for d in deltas])
    extra = []
    if order_rows:
        extra = ["", "Image-order consistency (paper Table 4's variation): swapped order minus original order, same pairs (points on the same x100 scale).", "", _table(["Model", "Setting"] + [label for _, label in VIDI_METRICS], order_rows)]
    note = _interval_note(rows, "± the half-width of a 95% bootstrap interval over pairs (corpus BLEU recomputed per resample; CIDEr with the full corpus's document frequencies; the average of both orders: a normal interval, clipped to the metric's range).", NO_CI95)
    caption = (
        "Every metric on the paper's scale, x100 (its Tables 1, 2, 4 and 8): BLEU-1..4, ROUGE-L and CIDEr-D (pycocoevalcap's CIDEr-D x100, so 0-1000) "
        "averaged over both image orders where both ran; judge precision, recall, F1 (%) for the global setting. "
        f"{note} The human row is the paper's study of 7 people on 10 of the 200 pairs, global setting (Table 8's average, Table 2's judge scores; "
        "their standard deviations over the subjects, as printed: P 4.9, R 6, F1 5.3)."
    )
    return "\n".join(["## ViDi", "", caption, "", _table(header, rows)] + extra)


SECTIONS = (subtlebench_section, captionqa_section, vlm2bench_section, compbench_section, vidi_section)


# ---- the run log's closing summary --------------------------------------------------------------

SUBTLEBENCH_DOMAINS = [("natural", "Natural"), ("game", "Game"), ("industry", "Industry"), ("aerial", "Aerial"), ("synthetic", "Synthetic"), ("medical", "Medical")]


def _text_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Plain-text columns for a log: the first left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in [header] + rows) for i in range(len(header))]
    return [" ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip() for row in [header] + rows]


def _prefixes(run: Run, names: list[str], base: str) -> list[str]:
    """The task families of a run that have a task ``<prefix>_<name>`` (``subtlebench``,
    ``subtlebench_grid``, ...), the plain one first."""
    rows = {**run.results.get("results", {}), **run.results.get("groups", {})}
    found = {task[: -len(name) - 1] for task in rows for name in names if task.endswith(f"_{name}") and task.startswith(base)}
    return sorted(p for p in found if p == base or p.startswith(base + "_"))


def _subtlebench_summary(run: Run) -> list[str]:
    codes = [k for k, _ in SUBTLEBENCH_TYPES]
    prefixes = _prefixes(run, codes, "subtlebench")
    if not prefixes:
        extras = _subtlebench_extras(run)
        return ["VLM-SubtleBench"] + extras if extras else []
    rows = [[p] + [_cell(run.value(f"{p}_{k}", "accuracy")) for k in codes] + [_cell(run.value(p, "accuracy"))] for p in prefixes]
    chance = [run.value(f"{prefixes[0]}_{k}", "chance") for k in codes] + [run.value(prefixes[0], "chance")]
    rows.append(["chance on these items"] + [_cell(c) for c in chance])
    lines = ["VLM-SubtleBench: accuracy (%) by difference type and AVG (paper Table 2)"]
    lines += _text_table(["task"] + [label for _, label in SUBTLEBENCH_TYPES] + ["AVG"], rows)
    for p in prefixes:
        domains = [(label, run.value(p, f"accuracy_{key}")) for key, label in SUBTLEBENCH_DOMAINS]
        if any(isinstance(v, float) for _, v in domains):
            lines.append(f"{p} by domain (Table 10): " + ", ".join(f"{label} {_cell(v)}" for label, v in domains if isinstance(v, float)))
    return lines + _subtlebench_extras(run)


def _subtlebench_extras(run: Run) -> list[str]:
    lines = []
    if run.row("subtlebench_swap"):
        choice = run.value("subtlebench_swap", "image_choice") or {}
        lines.append(f"Image-order check (subtlebench_swap): accuracy {_cell(run.value('subtlebench_swap', 'accuracy'))}, answered \"first image\" {_cell(choice.get('answered_first'))} where it is right for {_cell(choice.get('truly_first'))}")
    if run.row("subtlebench_caption"):
        lines.append(f"Difference captions (subtlebench_caption): CSS {_cell(run.value('subtlebench_caption', 'css'))}, judge accuracy {_cell(run.value('subtlebench_caption', 'judge_accuracy'))}")
    return lines


def _compbench_summary(run: Run) -> list[str]:
    columns = [c for c, _ in COMPBENCH_COLUMNS]
    prefixes = _prefixes(run, columns, "compbench")
    if not prefixes:
        return []
    rows = [[p] + [_cell(run.value(f"{p}_{c}", "accuracy")) for c in columns] + [_cell(run.value(p, "accuracy"))] for p in prefixes]
    chance = [run.value(f"{prefixes[0]}_{c}", "chance") for c in columns] + [run.value(prefixes[0], "chance")]
    rows.append(["chance"] + [_cell(c) for c in chance])
    return ["MLLM-CompBench: accuracy (%) per column and Avg (paper Table 2)"] + _text_table(["task"] + [label for _, label in COMPBENCH_COLUMNS] + ["Avg"], rows)


def _vlm2bench_summary(run: Run) -> list[str]:
    if not any(run.row(f"vlm2bench_{t}") for t, _ in VLM2_SUBTASKS):
        return []
    group, mark = ("vlm2bench", "") if run.row("vlm2bench") else ("vlm2bench_image", " (8 image subtasks)")
    cells = [_cell(run.value(f"vlm2bench_{t}", "score"), digits=2) for t, _ in VLM2_SUBTASKS] + [_cell(run.value(group, "score"), digits=2)]
    return ["VLM²-Bench: scores (%) per subtask and Overall (paper Table 1)"] + _text_table(["task"] + [label for _, label in VLM2_SUBTASKS] + ["Overall"], [[group + mark] + cells])


def _captionqa_summary(run: Run) -> list[str]:
    rows = []
    for prompt in ("simple", "short", "long", "taxonomy"):
        group = f"captionqa_{prompt}"
        if any(run.row(f"{group}_{d}") for d, _ in CAPTIONQA_DOMAINS):
            rows.append([group + " score", _cell(run.value(group, "score"))] + [_cell(run.value(f"{group}_{d}", "score")) for d, _ in CAPTIONQA_DOMAINS])
    if any(run.row(f"captionqa_image_{d}") for d, _ in CAPTIONQA_DOMAINS):
        rows.append(["captionqa_image accuracy", _cell(run.value("captionqa_image", "accuracy"))] + [_cell(run.value(f"captionqa_image_{d}", "accuracy")) for d, _ in CAPTIONQA_DOMAINS])
    if not rows:
        return []
    return ["CaptionQA: Overall and per domain (%) (paper Table 3)"] + _text_table(["task", "Overall"] + [label for _, label in CAPTIONQA_DOMAINS], rows)


def _vidi_summary(run: Run) -> list[str]:
    rows = []
    for setting in ("granular", "global", "fewshot"):
        task = next((t for t in (f"vidi_{setting}_avg", f"vidi_{setting}", f"vidi_{setting}_swap") if run.row(t)), None)
        if task:
            # Results of the current task version are on the paper's x100 scale already.
            rows.append([task] + [_cell(run.value(task, m), scale=1.0, bounds=None) for m, _ in VIDI_METRICS] + [_cell(run.value(task, m), scale=1.0, bounds=None) for m in ("precision", "recall", "f1")])
    if not rows:
        return []
    return ["ViDi: caption metrics and judge (x100, paper Tables 1 and 2)"] + _text_table(["task"] + [label for _, label in VIDI_METRICS] + ["P", "R", "F1"], rows)


SUMMARIES = (_subtlebench_summary, _captionqa_summary, _vlm2bench_summary, _compbench_summary, _vidi_summary)


def run_summary(results: dict, output_path: str) -> list[str]:
    """A few lines per benchmark of one run, in its paper's layout, for the end of the run log:
    ``results`` maps task and group names to lmms-eval's metric values (``"accuracy,none"``)."""
    run = Run("this run", {"results": dict(results)})
    pointer = f"Full tables with 95% intervals, runs side by side: lmms-comparative report {output_path} -o report/"
    blocks = []
    for summary in SUMMARIES:
        lines = summary(run)
        if lines:
            blocks.append("\n".join(lines + [pointer]))
    return blocks


# ---- charts -------------------------------------------------------------------------------------

CHANCE_COLOUR, HUMAN_COLOUR = "crimson", "black"
# Model colours: the tab10 palette without its red (too near the chance marks) and its grey.
_PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf"]


def model_colours(n: int) -> list[str]:
    """``n`` distinct colours for the models of a chart, none near the chance (crimson) or human
    (black) marks: the palette above, or for more models evenly spaced hues that leave out the reds,
    alternating two brightness levels so that neighbours differ."""
    if n <= len(_PALETTE):
        return _PALETTE[:n]
    import colorsys

    colours = []
    for i in range(n):
        hue = 0.07 + 0.80 * i / n  # 0.07-0.87: orange round to violet, no red
        r, g, b = colorsys.hsv_to_rgb(hue, 0.75 if i % 2 else 0.55, 0.85 if i % 2 else 0.95)
        colours.append(f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}")
    return colours


def subtlebench_chart(runs: list[Run], path: Path) -> Path | None:
    fig = subtlebench_figure(runs)
    if fig is None:
        return None
    import matplotlib.pyplot as plt

    fig.savefig(path)
    plt.close(fig)
    return path


def subtlebench_figure(runs: list[Run]):
    """Accuracy per difference type and AVG (the paper's Table 2 columns), one bar per model, the
    paper's human and chance marks; the legend sits beside the axes, over no bar."""
    runs = [r for r in runs if any(r.row(f"subtlebench_{k}") for k, _ in SUBTLEBENCH_TYPES)]
    if not runs:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    labels = [label for _, label in SUBTLEBENCH_TYPES] + ["AVG"]
    x = np.arange(len(labels), dtype=float)
    x[-1] += 0.5  # AVG set apart from the ten types
    width = 0.8 / len(runs)
    fig, ax = plt.subplots(figsize=(12 + 0.1 * max(0, len(runs) - 4), 4.8), dpi=110)
    for i, (run, colour) in enumerate(zip(runs, model_colours(len(runs)))):
        values = [run.value(f"subtlebench_{k}", "accuracy") for k, _ in SUBTLEBENCH_TYPES] + [run.value("subtlebench", "accuracy")]
        ax.bar(x - 0.4 + width * (i + 0.5), [(v or 0) * 100 for v in values], width, label=run.name, color=colour)
    for name, colour in (("Human Eval (paper)", HUMAN_COLOUR), ("Random Guess (paper)", CHANCE_COLOUR)):
        ax.scatter(x, SUBTLEBENCH_REFERENCE[name], label=name, zorder=3, color=colour, marker="_", s=420, linewidths=2.5)
    ax.axvline((x[-2] + x[-1]) / 2, color="0.6", linewidth=0.8)
    ax.set_xticks(x, labels)
    ax.set_ylim(0, 100)
    ax.set_ylabel("accuracy (%)")
    ax.set_title("VLM-SubtleBench accuracy by difference type (AVG: all items)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


# The two difficulty factors each synthetic type is drawn over (paper §4.4 / Figure 5: object size
# and the size of the change), as the generator records them in generation_info.
HEATMAP_FACTORS = {
    "attribute": ("amount", "object_size"),
    "existence": ("n_shapes", "object_size"),
    "quantity": ("n_shapes", "object_size"),
    "viewpoint": ("amount", "n_shapes"),
    "spatial": ("amount", "object_size"),
}


def difficulty_grid(items: list[dict], x: str, y: str, bins: int = 3):
    """Accuracy over a grid of two factors, each cut at its quantiles: (x edges, y edges,
    accuracy matrix [y, x] with NaN for empty cells, counts matrix)."""
    import numpy as np

    items = [it for it in items if it.get("correct") is not None and isinstance(it["factors"].get(x), (int, float)) and isinstance(it["factors"].get(y), (int, float))]
    if len(items) < 4:
        return None
    xs = np.array([it["factors"][x] for it in items], dtype=float)
    ys = np.array([it["factors"][y] for it in items], dtype=float)
    correct = np.array([it["correct"] for it in items], dtype=float)
    def edges(values):  # quantile cuts; a factor the sweep held fixed is one bin
        cuts = np.unique(np.quantile(values, np.linspace(0, 1, bins + 1)))
        return cuts if len(cuts) > 1 else np.array([cuts[0], cuts[0]])

    x_edges, y_edges = edges(xs), edges(ys)
    xi = np.clip(np.searchsorted(x_edges, xs, side="right") - 1, 0, len(x_edges) - 2)
    yi = np.clip(np.searchsorted(y_edges, ys, side="right") - 1, 0, len(y_edges) - 2)
    counts = np.zeros((len(y_edges) - 1, len(x_edges) - 1))
    hits = np.zeros_like(counts)
    np.add.at(counts, (yi, xi), 1)
    np.add.at(hits, (yi, xi), correct)
    with np.errstate(invalid="ignore"):
        return x_edges, y_edges, hits / counts, counts


def synthetic_heatmaps(runs: list[Run], path: Path) -> Path | None:
    """Accuracy of each model over two difficulty factors of each synthetic type (runs on data from
    ``lmms-comparative synthetic``, whose samples carry the factors)."""
    panels = []
    for run in runs:
        for key, _ in SUBTLEBENCH_TYPES:
            items = [s["accuracy"] for s in run.samples.get(f"subtlebench_{key}", []) if isinstance(s.get("accuracy"), dict) and s["accuracy"].get("factors")]
            by_type: dict[str, list] = {}
            for it in items:
                by_type.setdefault(it["category"], []).append(it)
            for category, group in by_type.items():
                numeric = [k for k, v in group[0]["factors"].items() if isinstance(v, (int, float))]
                x, y = HEATMAP_FACTORS.get(category) or (numeric + [None, None])[:2]
                grid = difficulty_grid(group, x, y) if x and y else None
                if grid:
                    panels.append((run.name, category, x, y, grid))
    if not panels:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    names = list(dict.fromkeys(p[0] for p in panels))
    categories = list(dict.fromkeys(p[1] for p in panels))
    fig, axes = plt.subplots(len(names), len(categories), figsize=(3.4 * len(categories), 3.1 * len(names)), dpi=110, squeeze=False)
    for ax in axes.flat:
        ax.axis("off")
    cmap = matplotlib.colormaps["RdYlGn"].copy()
    cmap.set_bad("lightgray")
    for name, category, x, y, (x_edges, y_edges, acc, counts) in panels:
        ax = axes[names.index(name)][categories.index(category)]
        ax.axis("on")
        ax.imshow(np.ma.masked_invalid(acc * 100), cmap=cmap, vmin=0, vmax=100, origin="lower", aspect="auto")
        for (row, col), n in np.ndenumerate(counts):
            text = f"{acc[row, col] * 100:.0f}%\nn={int(n)}" if n else "-"
            ax.text(col, row, text, ha="center", va="center", fontsize=7)
        label = lambda edges: [f"{a:.3g}-{b:.3g}" for a, b in zip(edges[:-1], edges[1:])]  # noqa: E731
        ax.set_xticks(range(len(x_edges) - 1), label(x_edges), fontsize=6)
        ax.set_yticks(range(len(y_edges) - 1), label(y_edges), fontsize=6)
        ax.set_xlabel(x, fontsize=7)
        ax.set_ylabel(y, fontsize=7)
        ax.set_title(f"{name}: {category}", fontsize=8)
    fig.suptitle("Synthetic SubtleBench: accuracy by difficulty factor", fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def captionqa_radar(runs: list[Run], prompt: str, domain: str, path: Path) -> Path | None:
    task = f"captionqa_{prompt}_{domain}"
    runs = [r for r in runs if r.value(task, "by_category")]
    categories = sorted({c for r in runs for c in r.value(task, "by_category")})
    if len(categories) < 3:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    angles = np.linspace(0, 2 * np.pi, len(categories), endpoint=False).tolist()
    fig, ax = plt.subplots(figsize=(8.5, 6.5), dpi=110, subplot_kw={"polar": True})
    for run, colour in zip(runs, model_colours(len(runs))):
        cats = run.value(task, "by_category")
        values = [(cats.get(c, {}).get("score") or 0) * 100 for c in categories]
        ax.plot(angles + angles[:1], values + values[:1], linewidth=2, label=run.name, color=colour)
        ax.fill(angles + angles[:1], values + values[:1], alpha=0.15, color=colour)
    ax.set_xticks(angles, [c.replace(" ", "\n", 1) for c in categories], fontsize=7)
    ax.set_ylim(0, 100)
    ax.set_title(f"CaptionQA {domain} ({prompt} prompt): score by category")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.08, 1.0))  # beside the plot, over no line
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def write_report(paths: list[str], out_dir: str | Path) -> Path:
    """Write report.md and the charts under ``out_dir``; returns the Markdown file."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ReportError(f"{out}: exists and is not a folder (-o names the folder for report.md and the charts)")
    runs = load_runs(paths)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"{out}: cannot create the report folder ({exc.strerror or exc})") from None
    parts = ["# lmms-comparative report", "", "Runs: " + ", ".join(f"`{r.name}`" for r in runs), ""]
    for section in SECTIONS:
        text = section(runs)
        if text:
            parts += [text, ""]
    charts = [subtlebench_chart(runs, out / "subtlebench_types.png"), synthetic_heatmaps(runs, out / "subtlebench_synthetic_difficulty.png")]
    for prompt in ("simple", "short", "long", "taxonomy"):
        for domain, _ in CAPTIONQA_DOMAINS:
            charts.append(captionqa_radar(runs, prompt, domain, out / f"captionqa_{prompt}_{domain}_radar.png"))
    charts = [c for c in charts if c]
    if charts:
        parts += ["## Charts", ""] + [f"![{c.stem}]({c.name})" for c in charts] + [""]
    report = out / "report.md"
    report.write_text("\n".join(parts), encoding="utf-8")
    return report
