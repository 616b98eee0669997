"""VLM2-Bench's task files: the task table's tasks (table.py: the nine subtasks of ``records.SUBTASKS``,
the metrics of each kind, the groups, the prompting strategies), the decoding of each kind, each task
with its hooks (hooks.py, named here by object); ``python -m lmms_comparative.benchmarks.generate
vlm2bench`` writes them to yaml/."""

from __future__ import annotations

from lmms_comparative.benchmarks.vlm2bench import hooks
from lmms_comparative.benchmarks.vlm2bench.records import SUBTASKS
from lmms_comparative.benchmarks.vlm2bench.table import (
    IMAGE,
    IMAGE_SUBTASKS,
    KIND_METRICS,
    PREFIXES,
    STRATEGIES,
    task_name,
)
from lmms_comparative.tasklib import group_ci95, group_sum_counts, yamlgen

H = yamlgen.Hooks(hooks)
TEMPLATE = "_default_template_yaml"
# Each subtask's docs (hooks.py).
DOCS = {
    "gc_mat": hooks.process_docs_gc_mat,
    "gc_trk": hooks.process_docs_gc_trk,
    "oc_cpr": hooks.process_docs_oc_cpr,
    "oc_cnt": hooks.process_docs_oc_cnt,
    "oc_grp": hooks.process_docs_oc_grp,
    "pc_cpr": hooks.process_docs_pc_cpr,
    "pc_cnt": hooks.process_docs_pc_cnt,
    "pc_grp": hooks.process_docs_pc_grp,
    "pc_vid": hooks.process_docs_pc_vid,
}
# The aggregation of each metric a kind reports (table.KIND_METRICS): each reads the subtask's one
# scoring pass (hooks.summarize).
AGGREGATIONS = {
    "score": hooks.aggregate_score,
    "positive": hooks.aggregate_positive,
    "negative": hooks.aggregate_negative,
    "exact": hooks.aggregate_exact,
    "counts": hooks.aggregate_counts,
    "ci95": hooks.aggregate_ci95,
}
# The kinds the official scripts decode with 512 new tokens (OC and PC images: 2048, the template's),
# and the script.
SHORT_REPLY_SCRIPTS = {
    "tf_gc": "code/gc/test/test_script_example/test_qwen2p5_7B_img_qa_gc.py",
    "vid": "code/pc/video/test/test_script_example/test_qwen2p5_7B_vid_qa_pc-v.py",
}
# Each prompting strategy's images (hooks.py) and what it asks (table.STRATEGIES: its prompt and subtasks).
STRATEGY_VISUALS = {
    "cot": hooks.doc_to_visual,
    "cotspecial": hooks.doc_to_visual,
    "vpgrid": hooks.vp_grid_doc_to_visual,
}
STRATEGY_NOTES = {
    "cot": "CoT-normal (paper Table 23; §4, Fig. 5): the question, then \"Let's think 'step by step' ...\".",
    "cotspecial": "CoT-special (paper Table 24; §4, Fig. 5), on GC: the question, then the four-step instruction.",
    "vpgrid": (
        "VP-grid (paper Figure 11; §4, Fig. 5), on GC: the images overlaid with a labelled 6 x 6 dot matrix, the "
        "question, then Figure 11's instruction."
    ),
}
STRATEGY_READING = (
    "The reply is read by the subtask's official rule on its answer segment (after the last MY_ANSWER:,\n"
    "else the last line): the authors published no extraction for these runs (hooks.strategy_process_results)."
)
GROUP_METRICS = yamlgen.group_config(
    [
        yamlgen.group_metric("score", weight_by_size=False),
        yamlgen.group_metric("counts", yamlgen.kit_hook(group_sum_counts)),
        yamlgen.group_metric("ci95", yamlgen.kit_hook(group_ci95)),
    ]
)


# Each hook table above against the keys of the task table it covers (table.py): every task must
# find its hooks.
yamlgen.check_tables(
    "vlm2bench tasks.py",
    [
        ("DOCS", DOCS, SUBTASKS),
        ("AGGREGATIONS", AGGREGATIONS, dict.fromkeys(m for metrics in KIND_METRICS.values() for m in metrics)),
        ("STRATEGY_VISUALS", STRATEGY_VISUALS, STRATEGIES),
        ("STRATEGY_NOTES", STRATEGY_NOTES, STRATEGIES),
    ],
)


def _subtask(subtask: str) -> yamlgen.Task:
    kind = SUBTASKS[subtask][2]
    config: dict[str, object] = {"process_docs": H(DOCS[subtask])}
    if kind in SHORT_REPLY_SCRIPTS:
        config["generation_kwargs"] = yamlgen.Note(
            f"{SHORT_REPLY_SCRIPTS[kind]}: greedy, max_new_tokens=512 (OC and PC images: 2048, the template's).",
            yamlgen.generation(512, 0),
        )
    config["metric_list"] = yamlgen.metric_list(H, AGGREGATIONS, KIND_METRICS[kind], ("counts", "ci95"))
    return yamlgen.Task(task_name(subtask), config, include=TEMPLATE)


def _strategy(name: str) -> tuple:
    prompt, subtasks = STRATEGIES[name]
    tasks = tuple(
        yamlgen.Task(
            task_name(name, subtask),
            {
                "doc_to_visual": H(STRATEGY_VISUALS[name]),
                "doc_to_text": H(hooks.strategy_doc_to_text),
                "doc_to_messages": H(hooks.strategy_doc_to_messages),
                "process_results": H(hooks.strategy_process_results),
                "lmms_eval_specific_kwargs": yamlgen.Flow({"default": {"strategy": prompt}}),
                "generation_kwargs": yamlgen.Note(
                    "A reasoning reply needs room: 2048 new tokens, the official OC/PC limit "
                    "(GC's vanilla limit is 512).",
                    yamlgen.generation(2048, 0),
                ),
            },
            include=f"{task_name(subtask)}.yaml",
        )
        for subtask in subtasks
    )
    return yamlgen.family(tasks, task_name(name), GROUP_METRICS, note=f"{STRATEGY_NOTES[name]}\n{STRATEGY_READING}")


def _groups() -> tuple[yamlgen.Group, ...]:
    overall = (
        'Overall = the mean of all nine subtasks, VID included: the paper\'s Table 1 "Overall Avg" is that\n'
        "mean for every model row and the human row, despite its footnote (only the chance row, which has\n"
        "no VID score, averages eight). Image-only models: vlm2bench_image (the eight image subtasks)."
    )
    image = (
        "The eight image subtasks (no video), for image-only models; Overall = their mean. Not the\n"
        "paper's Overall (vlm2bench, nine subtasks): compare it with the paper's per-subtask columns."
    )
    by_prefix = {p: tuple(s for s in SUBTASKS if s.startswith(p + "_")) for p in PREFIXES}
    return (
        yamlgen.Group(task_name(), tuple(task_name(s) for s in SUBTASKS), GROUP_METRICS, note=overall),
        yamlgen.Group(task_name(IMAGE), tuple(task_name(s) for s in IMAGE_SUBTASKS), GROUP_METRICS, note=image),
        *(
            yamlgen.Group(task_name(p), tuple(task_name(s) for s in members), GROUP_METRICS)
            for p, members in by_prefix.items()
        ),
    )


TEMPLATE_SPEC = yamlgen.Template(
    TEMPLATE,
    note=(
        'VLM2-Bench (paper: "VLM2-Bench: A Closer Look at How Well VLMs Implicitly Link Explicit Matching\n'
        'Visual Cues"; official code github vlm2-bench/VLM2-Bench). Data: VLM2BENCH_ROOT, the unpacked\n'
        "vlm2-bench_dataset.zip of HF Sterzhang/vlm2-bench. The placeholder row only satisfies lmms-eval's\n"
        "loader; process_docs returns the real docs."
    ),
    config={
        **yamlgen.generate_until(
            H, hooks.doc_to_visual, hooks.doc_to_text, hooks.doc_to_target, messages=hooks.doc_to_messages
        ),
        "generation_kwargs": yamlgen.Note(
            "The official test scripts decode greedily with up to 2048 new tokens.", yamlgen.generation(2048, 0)
        ),
        "process_results": H(hooks.process_results),
        "metadata": {"version": 1.0},
    },
)


def _readme() -> str:
    return (
        f"`vlm2bench` ({len(SUBTASKS)} subtasks, the paper's Overall), "
        f"`vlm2bench_image` ({len(IMAGE_SUBTASKS)} image subtasks), `vlm2bench_{{{','.join(PREFIXES)}}}`, "
        f"`vlm2bench_{{{','.join(SUBTASKS)}}}`; prompting `vlm2bench_{{{','.join(STRATEGIES)}}}`"
    )


SOURCE = yamlgen.Source(
    files=(
        TEMPLATE_SPEC,
        *(_subtask(s) for s in SUBTASKS),
        *_groups(),
        *(spec for name in STRATEGIES for spec in _strategy(name)),
    ),
    readme=_readme(),
)
