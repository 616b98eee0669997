"""VLM-SubtleBench's accuracy tables in the report: by difference type (Table 2), by prompting
strategy (Tables 4 / 12), difference captions (Table 3), the image-order check, and by domain or
source (Tables 10 / 13)."""

from __future__ import annotations

from lmms_comparative.benchmarks.subtlebench.columns import SUBTLEBENCH_REFERENCE, SUBTLEBENCH_TYPES, TABLE2_TASKS
from lmms_comparative.benchmarks.subtlebench.data import BINARY_IMAGE_OPTIONS
from lmms_comparative.metrics import aggregate
from lmms_comparative.metrics.bootstrap import bootstrap_ci
from lmms_comparative.record import Benchmark
from lmms_comparative.reportlib.cells import (
    SAMPLES_NEEDED,
    captioned,
    cell,
    family_prefixes,
    interval_note,
    reference_rows,
)
from lmms_comparative.reportlib.marks import Marks, with_skips
from lmms_comparative.reportlib.runs import Run

STRATEGIES = {
    "subtlebench": "Standard",
    "subtlebench_reasoning": "Reasoning",
    "subtlebench_twostep": "Two-Step Reasoning",
    "subtlebench_langonly": "Language-only (Table 9)",
    "subtlebench_concat": "Concatenation",
    "subtlebench_grid": "Grid",
    "subtlebench_grid_paper": "Grid (paper's overlay)",
    "subtlebench_overlap": "Overlap",
    "subtlebench_subtract": "Subtraction",
    "subtlebench_highlight": "Highlight",
}  # the prompting strategies of the paper's Table 4 / Table 12, by task family


def main_table(benchmark: Benchmark, runs: list[Run]) -> list[str]:
    rows = reference_rows(SUBTLEBENCH_REFERENCE)
    marks = Marks(benchmark)
    for run in runs:
        cells = [marks.name(run, TABLE2_TASKS)]
        items_all = []
        for key, _ in SUBTLEBENCH_TYPES:
            task = f"subtlebench_{key}"
            items = run.per_item(task)
            items_all += items or []
            cells.append(
                with_skips(cell(run.value(task, "accuracy"), bootstrap_ci(items) if items else None), run, [task])
            )
        avg = run.value("subtlebench", "accuracy")
        cells.append(
            with_skips(
                cell(avg, bootstrap_ci(items_all) if items_all and avg is not None else None), run, ["subtlebench"]
            )
        )
        rows.append(cells)
        chance = [run.value(f"subtlebench_{k}", "chance") for k, _ in SUBTLEBENCH_TYPES] + [
            run.value("subtlebench", "chance")
        ]
        rows.append([f"chance on these items ({run.name})"] + [cell(c) for c in chance])
    note = interval_note(
        rows,
        "± the half-width of a 95% bootstrap interval over items (an interval that ± would carry past 0 or 100 is "
        "printed as its range).",
        SAMPLES_NEEDED,
    )
    return captioned(
        f"Accuracy (%) by difference type, paper Table 2. {note}",
        ["Model"] + [c for _, c in SUBTLEBENCH_TYPES] + ["AVG"],
        rows,
        key="subtlebench_table2",
        title="VLM-SubtleBench: accuracy by difference type (Table 2)",
        marks=marks,
    )


def strategy_table(benchmark: Benchmark, runs: list[Run]) -> list[str]:
    """A row per run and prompting strategy, the ten types and AVG (paper Table 4 / Table 12)."""
    codes = [k for k, _ in SUBTLEBENCH_TYPES]
    rows = []
    marks = Marks(benchmark)
    for run in runs:
        families = [f for f in family_prefixes(run, codes, "subtlebench") if f in STRATEGIES]
        if families == ["subtlebench"] or not families:
            continue
        for family in families:
            tasks = [f"{family}_{k}" for k in codes]
            values = [with_skips(cell(run.value(t, "accuracy"), _ci(run, t)), run, [t]) for t in tasks] + [
                with_skips(cell(run.value(family, "accuracy")), run, [family])
            ]
            rows.append([marks.name(run, tasks + [family]), STRATEGIES[family]] + values)
        chance = [run.value(f"{families[0]}_{k}", "chance") for k in codes] + [run.value(families[0], "chance")]
        rows.append([f"chance on these items ({run.name})", "-"] + [cell(c) for c in chance])
    if not rows:
        return []
    note = interval_note(rows, "± the half-width of a 95% bootstrap interval over items.", SAMPLES_NEEDED)
    return captioned(
        "Prompting strategies (paper Table 4 / Table 12): accuracy (%) by difference type and AVG, one row per "
        f"strategy a run has, then the paper's rows. {note}",
        ["Model", "Strategy"] + [c for _, c in SUBTLEBENCH_TYPES] + ["AVG"],
        rows + _paper_strategy_rows(benchmark),
        key="subtlebench_strategies",
        title="VLM-SubtleBench: prompting strategies (Tables 4 and 12)",
        marks=marks,
    )


def _paper_strategy_rows(benchmark: Benchmark) -> list[list[str]]:
    """The paper's strategy rows (Table 4: GPT-5-main; Table 12: Qwen2.5-VL-72B, no AVG printed),
    a row per model and strategy ("Standard" where the paper names none), unless the report
    shows no paper rows."""
    from lmms_comparative.reportlib.paper import shown_paper_rows

    if shown_paper_rows() == "none":
        return []
    codes = [k for k, _ in SUBTLEBENCH_TYPES] + ["avg"]
    rows = []
    for key in ("table4", "table12"):
        spec = benchmark.paper()["tables"].get(key)
        if not spec:
            continue
        for name, values in spec["rows"].items():
            if name in spec.get("reference", ()) or "Fine-tuned" in name:
                continue
            model, _, strategy = name.partition(" / ")
            by_column = dict(zip(spec["columns"], values))
            rows.append(
                [f"{model} ({spec['source'].split(', ')[-1]})", strategy or "Standard"]
                + ["-" if by_column.get(c) is None else f"{by_column[c]:.1f}" for c in codes]
            )
    return rows


def _ci(run: Run, task: str):
    items = run.per_item(task)
    return bootstrap_ci(items) if items else None


def caption_table(benchmark: Benchmark, runs: list[Run]) -> list[str]:
    """Difference captions (paper Table 3): SBERT similarity (CSS) and the LLM judge's accuracy."""
    marks, task = Marks(benchmark), ["subtlebench_caption"]
    rows = [
        [
            marks.name(run, task),
            with_skips(cell(run.value("subtlebench_caption", "css"), scale=1.0, digits=2), run, task),
            cell(run.value("subtlebench_caption", "judge_accuracy")),
            str(run.mapping("subtlebench_caption", "counts").get("n", "-")),
        ]
        for run in runs
        if run.row("subtlebench_caption")
    ]
    return captioned(
        "Difference captions (`subtlebench_caption`, paper Table 3): caption similarity score (CSS, cosine, as the "
        "paper prints it) and judge accuracy (%).",
        ["Model", "CSS", "Judge accuracy", "Items"],
        rows,
        key="subtlebench_captions",
        title="VLM-SubtleBench: difference captions (Table 3)",
        marks=marks,
    )


def order_table(benchmark: Benchmark, runs: list[Run]) -> list[str]:
    marks = Marks(benchmark)
    order_rows = [
        [marks.name(run, ["subtlebench_swap"] + TABLE2_TASKS[:-1])] + row[1:]
        for run in runs
        for row in _image_order_rows(run)
    ]
    return captioned(
        'Image-order check (`subtlebench_swap`): the "first image" / "second image" items asked again with the images '
        "swapped. "
        "Consistent: both orders answered and the answers differ (the right behaviour). Answered first: share of "
        '"first image" answers; '
        "a model without position bias tracks the truth in both orders (%).",
        [
            "Model",
            "Type",
            "Items",
            "Acc original",
            "Acc swapped",
            "Consistent",
            "Answered first (orig / swap)",
            "Truly first (orig / swap)",
        ],
        order_rows,
        key="subtlebench_image_order",
        title="VLM-SubtleBench: image-order check",
        marks=marks,
    )


def breakdown_table(benchmark: Benchmark, runs: list[Run], metric: str, field: str, title: str) -> list[str]:
    """Accuracy (%) per domain or source of the standard-prompt group, with the chance row of each
    run's own items (from its samples: 1 / the options of each item)."""
    keys = sorted({k for run in runs for k in run.mapping("subtlebench", metric)})
    if not keys:
        return []
    rows = []
    marks = Marks(benchmark)
    for run in runs:
        breakdown = run.mapping("subtlebench", metric)
        if not breakdown:
            continue
        rows.append([marks.name(run, ["subtlebench"])] + [cell(breakdown.get(k, {}).get("accuracy")) for k in keys])
        samples = [
            s["accuracy"]
            for k, _ in SUBTLEBENCH_TYPES
            for s in run.samples.get(f"subtlebench_{k}", [])
            if isinstance(s.get("accuracy"), dict) and s["accuracy"].get("n_options")
        ]
        if samples:
            rows.append(
                [f"chance on these items ({run.name})"]
                + [cell(aggregate.chance_accuracy([s for s in samples if s.get(field) == k], True)) for k in keys]
            )
    return captioned(
        f"{title}: accuracy (%) of the standard prompt.",
        ["Model"] + keys,
        rows,
        key=f"subtlebench_{metric}",
        title=f"VLM-SubtleBench: {title}",
        marks=marks,
    )


def _image_order_rows(run: Run) -> list[list[str]]:
    swapped = {
        s["accuracy"]["item_id"]: s["accuracy"]
        for s in run.samples.get("subtlebench_swap", [])
        if isinstance(s.get("accuracy"), dict)
    }
    if not swapped:
        if run.row("subtlebench_swap"):  # scores without samples: the swapped order alone
            return [[run.name, "all", "-", "-", cell(run.value("subtlebench_swap", "accuracy")), "-", "-", "-"]]
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
        pair = lambda a, b: f"{cell(a)} / {cell(b)}"  # noqa: E731
        truth_orig = share(orig_items, "answer_text")
        rows.append([run.name, category, str(len(ids)), cell(aggregate.accuracy(orig_items)),
                     cell(aggregate.accuracy(swap_items)), cell(consistent),
                     pair(share(orig_items, "picked"), share(swap_items, "picked")),
                     pair(truth_orig, share(swap_items, "answer_text"))])  # fmt: skip
    return rows
