"""VLM-SubtleBench: which subtle difference between two images (10 types, 6 domains); difference captions.

The facts of the record (``__init__.py`` adds the parts): what the parts themselves read.
"""

from lmms_comparative.record import Benchmark, ScoringCall

# The synthetic primitives' colours (paper appendix; synthetic.py draws with them, the pixel_diff
# baseline names a difference by the nearest one).
COLOURS = {
    "red": (220, 40, 40), "green": (40, 160, 60), "blue": (40, 80, 210), "orange": (240, 140, 20), "purple": (140, 60, 180),
    "yellow": (230, 200, 30), "cyan": (30, 190, 200), "magenta": (210, 40, 170), "brown": (140, 90, 40), "gray": (120, 120, 120),
}  # fmt: skip
# The caption judge (paper: GPT-4o, Yes/No) and the caption similarity model (paper appendix B.3).
JUDGE = ScoringCall(
    ("subtlebench_caption",),
    "llm",
    "the SubtleBench caption judge",
    "SUBTLEBENCH_JUDGE",
    {"model": "gpt-4o", "temperature": 0.0, "max_tokens": 8},
)
SBERT = ScoringCall(
    ("subtlebench_caption",),
    "sbert",
    "the SubtleBench caption similarity (SBERT) model",
    "SUBTLEBENCH_SBERT_MODEL",
    "sentence-transformers/paraphrase-MiniLM-L6-v2",
)


FACTS = Benchmark(
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
    scoring_calls=(JUDGE, SBERT),
    exports=(
        (
            "",
            "table2",
            tuple(
                (c, "subtlebench" if c == "avg" else f"subtlebench_{c}")
                for c in ("at", "st", "em", "tm", "sp", "ex", "qn", "ql", "vp", "ac", "avg")
            ),
        ),
        (
            "caption",
            "table3",
            (("css", "subtlebench_caption_css"), ("judge_accuracy", "subtlebench_caption_judge_accuracy")),
        ),
    ),
    smoke_task="subtlebench_sp",  # one small task: what the tests that touch every benchmark run
    colours=COLOURS,
)
