"""DiffSpot's task files, each fact once: the tasks (all 4,400 pairs, each tier, the no-diff
control), the metrics each reports; ``python -m lmms_comparative.benchmarks.generate diffspot``
writes them to yaml/, and hooks.py builds each task's hooks from the same table."""

from __future__ import annotations

from lmms_comparative.tasklib.yamlgen import PLACEHOLDER, Hooks, Note, Source, Task, Template, generation, metric

H = Hooks("lmms_comparative.benchmarks.diffspot.hooks")
TEMPLATE = "_default_template_yaml"
# task suffix -> (the release's split it reads, "all" for every pair; the headline metrics it reports)
TASKS = {
    "": ("all", ("overall", "easy_recall", "medium_recall", "hard_recall", "diff_recall", "nodiff_specificity")),
    "easy": ("easy", ("easy_recall",)),
    "medium": ("medium", ("medium_recall",)),
    "hard": ("hard", ("hard_recall",)),
    "nodiff": ("no_diff", ("nodiff_specificity",)),
}
NOTES = {
    "": "All 4,400 pairs: the leaderboard's columns (Overall = (TP + TN) / N, the official score).",
    "easy": "The 1,300 Easy has-diff pairs (13 operators x 100): recall.",
    "medium": "The 1,300 Medium has-diff pairs: recall.",
    "hard": "The 1,300 Hard has-diff pairs: recall.",
    "nodiff": "The 500 no-diff pairs (the same HTML rendered twice): specificity.",
}


def task_name(suffix: str) -> str:
    return f"diffspot_{suffix}" if suffix else "diffspot"


def metrics(suffix: str) -> tuple[str, ...]:
    """The metrics a task reports, in order: its shares, per-operator recall (has-diff pairs), counts, ci95."""
    shares = TASKS[suffix][1]
    return (*shares, *(() if suffix == "nodiff" else ("by_operator",)), "counts", "ci95")


def hook_suffix(suffix: str) -> str:
    """The hooks' name part of a task: ``all`` for ``diffspot``."""
    return suffix or "all"


def _task(suffix: str) -> Task:
    part = hook_suffix(suffix)
    config = {
        "process_docs": H(f"process_docs_{part}"),
        "process_results": H(f"process_results_{part}"),
        "metric_list": [
            metric(m, H(f"aggregate_{part}_{m}"), None if m in ("by_operator", "counts", "ci95") else True)
            for m in metrics(suffix)
        ],
    }
    return Task(task_name(suffix), config, include=TEMPLATE, note=NOTES[suffix])


TEMPLATE_SPEC = Template(
    TEMPLATE,
    note="DiffSpot (github Tencent/DiffSpot; hub dataset tencent/DiffSpot). Data: DIFFSPOT_ROOT, or the hub\nrelease's parquet. The placeholder row only satisfies lmms-eval's loader; process_docs returns the\nreal docs. Judge: DIFFSPOT_JUDGE_* (gpt-oss-120b, reasoning_effort high, temperature 0).",
    config={
        **PLACEHOLDER,
        "output_type": "generate_until",
        "doc_to_visual": H.doc_to_visual,
        "doc_to_text": H.doc_to_text,
        "doc_to_messages": H.doc_to_messages,
        "doc_to_target": H.doc_to_target,
        "generation_kwargs": Note(
            'baselines/api/run_openai.py and the other runners: temperature 0, up to 16384 tokens\n("Min 16384 for thinking models; 4K causes silent truncation").',
            generation(16384, 0),
        ),
        "metadata": {"version": 1.0},
    },
)

SOURCE = Source(
    files=(TEMPLATE_SPEC, *(_task(s) for s in TASKS)),
    readme="`diffspot`, `diffspot_{easy,medium,hard,nodiff}`",
)
