"""MLLM-CompBench's task files, each fact once: the sixteen columns of Table 2 (``files.COLUMNS``: a
relativity on a source), the families over them (merged pair, the pair apart, every record, two
stages) and the relativity groups; ``python -m lmms_comparative.benchmarks.generate compbench``
writes them to yaml/, and hooks.py builds each column's ``process_docs`` from the same tables."""

from __future__ import annotations

from lmms_comparative.benchmarks.compbench.files import COLUMNS
from lmms_comparative.tasklib.yamlgen import (
    PLACEHOLDER,
    TASKLIB,
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

H = Hooks("lmms_comparative.benchmarks.compbench.hooks")
TEMPLATE, GROUP_TEMPLATE = "_default_template_yaml", "_group_template_yaml"
NAMES = tuple(f"{c.relativity}_{c.source}" for c in COLUMNS)  # Table 2, left to right
RELATIVITIES = tuple(dict.fromkeys(c.relativity for c in COLUMNS))
TWO_STAGE_COLUMNS = ("existence_magicbrush", "emotion_celeba", "spatiality_nyudepth")  # Table 3 left
# The families over the columns: "" the test split with the pair merged into one image (the
# template's input), "full" every record, "pair" the two images apart, "twostage" two stages.
FAMILIES = ("", "full", "pair", "twostage")


def task(family: str, column: str = "") -> str:
    """A task's or group's name: ``compbench[_<family>][_<column>]``."""
    return "_".join(p for p in ("compbench", family, column) if p)


def docs_name(column: str, family: str = "") -> str:
    """The name of a column's ``process_docs`` in hooks.py: its test split (family "" or "pair"),
    every record ("full"), the two stages ("twostage")."""
    return "_".join(p for p in ("process_docs", family if family in ("full", "twostage") else "", column) if p)


def _pair_call(kind: str) -> tuple[str, str, int]:
    """How GPT-4V was sent a column's input (CompBenchReview setup.py): the call, what followed the text, max_tokens."""
    return (
        ("GPT.inference_one", "image", 3000)
        if kind == "qbench"
        else ("GPT.inference_two", "images in annotation order", 300)
    )


def _config(family: str, column) -> dict:
    name = f"{column.relativity}_{column.source}"
    docs = H(docs_name(name, family))
    if family == "":
        return {"process_docs": docs}
    if family == "full":
        return {"process_docs": Note("Every record the authors split (test and val), in annotation order.", docs)}
    if family == "pair":
        call, then, tokens = _pair_call(column.kind)
        note = f"As GPT-4V was run (CompBenchReview setup.py, {call}): the text, then the\n{then}, max_tokens {tokens}."
        return {
            "process_docs": docs,
            "doc_to_visual": Note(note, H.doc_to_visual_pair),
            "doc_to_messages": H.doc_to_messages_pair,
            "generation_kwargs": generation(tokens, 0),
        }
    note = "CompBenchReview setup.py GPT.inference_one: max_tokens 3000 (inference_text, the MagicBrush\ncomparison: 4000). The authors set no temperature (the API's default); 0 here, as in the other\nCompBench tasks, for a reproducible run (--gen_kwargs temperature=1 for theirs)."
    return {
        "process_docs": docs,
        "output_type": "generate_until_multi_round",
        "doc_to_visual": H.doc_to_visual_pair,
        "doc_to_text": H.twostage_doc_to_text,
        "doc_to_messages": H.twostage_doc_to_messages,
        "process_results": H.twostage_process_results,
        "generation_kwargs": Note(note, generation(3000, 0)),
    }


GROUP_NOTES = {
    "twostage": "Two-stage reasoning (paper §5.3, Table 3 left; the authors' MB_eval.py, celebA_eval.py, depth_eval.py\nin github RaptorMai/CompBenchReview): each image asked on its own, then MagicBrush's descriptions\ncompared in a text-only call, CelebA's smile ratings and NYU-Depth's distances compared as numbers.\nSeveral rounds per item (generate_until_multi_round): run with a model that implements them, or\nthrough --model multiround --model_args inner=<your model>,<its args>.",
}


def _family(family: str) -> tuple:
    columns = [c for c in COLUMNS if family != "twostage" or f"{c.relativity}_{c.source}" in TWO_STAGE_COLUMNS]
    tasks = tuple(
        Task(task(family, f"{c.relativity}_{c.source}"), _config(family, c), include=TEMPLATE) for c in columns
    )
    return (
        *tasks,
        Group(task(family), tuple(t.name for t in tasks), include=GROUP_TEMPLATE, note=GROUP_NOTES.get(family, "")),
    )


def _templates() -> tuple[Template, Template]:
    default = Template(
        TEMPLATE,
        note="MLLM-CompBench (paper: \"MLLM-CompBench: A Comparative Reasoning Benchmark for Multimodal LLMs\";\nrelease: github RaptorMai/MLLM-CompBench). Data: COMPBENCH_ROOT, the annotation JSON files (release\nor pre-release layout) and images. The placeholder row only satisfies lmms-eval's loader;\nprocess_docs returns the real docs (the authors' test split). Default input: the pair merged into\none image by the authors' merge_images, as the LLaVA-1.6 and VILA-1.5 rows were run.",
        config={
            **PLACEHOLDER,
            "output_type": "generate_until",
            "doc_to_visual": H.doc_to_visual,
            "doc_to_text": H.doc_to_text,
            "doc_to_target": H.doc_to_target,
            "generation_kwargs": Note(
                "Greedy, 128 new tokens: the default of the authors' LLaVA/VILA scripts\n(CompBenchReview LLaVA/llava/eval/model_*.py, --max_new_tokens).",
                generation(128, 0),
            ),
            "lmms_eval_specific_kwargs": Note(
                "Table 7 gives Gemini1.0-pro First/Second wording instead of Left/Right; the authors sent Gemini\nthe images before the text (CompBenchReview setup.py), GPT-4V the text first (pair tasks).",
                {
                    "default": {"answer_words": "left_right", "images_first": False},
                    "gemini_api": {"answer_words": "first_second", "images_first": True},
                },
            ),
            "process_results": H.process_results,
            "metric_list": [
                metric("accuracy", H.aggregate_accuracy),
                metric("chance", H.aggregate_chance),
                metric("left_bias", H.aggregate_left_bias, None),
                metric("counts", H.aggregate_counts, None),
            ],
            "metadata": {"version": 1.0},
        },
    )
    group = Template(
        GROUP_TEMPLATE,
        note="Unweighted mean of the columns (the paper's Avg over the sixteen columns of Table 2).",
        config={
            "aggregate_metric_list": [
                group_metric("accuracy", weight_by_size=False),
                group_metric("chance", weight_by_size=False),
                group_metric("counts", TASKLIB.group_sum_counts),
            ],
            "metadata": {"version": 1.0},
        },
    )
    return default, group


def _relativity(relativity: str) -> Group:
    return Group(
        task(relativity), tuple(task("", n) for n in NAMES if n.startswith(relativity + "_")), include=GROUP_TEMPLATE
    )


SOURCE = Source(
    files=(
        *_templates(),
        *(spec for family in FAMILIES for spec in _family(family)),
        *(_relativity(r) for r in RELATIVITIES),
    ),
    readme=f"`compbench` ({len(COLUMNS)} columns, test split), `compbench_<relativity>`, `compbench_<relativity>_<source>`, `compbench_pair*`, `compbench_full*`",
)
