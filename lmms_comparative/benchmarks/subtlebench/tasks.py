"""VLM-SubtleBench's task files, each fact once: the ten difference types (``data.CATEGORIES``), the
paper's columns, the prompting strategies; ``python -m lmms_comparative.benchmarks.generate
subtlebench`` writes them to yaml/, and the hooks build their per-type ``process_docs`` from the same
tables (``hooks.py``, ``rounds.py``)."""

from __future__ import annotations

from lmms_comparative.benchmarks.subtlebench.data import CATEGORIES
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

H = Hooks("lmms_comparative.benchmarks.subtlebench.hooks")
R = Hooks("lmms_comparative.benchmarks.subtlebench.rounds")
TEMPLATE, GROUP_TEMPLATE = "_default_template_yaml", "_group_template_yaml"

# The paper's columns as scalar metrics (declared in the task template, combined as micro averages by
# the group template): Table 2's difference types and Table 10's domains. A task reports a column
# only for the items it has (subtlebench_at has no accuracy_game).
TYPE_METRICS = {category: f"accuracy_{code}" for code, category in CATEGORIES.items()}
# Table 10's columns: Natural, Game, Industry, Aerial, Synthetic, Medical. The release spells the
# industrial domain "industrial" (its README: natural, industrial, medical, aerial, synthetic); the
# paper's Game items may carry another domain in the release, and then accuracy_game is not reported.
DOMAIN_METRICS = {
    "natural": "accuracy_natural",
    "game": "accuracy_game",
    "industrial": "accuracy_industry",
    "industry": "accuracy_industry",
    "aerial": "accuracy_aerial",
    "synthetic": "accuracy_synthetic",
    "medical": "accuracy_medical",
}
COLUMN_METRICS = tuple(TYPE_METRICS.values()) + tuple(dict.fromkeys(DOMAIN_METRICS.values()))

# The prompting strategies that change the prompt and the images (hooks.VISUALS draws them): each a
# group of the ten types, its tasks the template with doc_to_visual_<strategy> and prompt <strategy>.
# "reasoning" changes the prompt only.
STRATEGIES = {
    "reasoning": "The paper's reasoning prompt (Figure 9; the official code's 'standard' prompt type).",
    "grid": "Prompting strategy 'grid' as the official code runs it (prompts/multiple_choice_evaluator.py\ncreate_grid_messages): the reasoning prompt, 4x4 grid of 1-px (76,76,76) lines on both images.\nThe paper's rendering and its Figure 11 prompt: subtlebench_grid_paper.",
    "grid_paper": "Prompting strategy 'grid' as the paper describes it: its Figure 11 prompt (answer letter only)\nand appendix B.2's 4x4 grid of 3-px black lines at 30% opacity on both images. The official\ncode's grid is subtlebench_grid.",
    "concat": "Prompting strategy 'concat': one image: the pair concatenated with a 1-px black separator (Figure 12).",
    "overlap": "Prompting strategy 'overlap': the pair plus their 50/50 blend (Figure 14).",
    "subtract": "Prompting strategy 'subtract': the pair plus their normalised grayscale difference map (Figure 15).",
    "highlight": "Prompting strategy 'highlight': the pair plus both images with change regions boxed in green and the rest dimmed (Figure 13).",
}
# The multi-round protocols (rounds.py): which types each covers, its group's note, its hooks.
TWOSTEP_NOTE = "Two-step reasoning (paper §4.3, Table 4; prompts: Figure 10, appendix B.1): the model first describes\nthe differences relevant to the question, then answers given both images, the question and its own\ndescription. Two rounds per item (generate_until_multi_round): run with a model that implements\nthem, or through --model multiround --model_args inner=<your model>,<its args>."
LANGONLY_NOTE = "Language-only comparison (paper appendix C.2, Table 9): each image described on its own with its\ncategory's question, then the question answered from the two descriptions alone (emotion, existence,\nquality). Three rounds per item: run through --model multiround --model_args inner=<your model>,..."
ROUNDS = {"twostep": tuple(CATEGORIES), "langonly": ("em", "ex", "ql")}


def task(family: str, code: str) -> str:
    """A task's name: ``subtlebench_<code>`` (family ""), else ``subtlebench_<family>_<code>``."""
    return "_".join(p for p in ("subtlebench", family, code) if p)


def docs_name(category: str, protocol: str = "") -> str:
    """The name of a type's ``process_docs`` in hooks.py (``protocol`` "") or rounds.py."""
    return "_".join(p for p in ("process_docs", protocol, category) if p)


def _template() -> Template:
    generation_note = (
        "Paper appendix B.1: temperature 0.5 (repetition penalty 1.0). For a reproducible run pass\n"
        '--gen_kwargs temperature=0 (greedy). No stop strings: lmms-eval would otherwise stop at "\\n\\n",\n'
        'which cuts the reasoning prompt\'s "### Reasoning ... ### Answer" layout. Token limit: the\n'
        "official code sends none to OpenAI models (llms/openai_utils.py), 8192 to Claude and Gemini, 512\n"
        "to vLLM and OpenRouter; lmms-eval always sends one (as max_completion_tokens to o1/o3/o4/GPT-5,\n"
        "where it caps the hidden reasoning too). 16384 truncates no reasoning reply of the paper's\n"
        "models; lower it with --gen_kwargs max_new_tokens=N for a server whose context is shorter."
    )
    columns = [metric(m, H.aggregate_column) for m in COLUMN_METRICS]
    columns[0] = Note(
        "The paper's columns: Table 2's difference types, Table 10's domains (a task reports those of\nits items only).",
        columns[0],
    )
    return Template(
        TEMPLATE,
        note="VLM-SubtleBench multiple choice (paper §4, official repo krafton-ai/VLM-SubtleBench).\nData: SUBTLEBENCH_ROOT (a local copy of the HF dataset repo KRAFTON/VLM-SubtleBench), else the hub.\nThe placeholder row only satisfies lmms-eval's loader; process_docs returns the real docs.",
        config={
            **PLACEHOLDER,
            "output_type": "generate_until",
            "doc_to_visual": H.doc_to_visual,
            "doc_to_text": H.doc_to_text,
            "doc_to_messages": H.doc_to_messages,
            "doc_to_target": H.doc_to_target,
            "generation_kwargs": Note(generation_note, generation(16384, 0.5)),
            "lmms_eval_specific_kwargs": {"default": {"prompt": "standard"}},
            "process_results": H.process_results,
            "metric_list": [
                metric("accuracy", H.aggregate_accuracy),
                *columns,
                metric("chance", H.aggregate_chance),
                metric("by_domain", H.aggregate_by_domain, None),
                metric("by_source", H.aggregate_by_source, None),
                metric("counts", H.aggregate_counts, None),
            ],
            "metadata": {"version": 1.0},
        },
    )


def _group_template() -> Template:
    columns = [group_metric(m, H.group_column) for m in COLUMN_METRICS]
    columns[0] = Note(
        'The paper\'s columns over all types: correct / items of that type or domain. They come after\n`accuracy`, whose entry lmms-eval also applies to every metric name containing "accuracy".',
        columns[0],
    )
    return Template(
        GROUP_TEMPLATE,
        note="Headline: micro average over all items (the paper's AVG weights each type by its item count).",
        config={
            "aggregate_metric_list": [
                group_metric("accuracy", weight_by_size=True),
                group_metric("chance", weight_by_size=True),
                *columns,
                group_metric("by_domain", H.group_merge_breakdowns),
                group_metric("by_source", H.group_merge_breakdowns),
                group_metric("counts", TASKLIB.group_sum_counts),
            ],
            "metadata": {"version": 1.0},
        },
    )


def _family(family: str, codes, config_of, note: str = "") -> tuple:
    """A family's tasks (one per type code) and its group."""
    tasks = tuple(Task(task(family, code), config_of(code, CATEGORIES[code]), include=TEMPLATE) for code in codes)
    return (*tasks, Group(task(family, ""), tuple(t.name for t in tasks), include=GROUP_TEMPLATE, note=note))


def _strategy(name: str):
    def config(code: str, category: str) -> dict:
        visual = {"doc_to_visual": H(f"doc_to_visual_{name}")} if name != "reasoning" else {}
        return {
            "process_docs": H(docs_name(category)),
            **visual,
            "lmms_eval_specific_kwargs": Flow({"default": {"prompt": name}}),
        }

    return config


def _rounds(protocol: str):
    text = "langonly" if protocol == "langonly" else "twostep"

    def config(code: str, category: str) -> dict:
        return {
            "process_docs": R(docs_name(category, protocol)),
            "output_type": "generate_until_multi_round",
            "doc_to_text": R(f"{text}_doc_to_text"),
            "doc_to_messages": R(f"{text}_doc_to_messages"),
            "process_results": R.twostep_process_results,
        }

    return config


def _caption() -> Task:
    return Task(
        "subtlebench_caption",
        include=TEMPLATE,
        note='Difference captioning (paper §3.3, Figure 16 prompt, appendix B.3 metrics): items with a\nhuman-written difference caption. CSS: Sentence-BERT cosine similarity (SUBTLEBENCH_SBERT_MODEL,\ndefault paraphrase-MiniLM-L6-v2); judge: share of "Yes" from the engine (prefix SUBTLEBENCH_JUDGE).',
        config={
            "process_docs": H.process_docs_caption,
            "doc_to_text": H.caption_doc_to_text,
            "doc_to_messages": H.caption_doc_to_messages,
            "doc_to_target": H.caption_doc_to_target,
            "process_results": H.caption_process_results,
            "metric_list": [
                metric("css", H.aggregate_css),
                metric("judge_accuracy", H.aggregate_judge_accuracy),
                metric("counts", H.aggregate_caption_counts, None),
            ],
        },
    )


def _swap() -> Task:
    return Task(
        "subtlebench_swap",
        include=TEMPLATE,
        note='Image-order check (position bias): the items whose options are "first image" / "second image"\n(state, emotion, temporal, quality, action ... in the official unified_adapter.py), asked again\nwith the two images swapped; the correct letter moves to the other option. The report sets it\nbeside the original-order answers to the same items (accuracy in both orders, consistency, and\nhow often the model answers "first image").',
        config={
            "process_docs": H.process_docs_swap,
            "process_results": H.swap_process_results,
            "metric_list": [
                metric("accuracy", H.aggregate_accuracy),
                metric("by_category", H.aggregate_by_category, None),
                metric("image_choice", H.aggregate_image_choice, None),
                metric("counts", H.aggregate_counts, None),
            ],
        },
    )


def _readme() -> str:
    strategies = ",".join((*STRATEGIES, *ROUNDS))
    return f"`subtlebench`, `subtlebench_{{{','.join(CATEGORIES)}}}`; strategies `subtlebench_{{{strategies}}}`; `subtlebench_caption`; `subtlebench_swap` (image-order check); synthetic generator"


SOURCE = Source(
    files=(
        _template(),
        _group_template(),
        *_family("", CATEGORIES, lambda code, category: {"process_docs": H(docs_name(category))}),
        *(spec for name, note in STRATEGIES.items() for spec in _family(name, CATEGORIES, _strategy(name), note)),
        *_family("twostep", ROUNDS["twostep"], _rounds("twostep"), TWOSTEP_NOTE),
        *_family("langonly", ROUNDS["langonly"], _rounds("langonly"), LANGONLY_NOTE),
        _caption(),
        _swap(),
    ),
    readme=_readme(),
)
