"""MLLM-CompBench: which of two images has more of a relative property (8 relativities, 16 sources)."""

from lmms_comparative.benchmarks.registry import Benchmark

BENCHMARK = Benchmark(
    name="compbench",
    title="MLLM-CompBench",
    root_variable="COMPBENCH_ROOT",
    task_families=("compbench", "compbench_full", "compbench_pair", "compbench_twostage") + tuple(f"compbench_{r}" for r in ("attribute", "existence", "state", "emotion", "temporality", "spatiality", "quantity", "quality")),
    answer_spaces=("options", "words", "which"),
)
