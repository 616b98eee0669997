"""DiffSpot's task files: the tasks of the task table (table.TASKS: all 4,400 pairs, each tier, the
no-diff control), each with its hooks (hooks.py, named here by object);
``python -m lmms_comparative.benchmarks.generate diffspot`` writes them to yaml/."""

from __future__ import annotations

from lmms_comparative.benchmarks.diffspot import hooks
from lmms_comparative.benchmarks.diffspot.table import TASKS, metrics, task_name
from lmms_comparative.tasklib import yamlgen

H = yamlgen.Hooks(hooks)
TEMPLATE = "_default_template_yaml"
# Each task's hooks (hooks.py): its docs, its per-item results, and its aggregations by metric
# (table.metrics gives their order in the task file).
HOOKS = {
    "": (
        hooks.process_docs_all,
        hooks.process_results_all,
        {
            "overall": hooks.aggregate_all_overall,
            "easy_recall": hooks.aggregate_all_easy_recall,
            "medium_recall": hooks.aggregate_all_medium_recall,
            "hard_recall": hooks.aggregate_all_hard_recall,
            "diff_recall": hooks.aggregate_all_diff_recall,
            "nodiff_specificity": hooks.aggregate_all_nodiff_specificity,
            "by_operator": hooks.aggregate_all_by_operator,
            "counts": hooks.aggregate_all_counts,
            "ci95": hooks.aggregate_all_ci95,
        },
    ),
    "easy": (
        hooks.process_docs_easy,
        hooks.process_results_easy,
        {
            "easy_recall": hooks.aggregate_easy_easy_recall,
            "by_operator": hooks.aggregate_easy_by_operator,
            "counts": hooks.aggregate_easy_counts,
            "ci95": hooks.aggregate_easy_ci95,
        },
    ),
    "medium": (
        hooks.process_docs_medium,
        hooks.process_results_medium,
        {
            "medium_recall": hooks.aggregate_medium_medium_recall,
            "by_operator": hooks.aggregate_medium_by_operator,
            "counts": hooks.aggregate_medium_counts,
            "ci95": hooks.aggregate_medium_ci95,
        },
    ),
    "hard": (
        hooks.process_docs_hard,
        hooks.process_results_hard,
        {
            "hard_recall": hooks.aggregate_hard_hard_recall,
            "by_operator": hooks.aggregate_hard_by_operator,
            "counts": hooks.aggregate_hard_counts,
            "ci95": hooks.aggregate_hard_ci95,
        },
    ),
    "nodiff": (
        hooks.process_docs_nodiff,
        hooks.process_results_nodiff,
        {
            "nodiff_specificity": hooks.aggregate_nodiff_nodiff_specificity,
            "counts": hooks.aggregate_nodiff_counts,
            "ci95": hooks.aggregate_nodiff_ci95,
        },
    ),
}
NOTES = {
    "": "All 4,400 pairs: the leaderboard's columns (Overall = (TP + TN) / N, the official score).",
    "easy": "The 1,300 Easy has-diff pairs (13 operators x 100): recall.",
    "medium": "The 1,300 Medium has-diff pairs: recall.",
    "hard": "The 1,300 Hard has-diff pairs: recall.",
    "nodiff": "The 500 no-diff pairs (the same HTML rendered twice): specificity.",
}


# Every task of the task table finds its hooks, and every metric it reports its aggregation.
yamlgen.check_tables(
    "diffspot tasks.py",
    [("HOOKS", HOOKS, TASKS), *((f"HOOKS[{s!r}] aggregations", HOOKS[s][2], metrics(s)) for s in TASKS)],
)


def _task(suffix: str) -> yamlgen.Task:
    docs, results, aggregations = HOOKS[suffix]
    config = {
        "process_docs": H(docs),
        "process_results": H(results),
        "metric_list": yamlgen.metric_list(H, aggregations, metrics(suffix), ("by_operator", "counts", "ci95")),
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
