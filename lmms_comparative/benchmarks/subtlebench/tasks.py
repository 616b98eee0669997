"""VLM-SubtleBench's task files, each fact once: the ten difference types, the paper's columns, the
prompting strategies and the multi-round protocols (the task table, table.py), each task with its
hooks (hooks.py, rounds.py, named here by object); ``python -m lmms_comparative.benchmarks.generate
subtlebench`` writes them to yaml/."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from lmms_comparative.benchmarks.subtlebench import hooks, rounds
from lmms_comparative.benchmarks.subtlebench.table import CATEGORIES, COLUMN_METRICS, ROUNDS, STRATEGIES, task
from lmms_comparative.tasklib import group_sum_counts, yamlgen

H = yamlgen.Hooks(hooks)
R = yamlgen.Hooks(rounds)
TEMPLATE, GROUP_TEMPLATE = "_default_template_yaml", "_group_template_yaml"

# Each type's process_docs (hooks.py), by its code in table.CATEGORIES.
DOCS = {
    "at": hooks.process_docs_attribute,
    "st": hooks.process_docs_state,
    "em": hooks.process_docs_emotion,
    "tm": hooks.process_docs_temporal,
    "sp": hooks.process_docs_spatial,
    "ex": hooks.process_docs_existence,
    "qn": hooks.process_docs_quantity,
    "ql": hooks.process_docs_quality,
    "vp": hooks.process_docs_viewpoint,
    "ac": hooks.process_docs_action,
}
# The multi-round protocols' hooks (rounds.py): each covered type's process_docs (table.ROUNDS),
# then doc_to_text and doc_to_messages.
ROUND_DOCS = {
    "twostep": {
        "at": rounds.process_docs_twostep_attribute,
        "st": rounds.process_docs_twostep_state,
        "em": rounds.process_docs_twostep_emotion,
        "tm": rounds.process_docs_twostep_temporal,
        "sp": rounds.process_docs_twostep_spatial,
        "ex": rounds.process_docs_twostep_existence,
        "qn": rounds.process_docs_twostep_quantity,
        "ql": rounds.process_docs_twostep_quality,
        "vp": rounds.process_docs_twostep_viewpoint,
        "ac": rounds.process_docs_twostep_action,
    },
    "langonly": {
        "em": rounds.process_docs_langonly_emotion,
        "ex": rounds.process_docs_langonly_existence,
        "ql": rounds.process_docs_langonly_quality,
    },
}
ROUND_TEXT = {
    "twostep": (rounds.twostep_doc_to_text, rounds.twostep_doc_to_messages),
    "langonly": (rounds.langonly_doc_to_text, rounds.langonly_doc_to_messages),
}
# The strategies' group notes (table.STRATEGIES); their images are hooks.VISUALS's ("reasoning" has none).
STRATEGY_NOTES = {
    "reasoning": "The paper's reasoning prompt (Figure 9; the official code's 'standard' prompt type).",
    "grid": (
        "Prompting strategy 'grid' as the official code runs it (prompts/multiple_choice_evaluator.py\n"
        "create_grid_messages): the reasoning prompt, 4x4 grid of 1-px (76,76,76) lines on both images.\n"
        "The paper's rendering and its Figure 11 prompt: subtlebench_grid_paper."
    ),
    "grid_paper": (
        "Prompting strategy 'grid' as the paper describes it: its Figure 11 prompt (answer letter only)\n"
        "and appendix B.2's 4x4 grid of 3-px black lines at 30% opacity on both images. The official\n"
        "code's grid is subtlebench_grid."
    ),
    "concat": "Prompting strategy 'concat': one image: the pair concatenated with a 1-px black separator (Figure 12).",
    "overlap": "Prompting strategy 'overlap': the pair plus their 50/50 blend (Figure 14).",
    "subtract": ("Prompting strategy 'subtract': the pair plus their normalised grayscale difference map (Figure 15)."),
    "highlight": (
        "Prompting strategy 'highlight': the pair plus both images with change regions boxed in green and the rest "
        "dimmed (Figure 13)."
    ),
}
# The multi-round protocols' group notes.
ROUND_NOTES = {
    "twostep": (
        "Two-step reasoning (paper §4.3, Table 4; prompts: Figure 10, appendix B.1): the model first describes\n"
        "the differences relevant to the question, then answers given both images, the question and its own\n"
        "description. Two rounds per item (generate_until_multi_round): run with a model that implements\n"
        "them, or through --model multiround --model_args inner=<your model>,<its args>."
    ),
    "langonly": (
        "Language-only comparison (paper appendix C.2, Table 9): each image described on its own with its\n"
        "category's question, then the question answered from the two descriptions alone (emotion, existence,\n"
        "quality). Three rounds per item: run through --model multiround --model_args inner=<your model>,..."
    ),
}

# The notes of the two tasks of their own: the difference captions and the image-order check.
TASK_NOTES = {
    "caption": (
        "Difference captioning (paper §3.3, Figure 16 prompt, appendix B.3 metrics): items with a\n"
        "human-written difference caption. CSS: Sentence-BERT cosine similarity (SUBTLEBENCH_SBERT_MODEL,\n"
        'default paraphrase-MiniLM-L6-v2); judge: share of "Yes" from the engine (prefix SUBTLEBENCH_JUDGE).'
    ),
    "swap": (
        'Image-order check (position bias): the items whose options are "first image" / "second image"\n'
        "(state, emotion, temporal, quality, action ... in the official unified_adapter.py), asked again\n"
        "with the two images swapped; the correct letter moves to the other option. The report sets it\n"
        "beside the original-order answers to the same items (accuracy in both orders, consistency, and\n"
        'how often the model answers "first image").'
    ),
}


# Each hook table above against the keys of the task table it covers (table.py): every task must
# find its hooks.
yamlgen.check_tables(
    "subtlebench tasks.py",
    [
        ("DOCS", DOCS, CATEGORIES),
        ("ROUND_DOCS", ROUND_DOCS, ROUNDS),
        *((f"ROUND_DOCS[{p!r}]", ROUND_DOCS.get(p, {}), codes) for p, codes in ROUNDS.items()),
        ("ROUND_TEXT", ROUND_TEXT, ROUNDS),
        ("ROUND_NOTES", ROUND_NOTES, ROUNDS),
        ("STRATEGY_NOTES", STRATEGY_NOTES, STRATEGIES),
        ("hooks.VISUALS", hooks.VISUALS, [s for s in STRATEGIES if s != "reasoning"]),
    ],
)


def _columns(note: str, entry: Callable[[str], dict]) -> list[dict | yamlgen.Note]:
    """The paper's columns (table.COLUMN_METRICS), an entry each, ``note`` written above the first."""
    first, *rest = (entry(m) for m in COLUMN_METRICS)
    return [yamlgen.Note(note, first), *rest]


def _template() -> yamlgen.Template:
    generation_note = (
        "Paper appendix B.1: temperature 0.5 (repetition penalty 1.0). For a reproducible run pass\n"
        '--gen_kwargs temperature=0 (greedy). No stop strings: lmms-eval would otherwise stop at "\\n\\n",\n'
        'which cuts the reasoning prompt\'s "### Reasoning ... ### Answer" layout. Token limit: the\n'
        "official code sends none to OpenAI models (llms/openai_utils.py), 8192 to Claude and Gemini, 512\n"
        "to vLLM and OpenRouter; lmms-eval always sends one (as max_completion_tokens to o1/o3/o4/GPT-5,\n"
        "where it caps the hidden reasoning too). 16384 truncates no reasoning reply of the paper's\n"
        "models; lower it with --gen_kwargs max_new_tokens=N for a server whose context is shorter."
    )
    return yamlgen.Template(
        TEMPLATE,
        note=(
            "VLM-SubtleBench multiple choice (paper §4, official repo krafton-ai/VLM-SubtleBench).\n"
            "Data: SUBTLEBENCH_ROOT (a local copy of the HF dataset repo KRAFTON/VLM-SubtleBench), else the hub.\n"
            "The placeholder row only satisfies lmms-eval's loader; process_docs returns the real docs."
        ),
        config={
            **yamlgen.generate_until(
                H, hooks.doc_to_visual, hooks.doc_to_text, hooks.doc_to_target, messages=hooks.doc_to_messages
            ),
            "generation_kwargs": yamlgen.Note(generation_note, yamlgen.generation(16384, 0.5)),
            "lmms_eval_specific_kwargs": {"default": {"prompt": "standard"}},
            "process_results": H(hooks.process_results),
            "metric_list": [
                yamlgen.metric("accuracy", H(hooks.aggregate_accuracy)),
                *_columns(
                    "The paper's columns: Table 2's difference types, Table 10's domains (a task reports those of\n"
                    "its items only).",
                    lambda m: yamlgen.metric(m, H(hooks.aggregate_column)),
                ),
                yamlgen.metric("chance", H(hooks.aggregate_chance)),
                yamlgen.metric("by_domain", H(hooks.aggregate_by_domain), None),
                yamlgen.metric("by_source", H(hooks.aggregate_by_source), None),
                yamlgen.metric("counts", H(hooks.aggregate_counts), None),
            ],
            "metadata": {"version": 1.0},
        },
    )


def _group_template() -> yamlgen.Template:
    return yamlgen.group_template(
        GROUP_TEMPLATE,
        "Headline: micro average over all items (the paper's AVG weights each type by its item count).",
        [
            yamlgen.group_metric("accuracy", weight_by_size=True),
            yamlgen.group_metric("chance", weight_by_size=True),
            *_columns(
                "The paper's columns over all types: correct / items of that type or domain. They come after\n"
                '`accuracy`, whose entry lmms-eval also applies to every metric name containing "accuracy".',
                lambda m: yamlgen.group_metric(m, H(hooks.group_column)),
            ),
            yamlgen.group_metric("by_domain", H(hooks.group_merge_breakdowns)),
            yamlgen.group_metric("by_source", H(hooks.group_merge_breakdowns)),
            yamlgen.group_metric("counts", yamlgen.kit_hook(group_sum_counts)),
        ],
    )


def _family(
    family: str, codes: Iterable[str], config_of: Callable[[str], dict], note: str = ""
) -> tuple[yamlgen.Spec, ...]:
    """A family's tasks (one per type code) and its group."""
    tasks = tuple(yamlgen.Task(task(family, code), config_of(code), include=TEMPLATE) for code in codes)
    return yamlgen.family(tasks, task(family), include=GROUP_TEMPLATE, note=note)


def _strategy(name: str) -> Callable[[str], dict]:
    visual = {"doc_to_visual": H(hooks.VISUALS[name])} if name != "reasoning" else {}

    def config(code: str) -> dict:
        return {
            "process_docs": H(DOCS[code]),
            **visual,
            "lmms_eval_specific_kwargs": yamlgen.Flow({"default": {"prompt": name}}),
        }

    return config


def _rounds(protocol: str) -> Callable[[str], dict]:
    to_text, to_messages = ROUND_TEXT[protocol]

    def config(code: str) -> dict:
        return {
            "process_docs": R(ROUND_DOCS[protocol][code]),
            "output_type": "generate_until_multi_round",
            "doc_to_text": R(to_text),
            "doc_to_messages": R(to_messages),
            "process_results": R(rounds.twostep_process_results),
        }

    return config


def _caption() -> yamlgen.Task:
    config = {
        "process_docs": H(hooks.process_docs_caption),
        "doc_to_text": H(hooks.caption_doc_to_text),
        "doc_to_messages": H(hooks.caption_doc_to_messages),
        "doc_to_target": H(hooks.caption_doc_to_target),
        "process_results": H(hooks.caption_process_results),
        "metric_list": [
            yamlgen.metric("css", H(hooks.aggregate_css)),
            yamlgen.metric("judge_accuracy", H(hooks.aggregate_judge_accuracy)),
            yamlgen.metric("counts", H(hooks.aggregate_caption_counts), None),
        ],
    }
    return yamlgen.Task(task("caption"), config, include=TEMPLATE, note=TASK_NOTES["caption"])


def _swap() -> yamlgen.Task:
    config = {
        "process_docs": H(hooks.process_docs_swap),
        "process_results": H(hooks.swap_process_results),
        "metric_list": [
            yamlgen.metric("accuracy", H(hooks.aggregate_accuracy)),
            yamlgen.metric("by_category", H(hooks.aggregate_by_category), None),
            yamlgen.metric("image_choice", H(hooks.aggregate_image_choice), None),
            yamlgen.metric("counts", H(hooks.aggregate_counts), None),
        ],
    }
    return yamlgen.Task(task("swap"), config, include=TEMPLATE, note=TASK_NOTES["swap"])


def _readme() -> str:
    strategies = ",".join((*STRATEGIES, *ROUNDS))
    return (
        f"`subtlebench`, `subtlebench_{{{','.join(CATEGORIES)}}}`; strategies `subtlebench_{{{strategies}}}`; "
        "`subtlebench_caption`; `subtlebench_swap` (image-order check); synthetic generator"
    )


SOURCE = yamlgen.Source(
    files=(
        _template(),
        _group_template(),
        *_family("", CATEGORIES, lambda code: {"process_docs": H(DOCS[code])}),
        *(spec for name in STRATEGIES for spec in _family(name, CATEGORIES, _strategy(name), STRATEGY_NOTES[name])),
        *(spec for name, codes in ROUNDS.items() for spec in _family(name, codes, _rounds(name), ROUND_NOTES[name])),
        _caption(),
        _swap(),
    ),
    readme=_readme(),
)
