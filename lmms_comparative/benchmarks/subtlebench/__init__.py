"""VLM-SubtleBench: which subtle difference between two images (10 types, 6 domains); difference captions."""

from lmms_comparative.registry import Benchmark, ScoringCall

BENCHMARK = Benchmark(
    name="subtlebench",
    title="VLM-SubtleBench",
    root_variable="SUBTLEBENCH_ROOT",
    hub_repo="KRAFTON/VLM-SubtleBench",
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
    scoring_calls=(
        ScoringCall(("subtlebench_caption",), "llm", "the SubtleBench caption judge", ("JUDGE_PREFIX", "JUDGE_DEFAULTS")),
        ScoringCall(("subtlebench_caption",), "sbert", "the SubtleBench caption similarity (SBERT) model", ("SBERT_ENV", "SBERT_DEFAULT")),
    ),
    exports=(
        ("", "table2", tuple((c, "subtlebench" if c == "avg" else f"subtlebench_{c}") for c in ("at", "st", "em", "tm", "sp", "ex", "qn", "ql", "vp", "ac", "avg"))),
        ("caption", "table3", (("css", "subtlebench_caption_css"), ("judge_accuracy", "subtlebench_caption_judge_accuracy"))),
    ),
    smoke_task="subtlebench_sp",  # one small task: what the tests that touch every benchmark run
)
