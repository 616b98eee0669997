"""VLM-SubtleBench in the report: Table 2 (types, AVG), the image-order check, Table 10 (domains), the run summary and charts."""

from __future__ import annotations

from pathlib import Path

from lmms_comparative.benchmarks.subtlebench.columns import SUBTLEBENCH_REFERENCE, SUBTLEBENCH_TYPES, TABLE2_TASKS
from lmms_comparative.benchmarks.subtlebench.data import BINARY_IMAGE_OPTIONS
from lmms_comparative.benchmarks.subtlebench.facts import FACTS as BENCHMARK
from lmms_comparative.data.generated import FIXTURE, SYNTHETIC
from lmms_comparative.metrics import aggregate
from lmms_comparative.metrics.bootstrap import bootstrap_ci
from lmms_comparative.provenance import KEY
from lmms_comparative.record import Headline, ReportPart
from lmms_comparative.reportlib.cells import (
    SAMPLES_NEEDED,
    cell,
    family_prefixes,
    interval_note,
    reference_rows,
    table,
    text_table,
    unscored_notes,
)
from lmms_comparative.reportlib.marks import Marks, with_skips
from lmms_comparative.reportlib.runs import Run

SUBTLEBENCH_DOMAINS = [
    ("natural", "Natural"),
    ("game", "Game"),
    ("industry", "Industry"),
    ("aerial", "Aerial"),
    ("synthetic", "Synthetic"),
    ("medical", "Medical"),
]


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


def _has_any(run: Run) -> bool:
    rows = {**run.results.get("results", {}), **run.results.get("groups", {})}
    return any(t == "subtlebench" or t.startswith("subtlebench_") for t in rows)


def section(runs: list[Run]) -> str | None:
    """Every SubtleBench family a run has: Table 2 (the standard prompt), the strategies (Table 4 /
    12), difference captions (Table 3), the image-order check, domains (Table 10), sources (Table 13)."""
    runs = [r for r in runs if _has_any(r)]
    if not runs:
        return None
    out = ["## VLM-SubtleBench"]
    made = {r.name: _generated(r) for r in runs}
    synthetic = [name for name, found in made.items() if found == SYNTHETIC]
    fixture = [name for name, found in made.items() if found == FIXTURE]
    if synthetic:
        out += [
            "",
            f"**Synthetic items.** {_names(synthetic)} scored pairs generated here (`lmms-comparative synthetic`, the paper's five synthetic difference types), not the released benchmark: their numbers are not comparable with the paper's rows, and the chance row under each run is the level to read them against.",
        ]
    if fixture:
        out += [
            "",
            f"**Fixture items.** {_names(fixture)} scored the small test copy that `lmms-comparative fixture subtlebench` writes (drawn shapes in the release's layout, a few items per type), not the released benchmark: their numbers test the pipeline and are not comparable with the paper's rows.",
        ]
    main = [r for r in runs if any(r.row(f"subtlebench_{k}") for k, _ in SUBTLEBENCH_TYPES)]
    if main:
        out += ["", _main_table(main)]
        no_avg = [r.name for r in main if r.value("subtlebench", "accuracy") is None]
        if no_avg:
            out += [
                "",
                f"AVG is empty for {_names(no_avg, start=False)}: it is the `subtlebench` group's accuracy over all ten types, and the run did not include that group (run `--tasks subtlebench` for it).",
            ]
    if synthetic or fixture:
        out += ["", WHAT_NEXT]
    out += (
        _strategy_table(runs)
        + _caption_table(runs)
        + _order_table(runs)
        + _breakdown_table(runs, "by_domain", "domain", "By domain (paper Table 10)")
        + _breakdown_table(runs, "by_source", "source", "By source dataset (paper Table 13)")
    )
    out += unscored_notes(runs, "subtlebench")
    return "\n".join(out)


WHAT_NEXT = (
    "**What next.** Run your own model on the released items (fetched from the hub on first use, "
    "or set `SUBTLEBENCH_ROOT` to a local copy): `lmms-eval --model qwen2_5_vl --model_args "
    "pretrained=Qwen/Qwen2.5-VL-7B-Instruct --tasks subtlebench --output_path results/ --log_samples`, "
    "then `lmms-comparative report results/ -o report/` sets it among the paper's models. The other "
    "benchmarks and their data are in the README's task table."
)


def _generated(run: Run) -> str | None:
    """What made the items the run scored, where this package did: ``synthetic`` (``lmms-comparative
    synthetic``) or ``fixture`` (``lmms-comparative fixture``), from the data's marker in the run's
    record (``data/generated.py``); None for a copy of the release. The release has a synthetic
    domain of its own, so the items' domain does not tell. A record from before the marker: the
    sources the two writers name (``synthetic_<type>``, ``fixture_<domain>``)."""
    record = run.results.get(KEY) or {}
    for task, entry in (record.get("tasks") or {}).items():
        found = ((entry or {}).get("data") or {}).get("generated") if BENCHMARK.owns_task(task) else None
        if found:
            return found.get("generated")
    sources = {s for k, _ in SUBTLEBENCH_TYPES for s in run.mapping(f"subtlebench_{k}", "by_source")}
    for kind in (SYNTHETIC, FIXTURE):
        if sources and all(s.startswith(f"{kind}_") for s in sources):
            return kind
    return None


def _names(names: list[str], start: bool = True) -> str:
    word = "run " if len(names) == 1 else "runs "
    return (word.capitalize() if start else word) + ", ".join(f"`{n}`" for n in names)


def _main_table(runs: list[Run]) -> str:
    rows = reference_rows(SUBTLEBENCH_REFERENCE)
    marks = Marks(BENCHMARK)
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
        "± the half-width of a 95% bootstrap interval over items (an interval that ± would carry past 0 or 100 is printed as its range).",
        SAMPLES_NEEDED,
    )
    return "\n".join(
        [
            f"Accuracy (%) by difference type, paper Table 2. {note}",
            "",
            table(
                ["Model"] + [c for _, c in SUBTLEBENCH_TYPES] + ["AVG"],
                rows,
                key="subtlebench_table2",
                title="VLM-SubtleBench: accuracy by difference type (Table 2)",
                marks=marks,
            ),
        ]
    )


def _strategy_table(runs: list[Run]) -> list[str]:
    """A row per run and prompting strategy, the ten types and AVG (paper Table 4 / Table 12)."""
    codes = [k for k, _ in SUBTLEBENCH_TYPES]
    rows = []
    marks = Marks(BENCHMARK)
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
    return [
        "",
        f"Prompting strategies (paper Table 4 / Table 12): accuracy (%) by difference type and AVG, one row per strategy a run has, then the paper's rows. {note}",
        "",
        table(
            ["Model", "Strategy"] + [c for _, c in SUBTLEBENCH_TYPES] + ["AVG"],
            rows + _paper_strategy_rows(),
            key="subtlebench_strategies",
            title="VLM-SubtleBench: prompting strategies (Tables 4 and 12)",
            marks=marks,
        ),
    ]


def _paper_strategy_rows() -> list[list[str]]:
    """The paper's strategy rows (Table 4: GPT-5-main; Table 12: Qwen2.5-VL-72B, no AVG printed),
    a row per model and strategy ("Standard" where the paper names none), unless the report
    shows no paper rows."""
    from lmms_comparative.reportlib.paper import shown_paper_rows

    if shown_paper_rows() == "none":
        return []
    codes = [k for k, _ in SUBTLEBENCH_TYPES] + ["avg"]
    rows = []
    for key in ("table4", "table12"):
        spec = BENCHMARK.paper()["tables"].get(key)
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


def _caption_table(runs: list[Run]) -> list[str]:
    """Difference captions (paper Table 3): SBERT similarity (CSS) and the LLM judge's accuracy."""
    marks, task = Marks(BENCHMARK), ["subtlebench_caption"]
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
    if not rows:
        return []
    return [
        "",
        "Difference captions (`subtlebench_caption`, paper Table 3): caption similarity score (CSS, cosine, as the paper prints it) and judge accuracy (%).",
        "",
        table(
            ["Model", "CSS", "Judge accuracy", "Items"],
            rows,
            key="subtlebench_captions",
            title="VLM-SubtleBench: difference captions (Table 3)",
            marks=marks,
        ),
    ]


def _order_table(runs: list[Run]) -> list[str]:
    marks = Marks(BENCHMARK)
    order_rows = [
        [marks.name(run, ["subtlebench_swap"] + TABLE2_TASKS[:-1])] + row[1:]
        for run in runs
        for row in _image_order_rows(run)
    ]
    if not order_rows:
        return []
    return [
        "",
        'Image-order check (`subtlebench_swap`): the "first image" / "second image" items asked again with the images swapped. '
        'Consistent: both orders answered and the answers differ (the right behaviour). Answered first: share of "first image" answers; '
        "a model without position bias tracks the truth in both orders (%).",
        "",
        table(
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
        ),
    ]


def _breakdown_table(runs: list[Run], metric: str, field: str, title: str) -> list[str]:
    """Accuracy (%) per domain or source of the standard-prompt group, with the chance row of each
    run's own items (from its samples: 1 / the options of each item)."""
    keys = sorted({k for run in runs for k in run.mapping("subtlebench", metric)})
    if not keys:
        return []
    rows = []
    marks = Marks(BENCHMARK)
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
    return [
        "",
        f"{title}: accuracy (%) of the standard prompt.",
        "",
        table(["Model"] + keys, rows, key=f"subtlebench_{metric}", title=f"VLM-SubtleBench: {title}", marks=marks),
    ]


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
        rows.append([run.name, category, str(len(ids)), cell(aggregate.accuracy(orig_items)), cell(aggregate.accuracy(swap_items)), cell(consistent),
                     pair(share(orig_items, "picked"), share(swap_items, "picked")), pair(truth_orig, share(swap_items, "answer_text"))])  # fmt: skip
    return rows


def summary(run: Run) -> list[str]:
    codes = [k for k, _ in SUBTLEBENCH_TYPES]
    prefixes = family_prefixes(run, codes, "subtlebench")
    if not prefixes:
        extras = _extras(run)
        return ["VLM-SubtleBench"] + extras if extras else []
    rows = [
        [p] + [cell(run.value(f"{p}_{k}", "accuracy")) for k in codes] + [cell(run.value(p, "accuracy"))]
        for p in prefixes
    ]
    chance = [run.value(f"{prefixes[0]}_{k}", "chance") for k in codes] + [run.value(prefixes[0], "chance")]
    rows.append(["chance on these items"] + [cell(c) for c in chance])
    lines = ["VLM-SubtleBench: accuracy (%) by difference type and AVG (paper Table 2)"]
    lines += text_table(["task"] + [label for _, label in SUBTLEBENCH_TYPES] + ["AVG"], rows)
    for p in prefixes:
        domains = [(label, run.value(p, f"accuracy_{key}")) for key, label in SUBTLEBENCH_DOMAINS]
        if any(isinstance(v, float) for _, v in domains):
            lines.append(
                f"{p} by domain (Table 10): "
                + ", ".join(f"{label} {cell(v)}" for label, v in domains if isinstance(v, float))
            )
    return lines + _extras(run)


def _extras(run: Run) -> list[str]:
    lines = []
    if run.row("subtlebench_swap"):
        choice = run.mapping("subtlebench_swap", "image_choice")
        lines.append(
            f'Image-order check (subtlebench_swap): accuracy {cell(run.value("subtlebench_swap", "accuracy"))}, answered "first image" {cell(choice.get("answered_first"))} where it is right for {cell(choice.get("truly_first"))}'
        )
    if run.row("subtlebench_caption"):
        lines.append(
            f"Difference captions (subtlebench_caption): CSS {cell(run.value('subtlebench_caption', 'css'))}, judge accuracy {cell(run.value('subtlebench_caption', 'judge_accuracy'))}"
        )
    return lines


def charts(runs: list[Run], out: Path) -> list[Path]:
    from lmms_comparative.benchmarks.subtlebench.charts import subtlebench_chart, synthetic_heatmaps

    return [
        p
        for p in (
            subtlebench_chart(runs, out / "subtlebench_types.png"),
            synthetic_heatmaps(runs, out / "subtlebench_synthetic_difficulty.png"),
        )
        if p
    ]


def measure(run: Run, table_id: str, column: str):
    """(value, 95% interval) of a run in a column of the paper's tables, as the paper prints it:
    accuracies x100 (Tables 2 and 10), CSS as a fraction and judge accuracy x100 (Table 3).
    (None, None) where the run has no such value; the strategy tables (4, 12) hold a row per
    model and strategy, so a run is shown in the report's own strategy table instead."""
    codes = [k for k, _ in SUBTLEBENCH_TYPES]
    if table_id == "table2" and (column in codes or column == "avg"):
        task = f"subtlebench_{column}" if column in codes else "subtlebench"
        items = (
            run.per_item(task)
            if column in codes
            else [x for k in codes for x in (run.per_item(f"subtlebench_{k}") or [])]
        )
        value = run.value(task, "accuracy")
        return _percent(value, bootstrap_ci(items) if items and isinstance(value, float) else None)
    if table_id == "table10":
        return _percent(run.value("subtlebench", f"accuracy_{column}"), None)
    if table_id == "table3" and column == "css":
        value = run.value("subtlebench_caption", "css")
        return (value, None) if isinstance(value, float) and value == value else (None, None)
    if table_id == "table3" and column == "judge_accuracy":
        return _percent(run.value("subtlebench_caption", "judge_accuracy"), None)
    return None, None


def _percent(value, ci):
    if not isinstance(value, (int, float)) or value != value:
        return None, None
    return value * 100, (ci[0] * 100, ci[1] * 100) if ci else None


# The first page's value: Table 2's AVG; a run without the group shows each type it has.
HEADLINES = (
    Headline("table2", "avg", "AVG", lambda run: "subtlebench", lambda run, column: f"subtlebench_{column}", str.upper),
)

PART = ReportPart(headlines=HEADLINES, section=section, summary=summary, charts=charts, measure=measure)
