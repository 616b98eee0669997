"""DiffSpot's task files: the tasks of the task table (table.TASKS: all 4,400 pairs, each tier, the
no-diff control), each with its hooks (hooks.py, named here by object);
``python -m lmms_comparative.benchmarks.generate diffspot`` writes them to yaml/."""

from __future__ import annotations

from lmms_comparative.benchmarks.diffspot import hooks
from lmms_comparative.benchmarks.diffspot.table import TASKS, metrics, task_name
from lmms_comparative.tasklib import yamlgen

H = yamlgen.Hooks(hooks)
TEMPLATE = "_default_template_yaml"
# Each task's hooks (hooks.py): its docs, its per-item results, and an aggregation per metric
# (table.metrics, in order).
HOOKS = {
    "": (
        hooks.process_docs_all,
        hooks.process_results_all,
        (
            hooks.aggregate_all_overall,
            hooks.aggregate_all_easy_recall,
            hooks.aggregate_all_medium_recall,
            hooks.aggregate_all_hard_recall,
            hooks.aggregate_all_diff_recall,
            hooks.aggregate_all_nodiff_specificity,
            hooks.aggregate_all_by_operator,
            hooks.aggregate_all_counts,
            hooks.aggregate_all_ci95,
        ),
    ),
    "easy": (
        hooks.process_docs_easy,
        hooks.process_results_easy,
        (
            hooks.aggregate_easy_easy_recall,
            hooks.aggregate_easy_by_operator,
            hooks.aggregate_easy_counts,
            hooks.aggregate_easy_ci95,
        ),
    ),
    "medium": (
        hooks.process_docs_medium,
        hooks.process_results_medium,
        (
            hooks.aggregate_medium_medium_recall,
            hooks.aggregate_medium_by_operator,
            hooks.aggregate_medium_counts,
            hooks.aggregate_medium_ci95,
        ),
    ),
    "hard": (
        hooks.process_docs_hard,
        hooks.process_results_hard,
        (
            hooks.aggregate_hard_hard_recall,
            hooks.aggregate_hard_by_operator,
            hooks.aggregate_hard_counts,
            hooks.aggregate_hard_ci95,
        ),
    ),
    "nodiff": (
        hooks.process_docs_nodiff,
        hooks.process_results_nodiff,
        (hooks.aggregate_nodiff_nodiff_specificity, hooks.aggregate_nodiff_counts, hooks.aggregate_nodiff_ci95),
    ),
}
NOTES = {
    "": "All 4,400 pairs: the leaderboard's columns (Overall = (TP + TN) / N, the official score).",
    "easy": "The 1,300 Easy has-diff pairs (13 operators x 100): recall.",
    "medium": "The 1,300 Medium has-diff pairs: recall.",
    "hard": "The 1,300 Hard has-diff pairs: recall.",
    "nodiff": "The 500 no-diff pairs (the same HTML rendered twice): specificity.",
}


def _task(suffix: str) -> yamlgen.Task:
    docs, results, aggregations = HOOKS[suffix]
    names = metrics(suffix)
    if len(aggregations) != len(names):
        raise ValueError(f"{task_name(suffix)}: {len(aggregations)} aggregations for the metrics {names}")
    config = {
        "process_docs": H(docs),
        "process_results": H(results),
        "metric_list": [
            yamlgen.metric(m, H(agg), None if m in ("by_operator", "counts", "ci95") else True)
            for m, agg in zip(names, aggregations)
        ],
    }
    return yamlgen.Task(task_name(suffix), config, include=TEMPLATE, note=NOTES[suffix])


TEMPLATE_SPEC = yamlgen.Template(
    TEMPLATE,
    note=(
        "DiffSpot (github Tencent/DiffSpot; hub dataset tencent/DiffSpot). Data: DIFFSPOT_ROOT, or the hub\n"
        "release's parquet. The placeholder row only satisfies lmms-eval's loader; process_docs returns the\n"
        "real docs. Judge: DIFFSPOT_JUDGE_* (gpt-oss-120b, reasoning_effort high, temperature 0)."
    ),
    config={
        **yamlgen.generate_until(
            H, hooks.doc_to_visual, hooks.doc_to_text, hooks.doc_to_target, messages=hooks.doc_to_messages
        ),
        "generation_kwargs": yamlgen.Note(
            "baselines/api/run_openai.py and the other runners: temperature 0, up to 16384 tokens\n"
            '("Min 16384 for thinking models; 4K causes silent truncation").',
            yamlgen.generation(16384, 0),
        ),
        "metadata": {"version": 1.0},
    },
)

SOURCE = yamlgen.Source(
    files=(TEMPLATE_SPEC, *(_task(s) for s in TASKS)),
    readme="`diffspot`, `diffspot_{easy,medium,hard,nodiff}`",
)
