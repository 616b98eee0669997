"""Evaluation-protocol checks that lmms-eval cannot express in a task YAML.

Few-shot: all five benchmarks are evaluated zero-shot in their papers and official scripts. ViDi
alone defines a few-shot setting (paper appendix E), which needs its own prompt built from the
other differences of the same pair: our task ``vidi_fewshot``. lmms-eval's generic ``--num_fewshot``
would instead prepend other docs (and crash on our tasks, which have no few-shot sampler:
``'ConfigurableMessagesTask' object has no attribute 'sampler'``). So ``--num_fewshot N > 0`` on one
of our tasks stops before any request with a message that says so.
"""

from __future__ import annotations

BENCHMARKS = {
    "subtlebench": "VLM-SubtleBench",
    "vidi": "ViDi",
    "captionqa": "CaptionQA",
    "vlm2bench": "VLM2-Bench",
    "compbench": "MLLM-CompBench",
}
FEWSHOT_VARIANT = {"vidi": "vidi_fewshot"}


class ProtocolError(ValueError):
    """A run setting the benchmark's protocol does not allow."""


def benchmark_of(hook) -> str | None:
    """Our benchmark key for a task whose hooks live in ``lmms_comparative.tasks.<benchmark>``."""
    module = getattr(hook, "__module__", "") or ""
    parts = module.split(".")
    if len(parts) == 3 and parts[:2] == ["lmms_comparative", "tasks"] and parts[2] in BENCHMARKS:
        return parts[2]
    return None


def fewshot_message(task: str, benchmark: str, num_fewshot: int) -> str | None:
    """The message that stops ``--num_fewshot`` on one of our tasks, or None when it may go on."""
    if not num_fewshot:
        return None
    name = BENCHMARKS[benchmark]
    variant = FEWSHOT_VARIANT.get(benchmark)
    if task == variant:
        return f"{task} builds {name}'s few-shot prompt itself (paper appendix E); run it without --num_fewshot (got {num_fewshot})."
    tail = f"Its few-shot variant is the task {variant}: run --tasks {variant} without --num_fewshot." if variant else "It defines no few-shot variant: run without --num_fewshot."
    return f"{task}: {name}'s protocol is zero-shot, so --num_fewshot {num_fewshot} is not supported. {tail}"


def install_fewshot_check() -> bool:
    """Wrap lmms-eval's ``ConfigurableTask.set_config`` so that setting ``num_fewshot > 0`` on one
    of our tasks (what the evaluator does for ``--num_fewshot``) raises ProtocolError."""
    try:
        from lmms_eval.api.task import ConfigurableTask
    except Exception:
        return False
    if getattr(ConfigurableTask.set_config, "_lmms_comparative_fewshot", False):
        return True
    original = ConfigurableTask.set_config

    def set_config(self, key, value, update=False):
        if key == "num_fewshot" and isinstance(value, int) and value > 0:
            benchmark = benchmark_of(getattr(self.config, "doc_to_text", None)) or benchmark_of(getattr(self.config, "process_results", None))
            message = fewshot_message(self.config.task, benchmark, value) if benchmark else None
            if message:
                raise ProtocolError(message)
        return original(self, key, value, update)

    set_config._lmms_comparative_fewshot = True
    ConfigurableTask.set_config = set_config
    return True
