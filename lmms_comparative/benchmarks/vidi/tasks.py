"""ViDi's task files, each fact once: the settings (granular, global, few-shot), the metrics each
reports, the image orders averaged; ``python -m lmms_comparative.benchmarks.generate vidi`` writes
them to yaml/, and hooks.py builds each setting's aggregations from the same tables."""

from __future__ import annotations

from lmms_comparative.tasklib.yamlgen import (
    PLACEHOLDER,
    TASKLIB,
    Flow,
    Group,
    Hooks,
    Note,
    Source,
    Task,
    Template,
    generation,
    group_metric,
    metric,
)

H = Hooks("lmms_comparative.benchmarks.vidi.hooks")
TEMPLATE = "_default_template_yaml"
CAPTION_METRICS = ("bleu1", "bleu2", "bleu3", "bleu4", "rougeL", "cider")
JUDGE_METRICS = ("precision", "recall", "f1")
# Each setting's metrics besides the caption metrics (only the global setting asks the judge), and
# whether it is asked in both image orders (a task per order and a group averaging them).
SETTINGS = {"granular": ((), True), "global": (JUDGE_METRICS, True), "fewshot": ((), False)}
SWAPPED = "swap"
VERSION = Note(
    "Version 2: every metric on the paper's x100 scale (version 1 wrote BLEU, ROUGE-L, CIDEr and\nthe judge's P/R/F1 as fractions).",
    {"version": 2.0},
)


def metrics(setting: str) -> tuple[str, ...]:
    """The metrics a setting's tasks report, in their order: scores, then repeats, counts, ci95."""
    return (*CAPTION_METRICS, *SETTINGS[setting][0], "repeats", "counts", "ci95")


def aggregation_name(setting: str, name: str) -> str:
    """The name of a setting's aggregation of a metric in hooks.py."""
    return f"aggregate_{setting}_{name}"


def _task(setting: str, order: str = "") -> Task:
    docs = (
        {"": H.process_docs, SWAPPED: H.process_docs_swap}[order]
        if SETTINGS[setting][1]
        else H(f"process_docs_{setting}")
    )
    config = {"process_docs": docs, "lmms_eval_specific_kwargs": Flow({"default": {"setting": setting}})}
    if SETTINGS[setting][0]:
        config["process_results"] = Note(
            "The judge's precision, recall and F1 are the global setting's only.", H(f"process_results_{setting}")
        )
    config["metric_list"] = [
        metric(m, H(aggregation_name(setting, m)), True if m not in ("repeats", "counts", "ci95") else None)
        for m in metrics(setting)
    ]
    return Task("_".join(p for p in ("vidi", setting, order) if p), config, include=TEMPLATE)


def _average(setting: str) -> Group:
    scores = [m for m in metrics(setting) if m not in ("repeats", "counts", "ci95")]
    config = {
        "aggregate_metric_list": [
            *(group_metric(m, weight_by_size=False) for m in scores),
            group_metric("counts", TASKLIB.group_sum_counts),
            Note(
                "The two orders score the same pairs: their intervals are combined as fully correlated.",
                group_metric("ci95", TASKLIB.group_ci95_same_items),
            ),
        ],
        "metadata": VERSION,
    }
    return Group(
        f"vidi_{setting}_avg",
        (f"vidi_{setting}", f"vidi_{setting}_{SWAPPED}"),
        config,
        note="The paper reports each setting averaged over both image orders.",
    )


TEMPLATE_SPEC = Template(
    TEMPLATE,
    note="ViDi (paper: appendix B prompts, §4 metrics). Data: VIDI_ROOT, the release's pair folders.\nThe placeholder row only satisfies lmms-eval's loader; process_docs returns the real docs.",
    config={
        **PLACEHOLDER,
        "output_type": "generate_until",
        "doc_to_visual": H.doc_to_visual,
        "doc_to_text": H.doc_to_text,
        "doc_to_target": H.doc_to_target,
        "generation_kwargs": Note(
            "The paper samples at temperature 0.5 and averages five seeds: add --repeats 5 (scores are then\nthe mean over repeats; the spread is in `repeats`).",
            generation(512, 0.5),
        ),
        "filter_list": Note(
            "Keep every response of a doc (lmms-eval keeps only the first by default) for --repeats.",
            [{"name": "none", "filter": [{"function": TASKLIB.KeepAllResponses}]}],
        ),
        "process_results": H.process_results,
        "metadata": VERSION,
    },
)
PAIRED = tuple(s for s, (_, both) in SETTINGS.items() if both)

SOURCE = Source(
    files=(
        TEMPLATE_SPEC,
        *(spec for s in PAIRED for spec in (_task(s), _task(s, SWAPPED), _average(s))),
        *(_task(s) for s in SETTINGS if s not in PAIRED),
    ),
    readme=f"`vidi_{{{','.join(PAIRED)}}}`, `vidi_{{{','.join(PAIRED)}}}_{SWAPPED}` (image-order check), `vidi_{{{','.join(PAIRED)}}}_avg`, "
    + ", ".join(f"`vidi_{s}`" for s in SETTINGS if s not in PAIRED),
)
