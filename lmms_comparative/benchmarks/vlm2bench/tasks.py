"""VLM2-Bench's task files, each fact once: the nine subtasks and their kinds (``records.SUBTASKS``),
the metrics and decoding of each kind, the groups, the prompting strategies; ``python -m
lmms_comparative.benchmarks.generate vlm2bench`` writes them to yaml/, and hooks.py builds its
per-subtask ``process_docs`` from the same table."""

from __future__ import annotations

from lmms_comparative.benchmarks.vlm2bench.records import SUBTASKS
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

H = Hooks("lmms_comparative.benchmarks.vlm2bench.hooks")
TEMPLATE = "_default_template_yaml"
IMAGE_SUBTASKS = tuple(s for s, (_, _, kind) in SUBTASKS.items() if kind != "vid")
GC = tuple(s for s in SUBTASKS if s.startswith("gc_"))
# The metrics each kind of subtask reports besides score, counts and ci95 (hooks.aggregate_<metric>).
KIND_METRICS = {
    "tf_gc": ("positive", "negative"),
    "tf": ("positive", "negative"),
    "cnt": ("exact",),
    "grp": (),
    "vid": (),
}
# The kinds the official scripts decode with 512 new tokens (OC and PC images: 2048, the template's), and the script.
SHORT_REPLY_SCRIPTS = {
    "tf_gc": "code/gc/test/test_script_example/test_qwen2p5_7B_img_qa_gc.py",
    "vid": "code/pc/video/test/test_script_example/test_qwen2p5_7B_vid_qa_pc-v.py",
}
# The prompting strategies (§4, Fig. 5): the prompt's name in prompts.py, the images, the subtasks, what it asks.
STRATEGIES = {
    "cot": (
        "cot",
        H.doc_to_visual,
        IMAGE_SUBTASKS,
        "CoT-normal (paper Table 23; §4, Fig. 5): the question, then \"Let's think 'step by step' ...\".",
    ),
    "cotspecial": (
        "cot_special",
        H.doc_to_visual,
        GC,
        "CoT-special (paper Table 24; §4, Fig. 5), on GC: the question, then the four-step instruction.",
    ),
    "vpgrid": (
        "vp_grid",
        H.vp_grid_doc_to_visual,
        GC,
        "VP-grid (paper Figure 11; §4, Fig. 5), on GC: the images overlaid with a labelled 6 x 6 dot matrix, the question, then Figure 11's instruction.",
    ),
}
STRATEGY_READING = "The reply is read by the subtask's official rule on its answer segment (after the last MY_ANSWER:,\nelse the last line): the authors published no extraction for these runs (hooks.strategy_process_results)."
GROUP_METRICS = {
    "aggregate_metric_list": [
        group_metric("score", weight_by_size=False),
        group_metric("counts", TASKLIB.group_sum_counts),
        group_metric("ci95", TASKLIB.group_ci95),
    ],
    "metadata": {"version": 1.0},
}


def docs_name(subtask: str) -> str:
    """The name of a subtask's ``process_docs`` in hooks.py."""
    return f"process_docs_{subtask}"


def _subtask(subtask: str) -> Task:
    kind = SUBTASKS[subtask][2]
    config = {"process_docs": H(docs_name(subtask))}
    if kind in SHORT_REPLY_SCRIPTS:
        config["generation_kwargs"] = Note(
            f"{SHORT_REPLY_SCRIPTS[kind]}: greedy, max_new_tokens=512 (OC and PC images: 2048, the template's).",
            generation(512, 0),
        )
    metrics = [metric("score", H.aggregate_score), *(metric(m, H(f"aggregate_{m}")) for m in KIND_METRICS[kind])]
    config["metric_list"] = metrics + [
        metric("counts", H.aggregate_counts, None),
        metric("ci95", H.aggregate_ci95, None),
    ]
    return Task(f"vlm2bench_{subtask}", config, include=TEMPLATE)


def _strategy(name: str) -> tuple:
    prompt, visual, subtasks, what = STRATEGIES[name]
    tasks = tuple(
        Task(
            f"vlm2bench_{name}_{subtask}",
            {
                "doc_to_visual": visual,
                "doc_to_text": H.strategy_doc_to_text,
                "doc_to_messages": H.strategy_doc_to_messages,
                "process_results": H.strategy_process_results,
                "lmms_eval_specific_kwargs": Flow({"default": {"strategy": prompt}}),
                "generation_kwargs": Note(
                    "A reasoning reply needs room: 2048 new tokens, the official OC/PC limit (GC's vanilla limit is 512).",
                    generation(2048, 0),
                ),
            },
            include=f"vlm2bench_{subtask}.yaml",
        )
        for subtask in subtasks
    )
    return (
        *tasks,
        Group(f"vlm2bench_{name}", tuple(t.name for t in tasks), GROUP_METRICS, note=f"{what}\n{STRATEGY_READING}"),
    )


def _groups() -> tuple[Group, ...]:
    overall = 'Overall = the mean of all nine subtasks, VID included: the paper\'s Table 1 "Overall Avg" is that\nmean for every model row and the human row, despite its footnote (only the chance row, which has\nno VID score, averages eight). Image-only models: vlm2bench_image (the eight image subtasks).'
    image = "The eight image subtasks (no video), for image-only models; Overall = their mean. Not the\npaper's Overall (vlm2bench, nine subtasks): compare it with the paper's per-subtask columns."
    by_prefix = {
        p: tuple(s for s in SUBTASKS if s.startswith(p + "_")) for p in dict.fromkeys(s.split("_")[0] for s in SUBTASKS)
    }
    return (
        Group("vlm2bench", tuple(f"vlm2bench_{s}" for s in SUBTASKS), GROUP_METRICS, note=overall),
        Group("vlm2bench_image", tuple(f"vlm2bench_{s}" for s in IMAGE_SUBTASKS), GROUP_METRICS, note=image),
        *(
            Group(f"vlm2bench_{p}", tuple(f"vlm2bench_{s}" for s in members), GROUP_METRICS)
            for p, members in by_prefix.items()
        ),
    )


TEMPLATE_SPEC = Template(
    TEMPLATE,
    note='VLM2-Bench (paper: "VLM2-Bench: A Closer Look at How Well VLMs Implicitly Link Explicit Matching\nVisual Cues"; official code github vlm2-bench/VLM2-Bench). Data: VLM2BENCH_ROOT, the unpacked\nvlm2-bench_dataset.zip of HF Sterzhang/vlm2-bench. The placeholder row only satisfies lmms-eval\'s\nloader; process_docs returns the real docs.',
    config={
        **PLACEHOLDER,
        "output_type": "generate_until",
        "doc_to_visual": H.doc_to_visual,
        "doc_to_text": H.doc_to_text,
        "doc_to_messages": H.doc_to_messages,
        "doc_to_target": H.doc_to_target,
        "generation_kwargs": Note(
            "The official test scripts decode greedily with up to 2048 new tokens.", generation(2048, 0)
        ),
        "process_results": H.process_results,
        "metadata": {"version": 1.0},
    },
)


def _readme() -> str:
    prefixes = ",".join(dict.fromkeys(s.split("_")[0] for s in SUBTASKS))
    return (
        f"`vlm2bench` ({len(SUBTASKS)} subtasks, the paper's Overall), `vlm2bench_image` ({len(IMAGE_SUBTASKS)} image subtasks), `vlm2bench_{{{prefixes}}}`, "
        f"`vlm2bench_{{{','.join(SUBTASKS)}}}`; prompting `vlm2bench_{{{','.join(STRATEGIES)}}}`"
    )


SOURCE = Source(
    files=(
        TEMPLATE_SPEC,
        *(_subtask(s) for s in SUBTASKS),
        *_groups(),
        *(spec for name in STRATEGIES for spec in _strategy(name)),
    ),
    readme=_readme(),
)
