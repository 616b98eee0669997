"""CaptionQA's task files: the task table's families (table.py: the four caption prompts, each a group
of the four domains of ``scoring.DOMAINS``, and the QA-on-image family), each task with its hooks
(hooks.py, named here by object); ``python -m lmms_comparative.benchmarks.generate captionqa``
writes them to yaml/."""

from __future__ import annotations

from lmms_comparative.benchmarks.captionqa import hooks
from lmms_comparative.benchmarks.captionqa.scoring import DOMAINS
from lmms_comparative.benchmarks.captionqa.table import IMAGE, PROMPTS, task_name
from lmms_comparative.tasklib import group_ci95, group_sum_counts, yamlgen

H = yamlgen.Hooks(hooks)
TEMPLATE, GROUP_TEMPLATE, IMAGE_TEMPLATE = "_default_template_yaml", "_group_template_yaml", "_image_template_yaml"
# Each domain's docs (hooks.py): the image sets to caption, and the questions asked on the images.
CAPTION_DOCS = {
    "natural": hooks.process_docs_natural,
    "document": hooks.process_docs_document,
    "ecommerce": hooks.process_docs_ecommerce,
    "embodiedai": hooks.process_docs_embodiedai,
}
IMAGE_DOCS = {
    "natural": hooks.process_image_docs_natural,
    "document": hooks.process_image_docs_document,
    "ecommerce": hooks.process_image_docs_ecommerce,
    "embodiedai": hooks.process_image_docs_embodiedai,
}
# Each caption prompt's per-item results (hooks.py): the prompt goes with every caption, so that
# the QA pass of a domain knows the captions of the same caption set in the run's other domains.
RESULTS = {
    "simple": hooks.process_results_simple,
    "short": hooks.process_results_short,
    "long": hooks.process_results_long,
    "taxonomy": hooks.process_results_taxonomy,
}


# Each hook table above against the keys of the task table it covers (table.py, scoring.DOMAINS):
# every task must find its hooks.
yamlgen.check_tables(
    "captionqa tasks.py",
    [("CAPTION_DOCS", CAPTION_DOCS, DOMAINS), ("IMAGE_DOCS", IMAGE_DOCS, DOMAINS), ("RESULTS", RESULTS, PROMPTS)],
)


def _templates() -> tuple[yamlgen.Template, ...]:
    caption = yamlgen.Template(
        TEMPLATE,
        note=(
            'CaptionQA (paper: "CaptionQA: Is Your Caption as Useful as the Image Itself?"; official code\n'
            "github bronyayang/CaptionQA). The model writes a caption per image set; a text-only reader LLM\n"
            "then answers the domain's questions from the caption alone "
            "(see lmms_comparative/benchmarks/captionqa/hooks.py).\n"
            "Data: CAPTIONQA_ROOT (a local copy of the HF dataset repo Borise/CaptionQA), else the hub.\n"
            "The placeholder row only satisfies lmms-eval's loader; process_docs returns the real docs."
        ),
        config={
            **yamlgen.generate_until(H, hooks.doc_to_visual, hooks.doc_to_text, hooks.doc_to_target),
            "generation_kwargs": yamlgen.Note(
                "caption.py defaults: --temperature 0.7, --max-tokens 500.", yamlgen.generation(500, 0.7)
            ),
            "process_results": H(hooks.process_results),
            "metric_list": [
                yamlgen.metric("score", H(hooks.aggregate_score)),
                yamlgen.metric("accuracy", H(hooks.aggregate_accuracy)),
                yamlgen.metric("cannot_rate", H(hooks.aggregate_cannot_rate), False),
                yamlgen.metric("by_category", H(hooks.aggregate_by_category), None),
                yamlgen.metric("counts", H(hooks.aggregate_counts), None),
                yamlgen.Note(
                    "95% bootstrap intervals of score, accuracy and cannot_rate "
                    "(images resampled with their questions).",
                    yamlgen.metric("ci95", H(hooks.aggregate_ci95), None),
                ),
            ],
            "metadata": {"version": 1.0},
        },
    )
    group = yamlgen.group_template(
        GROUP_TEMPLATE,
        "Overall = the unweighted mean of the four domain scores (paper Table 3; official leaderboard).",
        [
            *(yamlgen.group_metric(m, weight_by_size=False) for m in ("score", "accuracy", "cannot_rate")),
            yamlgen.group_metric("counts", yamlgen.kit_hook(group_sum_counts)),
            yamlgen.group_metric("ci95", yamlgen.kit_hook(group_ci95)),
        ],
    )
    image = yamlgen.Template(
        IMAGE_TEMPLATE,
        note=(
            "CaptionQA QA-on-image: the model under test answers each question from the image set itself\n"
            "(the paper's reference for the caption-vs-image utility gap, its Figure 4 and Table 4).\n"
            "One doc per scorable question; options in the official shuffled order, without the cannot option."
        ),
        config={
            **yamlgen.generate_until(
                H,
                hooks.image_doc_to_visual,
                hooks.image_doc_to_text,
                hooks.image_doc_to_target,
                messages=hooks.image_doc_to_messages,
            ),
            "generation_kwargs": yamlgen.Note(
                "Greedy, a few tokens: the reader's settings in qa.py (temperature 0, max 4 tokens) plus room.",
                yamlgen.generation(16, 0),
            ),
            "process_results": H(hooks.image_process_results),
            "metric_list": [
                yamlgen.metric("accuracy", H(hooks.image_aggregate_accuracy)),
                yamlgen.metric("by_category", H(hooks.image_aggregate_by_category), None),
                yamlgen.metric("counts", H(hooks.image_aggregate_counts), None),
            ],
            "metadata": {"version": 1.0},
        },
    )
    return caption, group, image


def _prompt_family(prompt: str) -> tuple:
    tasks = tuple(
        yamlgen.Task(
            task_name(prompt, domain),
            {
                "process_docs": H(CAPTION_DOCS[domain]),
                "process_results": H(RESULTS[prompt]),
                "lmms_eval_specific_kwargs": yamlgen.Flow({"default": {"prompt": prompt}}),
            },
            include=TEMPLATE,
        )
        for domain in DOMAINS
    )
    return yamlgen.family(tasks, task_name(prompt), include=GROUP_TEMPLATE)


def _image_family() -> tuple:
    tasks = tuple(
        yamlgen.Task(
            task_name(IMAGE, domain),
            {"process_docs": H(IMAGE_DOCS[domain])},
            include=IMAGE_TEMPLATE,
        )
        for domain in DOMAINS
    )
    aggregate = yamlgen.Note(
        "Unweighted mean of the four domains, as the paper averages the QA-on-image accuracy.",
        [
            yamlgen.group_metric("accuracy", weight_by_size=False),
            yamlgen.group_metric("counts", yamlgen.kit_hook(group_sum_counts)),
        ],
    )
    return yamlgen.family(tasks, task_name(IMAGE), yamlgen.group_config(aggregate))


SOURCE = yamlgen.Source(
    files=(*_templates(), *(spec for prompt in PROMPTS for spec in _prompt_family(prompt)), *_image_family()),
    readme=f"`captionqa_{{{','.join(PROMPTS)}}}`, each over `_{{{','.join(DOMAINS)}}}`; `captionqa_{IMAGE}`",
)
