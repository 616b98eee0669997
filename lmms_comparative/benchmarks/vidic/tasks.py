"""ViDiC-1K's task file: the one task of the task table (table.TASK: every pair), with its hooks
(hooks.py, named here by object); ``python -m lmms_comparative.benchmarks.generate vidic`` writes it
to yaml/."""

from __future__ import annotations

from lmms_comparative.benchmarks.vidic import hooks
from lmms_comparative.benchmarks.vidic.table import METRICS, TASK
from lmms_comparative.tasklib import yamlgen

H = yamlgen.Hooks(hooks)
# The aggregation of each metric the task reports (table.METRICS gives their order in the file).
AGGREGATIONS = {
    "avg": hooks.aggregate_avg,
    "diff": hooks.aggregate_diff,
    "sim": hooks.aggregate_sim,
    "subject": hooks.aggregate_subject,
    "motion": hooks.aggregate_motion,
    "position": hooks.aggregate_position,
    "background": hooks.aggregate_background,
    "camera": hooks.aggregate_camera,
    "style": hooks.aggregate_style,
    "technique": hooks.aggregate_technique,
    "by_class": hooks.aggregate_by_class,
    "counts": hooks.aggregate_counts,
    "ci95": hooks.aggregate_ci95,
}
yamlgen.check_tables("vidic tasks.py", [("AGGREGATIONS", AGGREGATIONS, METRICS)])

TASK_SPEC = yamlgen.Task(
    TASK,
    note=(
        "ViDiC-1K (github NJU-LINK/ViDiC-1K; hub dataset NJU-LINK/ViDiC-1K): every video pair. Data: VIDIC_ROOT, or\n"
        "the hub release. The placeholder row only satisfies lmms-eval's loader; process_docs returns the real\n"
        "docs. Judge: VIDIC_JUDGE_* (gpt-5-mini; no temperature, seed or token limit sent, as judge/judge.py)."
    ),
    config={
        **yamlgen.generate_until(
            H, hooks.doc_to_visual, hooks.doc_to_text, hooks.doc_to_target, messages=hooks.doc_to_messages
        ),
        "process_docs": H(hooks.process_docs),
        "generation_kwargs": yamlgen.Note(
            "inference/get_response_qwen2_5.py SamplingParams: temperature 0.7, top_p 0.9, 4096 tokens (its\n"
            "repetition_penalty 1.05 is vLLM's and left to the model class; the frame rate, 2 fps, is a model\n"
            "argument: --model_args fps=2, or video_fps=2 for openai).",
            {"max_new_tokens": 4096, "temperature": 0.7, "top_p": 0.9, "until": []},
        ),
        "process_results": H(hooks.process_results),
        "metric_list": yamlgen.metric_list(H, AGGREGATIONS, METRICS, ("by_class", "counts", "ci95")),
        "metadata": {"version": 1.0},
    },
)

SOURCE = yamlgen.Source(files=(TASK_SPEC,), readme="`vidic`")
