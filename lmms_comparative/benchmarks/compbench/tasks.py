"""MLLM-CompBench's task files, each fact once: the sixteen columns of Table 2 (``files.COLUMNS``: a
relativity on a source), the families over them (merged pair, the pair apart, every record, two
stages) and the relativity groups (their names: table.py), each task with its hooks (hooks.py,
named here by object); ``python -m lmms_comparative.benchmarks.generate compbench`` writes them to
yaml/."""

from __future__ import annotations

from lmms_comparative.benchmarks.compbench import hooks
from lmms_comparative.benchmarks.compbench.files import COLUMNS
from lmms_comparative.benchmarks.compbench.table import FAMILIES, RELATIVITIES, TWO_STAGE_COLUMNS, task
from lmms_comparative.tasklib import group_sum_counts, yamlgen

H = yamlgen.Hooks(hooks)
TEMPLATE, GROUP_TEMPLATE = "_default_template_yaml", "_group_template_yaml"
NAMES = tuple(f"{c.relativity}_{c.source}" for c in COLUMNS)  # Table 2, left to right
# Each column's ``process_docs`` (hooks.py): its test split (the families "" and "pair"), every
# record ("full").
COLUMN_DOCS = {
    "attribute_mitstates": (hooks.process_docs_attribute_mitstates, hooks.process_docs_full_attribute_mitstates),
    "attribute_fashionpedia": (
        hooks.process_docs_attribute_fashionpedia,
        hooks.process_docs_full_attribute_fashionpedia,
    ),
    "attribute_vaw": (hooks.process_docs_attribute_vaw, hooks.process_docs_full_attribute_vaw),
    "attribute_cub": (hooks.process_docs_attribute_cub, hooks.process_docs_full_attribute_cub),
    "attribute_wildfish": (hooks.process_docs_attribute_wildfish, hooks.process_docs_full_attribute_wildfish),
    "existence_magicbrush": (hooks.process_docs_existence_magicbrush, hooks.process_docs_full_existence_magicbrush),
    "existence_spotdiff": (hooks.process_docs_existence_spotdiff, hooks.process_docs_full_existence_spotdiff),
    "state_mitstates": (hooks.process_docs_state_mitstates, hooks.process_docs_full_state_mitstates),
    "state_vaw": (hooks.process_docs_state_vaw, hooks.process_docs_full_state_vaw),
    "emotion_celeba": (hooks.process_docs_emotion_celeba, hooks.process_docs_full_emotion_celeba),
    "emotion_fer2013": (hooks.process_docs_emotion_fer2013, hooks.process_docs_full_emotion_fer2013),
    "temporality_soccernet": (hooks.process_docs_temporality_soccernet, hooks.process_docs_full_temporality_soccernet),
    "temporality_compcars": (hooks.process_docs_temporality_compcars, hooks.process_docs_full_temporality_compcars),
    "spatiality_nyudepth": (hooks.process_docs_spatiality_nyudepth, hooks.process_docs_full_spatiality_nyudepth),
    "quantity_vqav2": (hooks.process_docs_quantity_vqav2, hooks.process_docs_full_quantity_vqav2),
    "quality_qbench2": (hooks.process_docs_quality_qbench2, hooks.process_docs_full_quality_qbench2),
}
# The two-stage tasks' ``process_docs`` (hooks.py), one per column of table.TWO_STAGE_COLUMNS.
TWO_STAGE_DOCS = {
    "existence_magicbrush": hooks.process_docs_twostage_existence_magicbrush,
    "emotion_celeba": hooks.process_docs_twostage_emotion_celeba,
    "spatiality_nyudepth": hooks.process_docs_twostage_spatiality_nyudepth,
}


def _docs(family: str, name: str) -> object:
    """A column's ``process_docs`` in a family (COLUMN_DOCS, TWO_STAGE_DOCS); ValueError when the
    table has none for the column."""
    if family == "twostage":
        docs = TWO_STAGE_DOCS.get(name)
    else:
        both = COLUMN_DOCS.get(name)
        docs = None if both is None else both[family == "full"]
    if docs is None:
        raise ValueError(f"{task(family, name)}: tasks.py names no process_docs for the column {name}")
    return docs


def _relativities() -> tuple[str, ...]:
    """table.RELATIVITIES (the groups), which must be the columns' own in order, and
    table.TWO_STAGE_COLUMNS, which must be columns; ValueError otherwise."""
    found = tuple(dict.fromkeys(c.relativity for c in COLUMNS))
    if found != RELATIVITIES:
        raise ValueError(f"table.RELATIVITIES {RELATIVITIES} are not the columns' relativities {found}")
    strays = [n for n in TWO_STAGE_COLUMNS if n not in NAMES]
    if strays:
        raise ValueError(f"table.TWO_STAGE_COLUMNS names no column: {', '.join(strays)}")
    return RELATIVITIES


def _pair_call(kind: str) -> tuple[str, str, int]:
    """How GPT-4V was sent a column's input (CompBenchReview setup.py): the call, what followed the text, max_tokens."""
    return (
        ("GPT.inference_one", "image", 3000)
        if kind == "qbench"
        else ("GPT.inference_two", "images in annotation order", 300)
    )


def _config(family: str, column) -> dict:
    name = f"{column.relativity}_{column.source}"
    docs = H(_docs(family, name))
    if family == "":
        return {"process_docs": docs}
    if family == "full":
        return {
            "process_docs": yamlgen.Note("Every record the authors split (test and val), in annotation order.", docs)
        }
    if family == "pair":
        call, then, tokens = _pair_call(column.kind)
        note = f"As GPT-4V was run (CompBenchReview setup.py, {call}): the text, then the\n{then}, max_tokens {tokens}."
        return {
            "process_docs": docs,
            "doc_to_visual": yamlgen.Note(note, H(hooks.doc_to_visual_pair)),
            "doc_to_messages": H(hooks.doc_to_messages_pair),
            "generation_kwargs": yamlgen.generation(tokens, 0),
        }
    note = (
        "CompBenchReview setup.py GPT.inference_one: max_tokens 3000 (inference_text, the MagicBrush\n"
        "comparison: 4000). The authors set no temperature (the API's default); 0 here, as in the other\n"
        "CompBench tasks, for a reproducible run (--gen_kwargs temperature=1 for theirs)."
    )
    return {
        "process_docs": docs,
        "output_type": "generate_until_multi_round",
        "doc_to_visual": H(hooks.doc_to_visual_pair),
        "doc_to_text": H(hooks.twostage_doc_to_text),
        "doc_to_messages": H(hooks.twostage_doc_to_messages),
        "process_results": H(hooks.twostage_process_results),
        "generation_kwargs": yamlgen.Note(note, yamlgen.generation(3000, 0)),
    }


GROUP_NOTES = {
    "twostage": (
        "Two-stage reasoning (paper §5.3, Table 3 left; the authors' MB_eval.py, celebA_eval.py, depth_eval.py\n"
        "in github RaptorMai/CompBenchReview): each image asked on its own, then MagicBrush's descriptions\n"
        "compared in a text-only call, CelebA's smile ratings and NYU-Depth's distances compared as numbers.\n"
        "Several rounds per item (generate_until_multi_round): run with a model that implements them, or\n"
        "through --model multiround --model_args inner=<your model>,<its args>."
    ),
}


def _family(family: str) -> tuple:
    columns = [c for c in COLUMNS if family != "twostage" or f"{c.relativity}_{c.source}" in TWO_STAGE_COLUMNS]
    tasks = tuple(
        yamlgen.Task(task(family, f"{c.relativity}_{c.source}"), _config(family, c), include=TEMPLATE) for c in columns
    )
    return yamlgen.family(tasks, task(family), include=GROUP_TEMPLATE, note=GROUP_NOTES.get(family, ""))


def _templates() -> tuple[yamlgen.Template, yamlgen.Template]:
    default = yamlgen.Template(
        TEMPLATE,
        note=(
            'MLLM-CompBench (paper: "MLLM-CompBench: A Comparative Reasoning Benchmark for Multimodal LLMs";\n'
            "release: github RaptorMai/MLLM-CompBench). Data: COMPBENCH_ROOT, the annotation JSON files (release\n"
            "or pre-release layout) and images. The placeholder row only satisfies lmms-eval's loader;\n"
            "process_docs returns the real docs (the authors' test split). Default input: the pair merged into\n"
            "one image by the authors' merge_images, as the LLaVA-1.6 and VILA-1.5 rows were run."
        ),
        config={
            **yamlgen.generate_until(H, hooks.doc_to_visual, hooks.doc_to_text, hooks.doc_to_target),
            "generation_kwargs": yamlgen.Note(
                "Greedy, 128 new tokens: the default of the authors' LLaVA/VILA scripts\n"
                "(CompBenchReview LLaVA/llava/eval/model_*.py, --max_new_tokens).",
                yamlgen.generation(128, 0),
            ),
            "lmms_eval_specific_kwargs": yamlgen.Note(
                "Table 7 gives Gemini1.0-pro First/Second wording instead of Left/Right; the authors sent Gemini\n"
                "the images before the text (CompBenchReview setup.py), GPT-4V the text first (pair tasks).",
                {
                    "default": {"answer_words": "left_right", "images_first": False},
                    "gemini_api": {"answer_words": "first_second", "images_first": True},
                },
            ),
            "process_results": H(hooks.process_results),
            "metric_list": [
                yamlgen.metric("accuracy", H(hooks.aggregate_accuracy)),
                yamlgen.metric("chance", H(hooks.aggregate_chance)),
                yamlgen.metric("left_bias", H(hooks.aggregate_left_bias), None),
                yamlgen.metric("counts", H(hooks.aggregate_counts), None),
            ],
            "metadata": {"version": 1.0},
        },
    )
    group = yamlgen.group_template(
        GROUP_TEMPLATE,
        "Unweighted mean of the columns (the paper's Avg over the sixteen columns of Table 2).",
        [
            yamlgen.group_metric("accuracy", weight_by_size=False),
            yamlgen.group_metric("chance", weight_by_size=False),
            yamlgen.group_metric("counts", yamlgen.kit_hook(group_sum_counts)),
        ],
    )
    return default, group


def _relativity(relativity: str) -> yamlgen.Group:
    return yamlgen.Group(
        task(relativity), tuple(task("", n) for n in NAMES if n.startswith(relativity + "_")), include=GROUP_TEMPLATE
    )


SOURCE = yamlgen.Source(
    files=(
        *_templates(),
        *(spec for family in FAMILIES for spec in _family(family)),
        *(_relativity(r) for r in _relativities()),
    ),
    readme=f"`compbench` ({len(COLUMNS)} columns, test split), `compbench_<relativity>`, "
    "`compbench_<relativity>_<source>`, `compbench_pair*`, `compbench_full*`",
)
