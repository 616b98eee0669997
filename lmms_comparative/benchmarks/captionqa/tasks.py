"""CaptionQA's task files, each fact once: the four domains (``scoring.DOMAINS``) and the four caption
prompts, each prompt a group of the domains, and the QA-on-image family; ``python -m
lmms_comparative.benchmarks.generate captionqa`` writes them to yaml/, and hooks.py builds its
per-domain ``process_docs`` from the same tables."""

from __future__ import annotations

from lmms_comparative.benchmarks.captionqa.scoring import DOMAINS
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

H = Hooks("lmms_comparative.benchmarks.captionqa.hooks")
TEMPLATE, GROUP_TEMPLATE, IMAGE_TEMPLATE = "_default_template_yaml", "_group_template_yaml", "_image_template_yaml"
PROMPTS = ("simple", "short", "long", "taxonomy")  # the caption prompts (prompts.py), Table 3's row groups
IMAGE = "image"  # the QA-on-image family: the model answers from the images


def docs_name(domain: str, family: str = "") -> str:
    """The name of a domain's ``process_docs`` in hooks.py: the captions' (family "") or the image family's."""
    return f"process_image_docs_{domain}" if family == IMAGE else f"process_docs_{domain}"


def _templates() -> tuple[Template, ...]:
    caption = Template(
        TEMPLATE,
        note="CaptionQA (paper: \"CaptionQA: Is Your Caption as Useful as the Image Itself?\"; official code\ngithub bronyayang/CaptionQA). The model writes a caption per image set; a text-only reader LLM\nthen answers the domain's questions from the caption alone (see lmms_comparative/benchmarks/captionqa/hooks.py).\nData: CAPTIONQA_ROOT (a local copy of the HF dataset repo Borise/CaptionQA), else the hub.\nThe placeholder row only satisfies lmms-eval's loader; process_docs returns the real docs.",
        config={
            **PLACEHOLDER,
            "output_type": "generate_until",
            "doc_to_visual": H.doc_to_visual,
            "doc_to_text": H.doc_to_text,
            "doc_to_target": H.doc_to_target,
            "generation_kwargs": Note(
                "caption.py defaults: --temperature 0.7, --max-tokens 500.", generation(500, 0.7)
            ),
            "process_results": H.process_results,
            "metric_list": [
                metric("score", H.aggregate_score),
                metric("accuracy", H.aggregate_accuracy),
                metric("cannot_rate", H.aggregate_cannot_rate, False),
                metric("by_category", H.aggregate_by_category, None),
                metric("counts", H.aggregate_counts, None),
                Note(
                    "95% bootstrap intervals of score, accuracy and cannot_rate (images resampled with their questions).",
                    metric("ci95", H.aggregate_ci95, None),
                ),
            ],
            "metadata": {"version": 1.0},
        },
    )
    group = Template(
        GROUP_TEMPLATE,
        note="Overall = the unweighted mean of the four domain scores (paper Table 3; official leaderboard).",
        config={
            "aggregate_metric_list": [
                *(group_metric(m, weight_by_size=False) for m in ("score", "accuracy", "cannot_rate")),
                group_metric("counts", TASKLIB.group_sum_counts),
                group_metric("ci95", TASKLIB.group_ci95),
            ],
            "metadata": {"version": 1.0},
        },
    )
    image = Template(
        IMAGE_TEMPLATE,
        note="CaptionQA QA-on-image: the model under test answers each question from the image set itself\n(the paper's reference for the caption-vs-image utility gap, its Figure 4 and Table 4).\nOne doc per scorable question; options in the official shuffled order, without the cannot option.",
        config={
            **PLACEHOLDER,
            "output_type": "generate_until",
            "doc_to_visual": H.image_doc_to_visual,
            "doc_to_text": H.image_doc_to_text,
            "doc_to_messages": H.image_doc_to_messages,
            "doc_to_target": H.image_doc_to_target,
            "generation_kwargs": Note(
                "Greedy, a few tokens: the reader's settings in qa.py (temperature 0, max 4 tokens) plus room.",
                generation(16, 0),
            ),
            "process_results": H.image_process_results,
            "metric_list": [
                metric("accuracy", H.image_aggregate_accuracy),
                metric("by_category", H.image_aggregate_by_category, None),
                metric("counts", H.image_aggregate_counts, None),
            ],
            "metadata": {"version": 1.0},
        },
    )
    return caption, group, image


def _prompt_family(prompt: str) -> tuple:
    tasks = tuple(
        Task(
            f"captionqa_{prompt}_{domain}",
            {
                "process_docs": H(docs_name(domain)),
                "process_results": H(f"process_results_{prompt}"),
                "lmms_eval_specific_kwargs": Flow({"default": {"prompt": prompt}}),
            },
            include=TEMPLATE,
        )
        for domain in DOMAINS
    )
    return (*tasks, Group(f"captionqa_{prompt}", tuple(t.name for t in tasks), include=GROUP_TEMPLATE))


def _image_family() -> tuple:
    tasks = tuple(
        Task(f"captionqa_{IMAGE}_{domain}", {"process_docs": H(docs_name(domain, IMAGE))}, include=IMAGE_TEMPLATE)
        for domain in DOMAINS
    )
    aggregate = Note(
        "Unweighted mean of the four domains, as the paper averages the QA-on-image accuracy.",
        [group_metric("accuracy", weight_by_size=False), group_metric("counts", TASKLIB.group_sum_counts)],
    )
    return (
        *tasks,
        Group(
            f"captionqa_{IMAGE}",
            tuple(t.name for t in tasks),
            {"aggregate_metric_list": aggregate, "metadata": {"version": 1.0}},
        ),
    )


SOURCE = Source(
    files=(*_templates(), *(spec for prompt in PROMPTS for spec in _prompt_family(prompt)), *_image_family()),
    readme=f"`captionqa_{{{','.join(PROMPTS)}}}`, each over `_{{{','.join(DOMAINS)}}}`; `captionqa_{IMAGE}`",
)
