"""VLM-SubtleBench in the report: the section (what made the items, then the tables of
``accuracy_tables.py``: Table 2 by type and AVG, the strategies, captions, the image-order check,
Tables 10 and 13 by domain and source), the run summary, charts and the paper's measures."""

from __future__ import annotations

from pathlib import Path

from lmms_comparative.benchmarks.subtlebench import accuracy_tables
from lmms_comparative.benchmarks.subtlebench.columns import SUBTLEBENCH_TYPES
from lmms_comparative.data.generated import FIXTURE, SYNTHETIC
from lmms_comparative.metrics.bootstrap import bootstrap_ci
from lmms_comparative.provenance import KEY
from lmms_comparative.record import Benchmark, Headline, ReportPart
from lmms_comparative.reportlib.cells import (
    cell,
    family_prefixes,
    text_table,
    unscored_notes,
)
from lmms_comparative.reportlib.runs import Run
from lmms_comparative.tasklib.report_part import report_part

SUBTLEBENCH_DOMAINS = [
    ("natural", "Natural"),
    ("game", "Game"),
    ("industry", "Industry"),
    ("aerial", "Aerial"),
    ("synthetic", "Synthetic"),
    ("medical", "Medical"),
]


def _has_any(run: Run) -> bool:
    rows = {**run.results.get("results", {}), **run.results.get("groups", {})}
    return any(t == "subtlebench" or t.startswith("subtlebench_") for t in rows)


def section(benchmark: Benchmark, runs: list[Run]) -> str | None:
    """Every SubtleBench family a run has: Table 2 (the standard prompt), the strategies (Table 4 /
    12), difference captions (Table 3), the image-order check, domains (Table 10), sources (Table 13)."""
    runs = [r for r in runs if _has_any(r)]
    if not runs:
        return None
    out = ["## VLM-SubtleBench"]
    made = {r.name: _generated(benchmark, r) for r in runs}
    synthetic = [name for name, found in made.items() if found == SYNTHETIC]
    fixture = [name for name, found in made.items() if found == FIXTURE]
    if synthetic:
        out += [
            "",
            f"**Synthetic items.** {_names(synthetic)} scored pairs generated here (`lmms-comparative synthetic`, the "
            "paper's five synthetic difference types), not the released benchmark: their numbers are not comparable "
            "with the paper's rows, and the chance row under each run is the level to read them against.",
        ]
    if fixture:
        out += [
            "",
            f"**Fixture items.** {_names(fixture)} scored the small test copy that `lmms-comparative fixture "
            "subtlebench` writes (drawn shapes in the release's layout, a few items per type), not the released "
            "benchmark: their numbers test the pipeline and are not comparable with the paper's rows.",
        ]
    main = [r for r in runs if any(r.row(f"subtlebench_{k}") for k, _ in SUBTLEBENCH_TYPES)]
    if main:
        out += accuracy_tables.main_table(benchmark, main)
        no_avg = [r.name for r in main if r.value("subtlebench", "accuracy") is None]
        if no_avg:
            out += [
                "",
                f"AVG is empty for {_names(no_avg, start=False)}: it is the `subtlebench` group's accuracy over all "
                "ten types, and the run did not include that group (run `--tasks subtlebench` for it).",
            ]
    if synthetic or fixture:
        out += ["", WHAT_NEXT]
    out += (
        accuracy_tables.strategy_table(benchmark, runs)
        + accuracy_tables.caption_table(benchmark, runs)
        + accuracy_tables.order_table(benchmark, runs)
        + accuracy_tables.breakdown_table(benchmark, runs, "by_domain", "domain", "By domain (paper Table 10)")
        + accuracy_tables.breakdown_table(benchmark, runs, "by_source", "source", "By source dataset (paper Table 13)")
    )
    out += unscored_notes(runs, benchmark.name)
    return "\n".join(out)


WHAT_NEXT = (
    "**What next.** Run your own model on the released items (fetched from the hub on first use, "
    "or set `SUBTLEBENCH_ROOT` to a local copy): `lmms-eval --model qwen2_5_vl --model_args "
    "pretrained=Qwen/Qwen2.5-VL-7B-Instruct --tasks subtlebench --output_path results/ --log_samples`, "
    "then `lmms-comparative report results/ -o report/` sets it among the paper's models. The other "
    "benchmarks and their data are in the README's task table."
)


def _generated(benchmark: Benchmark, run: Run) -> str | None:
    """What made the items the run scored, where this package did: ``synthetic`` (``lmms-comparative
    synthetic``) or ``fixture`` (``lmms-comparative fixture``), from the data's marker in the run's
    record (``data/generated.py``); None for a copy of the release. The release has a synthetic
    domain of its own, so the items' domain does not tell. A record from before the marker: the
    sources the two writers name (``synthetic_<type>``, ``fixture_<domain>``)."""
    record = run.results.get(KEY) or {}
    for task, entry in (record.get("tasks") or {}).items():
        found = ((entry or {}).get("data") or {}).get("generated") if benchmark.owns_task(task) else None
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
            f"Image-order check (subtlebench_swap): accuracy {cell(run.value('subtlebench_swap', 'accuracy'))}, "
            f'answered "first image" {cell(choice.get("answered_first"))} where it is right for '
            f"{cell(choice.get('truly_first'))}"
        )
    if run.row("subtlebench_caption"):
        lines.append(
            f"Difference captions (subtlebench_caption): CSS {cell(run.value('subtlebench_caption', 'css'))}, judge "
            f"accuracy {cell(run.value('subtlebench_caption', 'judge_accuracy'))}"
        )
    return lines


def charts(benchmark: Benchmark, runs: list[Run], out: Path) -> list[Path]:
    from lmms_comparative.benchmarks.subtlebench.charts import subtlebench_chart, synthetic_heatmaps

    return [
        p
        for p in (
            subtlebench_chart(benchmark, runs, out / "subtlebench_types.png"),
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


def part(benchmark: Benchmark) -> ReportPart:
    """The report part, made for the record (``__init__.py``'s loader hands it over)."""
    return report_part(benchmark, section, summary, measure, HEADLINES, charts)
