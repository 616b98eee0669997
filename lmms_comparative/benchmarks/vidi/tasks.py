"""ViDi's task files: the settings of the task table (table.SETTINGS: granular, global, few-shot),
the metrics each reports, the image orders averaged, each task with its hooks (hooks.py, named here
by object); ``python -m lmms_comparative.benchmarks.generate vidi`` writes them to yaml/."""

from __future__ import annotations

from lmms_comparative.benchmarks.vidi import hooks
from lmms_comparative.benchmarks.vidi.table import AVERAGE, PAIRED, SETTINGS, SWAPPED, metrics, task_name
from lmms_comparative.tasklib import KeepAllResponses, group_ci95_same_items, group_sum_counts, yamlgen

H = yamlgen.Hooks(hooks)
TEMPLATE = "_default_template_yaml"
VERSION = yamlgen.Note(
    "Version 2: every metric on the paper's x100 scale (version 1 wrote BLEU, ROUGE-L, CIDEr and\n"
    "the judge's P/R/F1 as fractions).",
    {"version": 2.0},
)
# Each setting's docs: one per image order for a paired setting ("" and SWAPPED), else its own.
DOCS = {
    "granular": {"": hooks.process_docs, SWAPPED: hooks.process_docs_swap},
    "global": {"": hooks.process_docs, SWAPPED: hooks.process_docs_swap},
    "fewshot": {"": hooks.process_docs_fewshot},
}
# The metrics that rank no model (the spread over repeats, counts, intervals): null higher_is_better,
# and no average over the two image orders.
UNRANKED = ("repeats", "counts", "ci95")
# The settings whose items carry the judge's metrics have their own process_results.
RESULTS = {"global": hooks.process_results_global}
# Each setting's aggregations (hooks.py), by metric (table.metrics gives their order in the task file).
AGGREGATIONS = {
    "granular": {
        "bleu1": hooks.aggregate_granular_bleu1,
        "bleu2": hooks.aggregate_granular_bleu2,
        "bleu3": hooks.aggregate_granular_bleu3,
        "bleu4": hooks.aggregate_granular_bleu4,
        "rougeL": hooks.aggregate_granular_rougeL,
        "cider": hooks.aggregate_granular_cider,
        "repeats": hooks.aggregate_granular_repeats,
        "counts": hooks.aggregate_granular_counts,
        "ci95": hooks.aggregate_granular_ci95,
    },
    "global": {
        "bleu1": hooks.aggregate_global_bleu1,
        "bleu2": hooks.aggregate_global_bleu2,
        "bleu3": hooks.aggregate_global_bleu3,
        "bleu4": hooks.aggregate_global_bleu4,
        "rougeL": hooks.aggregate_global_rougeL,
        "cider": hooks.aggregate_global_cider,
        "precision": hooks.aggregate_global_precision,
        "recall": hooks.aggregate_global_recall,
        "f1": hooks.aggregate_global_f1,
        "repeats": hooks.aggregate_global_repeats,
        "counts": hooks.aggregate_global_counts,
        "ci95": hooks.aggregate_global_ci95,
    },
    "fewshot": {
        "bleu1": hooks.aggregate_fewshot_bleu1,
        "bleu2": hooks.aggregate_fewshot_bleu2,
        "bleu3": hooks.aggregate_fewshot_bleu3,
        "bleu4": hooks.aggregate_fewshot_bleu4,
        "rougeL": hooks.aggregate_fewshot_rougeL,
        "cider": hooks.aggregate_fewshot_cider,
        "repeats": hooks.aggregate_fewshot_repeats,
        "counts": hooks.aggregate_fewshot_counts,
        "ci95": hooks.aggregate_fewshot_ci95,
    },
}
# Every setting finds its aggregation for every metric it reports.
yamlgen.check_tables(
    "vidi tasks.py",
    [
        ("AGGREGATIONS", AGGREGATIONS, SETTINGS),
        *((f"AGGREGATIONS[{s!r}]", AGGREGATIONS[s], metrics(s)) for s in SETTINGS),
    ],
)


def _task(setting: str, order: str = "") -> yamlgen.Task:
    if setting not in DOCS or order not in DOCS[setting]:
        raise ValueError(f"{task_name(setting, order)}: tasks.py names no process_docs for it")
    config = {
        "process_docs": H(DOCS[setting][order]),
        "lmms_eval_specific_kwargs": yamlgen.Flow({"default": {"setting": setting}}),
    }
    if SETTINGS[setting][0]:
        if setting not in RESULTS:
            raise ValueError(f"{task_name(setting, order)}: tasks.py names no process_results for its judge's metrics")
        config["process_results"] = yamlgen.Note(
            "The judge's precision, recall and F1 are the global setting's only.", H(RESULTS[setting])
        )
    config["metric_list"] = yamlgen.metric_list(H, AGGREGATIONS[setting], metrics(setting), UNRANKED)
    return yamlgen.Task(task_name(setting, order), config, include=TEMPLATE)


def _average(setting: str) -> yamlgen.Group:
    scores = [m for m in metrics(setting) if m not in UNRANKED]
    aggregate = [
        *(yamlgen.group_metric(m, weight_by_size=False) for m in scores),
        yamlgen.group_metric("counts", yamlgen.kit_hook(group_sum_counts)),
        yamlgen.Note(
            "The two orders score the same pairs: their intervals are combined as fully correlated.",
            yamlgen.group_metric("ci95", yamlgen.kit_hook(group_ci95_same_items)),
        ),
    ]
    return yamlgen.Group(
        task_name(setting, AVERAGE),
        (task_name(setting), task_name(setting, SWAPPED)),
        yamlgen.group_config(aggregate, VERSION),
        note="The paper reports each setting averaged over both image orders.",
    )


TEMPLATE_SPEC = yamlgen.Template(
    TEMPLATE,
    note=(
        "ViDi (paper: appendix B prompts, §4 metrics). Data: VIDI_ROOT, the release's pair folders.\n"
        "The placeholder row only satisfies lmms-eval's loader; process_docs returns the real docs."
    ),
    config={
        **yamlgen.generate_until(H, hooks.doc_to_visual, hooks.doc_to_text, hooks.doc_to_target),
        "generation_kwargs": yamlgen.Note(
            "The paper samples at temperature 0.5 and averages five seeds: add --repeats 5 (scores are then\n"
            "the mean over repeats; the spread is in `repeats`).",
            yamlgen.generation(512, 0.5),
        ),
        "filter_list": yamlgen.Note(
            "Keep every response of a doc (lmms-eval keeps only the first by default) for --repeats.",
            [{"name": "none", "filter": [{"function": yamlgen.kit_hook(KeepAllResponses)}]}],
        ),
        "process_results": H(hooks.process_results),
        "metadata": VERSION,
    },
)
SOURCE = yamlgen.Source(
    files=(
        TEMPLATE_SPEC,
        *(spec for s in PAIRED for spec in (_task(s), _task(s, SWAPPED), _average(s))),
        *(_task(s) for s in SETTINGS if s not in PAIRED),
    ),
    readme=f"`vidi_{{{','.join(PAIRED)}}}`, `vidi_{{{','.join(PAIRED)}}}_{SWAPPED}` (image-order check), "
    f"`vidi_{{{','.join(PAIRED)}}}_{AVERAGE}`, " + ", ".join(f"`vidi_{s}`" for s in SETTINGS if s not in PAIRED),
)
