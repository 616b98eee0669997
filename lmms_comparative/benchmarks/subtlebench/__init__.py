"""VLM-SubtleBench: which subtle difference between two images (10 types, 6 domains); difference captions."""

from lmms_comparative.benchmarks.registry import Benchmark

BENCHMARK = Benchmark(
    name="subtlebench",
    title="VLM-SubtleBench",
    root_variable="SUBTLEBENCH_ROOT",
    task_families=(
        "subtlebench",
        "subtlebench_concat",
        "subtlebench_grid",
        "subtlebench_grid_paper",
        "subtlebench_highlight",
        "subtlebench_overlap",
        "subtlebench_reasoning",
        "subtlebench_subtract",
        "subtlebench_swap",
        "subtlebench_caption",
        "subtlebench_twostep",
        "subtlebench_langonly",
    ),
    answer_spaces=("letters",),
)
