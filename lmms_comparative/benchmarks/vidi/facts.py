"""ViDi: describe one (granular) or all (global) differences of a spot-the-difference pair.

The facts of the record (``__init__.py`` adds the parts): what the parts themselves read.
"""

from lmms_comparative.record import Benchmark, ScoringCall

JUDGE = ScoringCall(
    ("vidi_global*",),
    "llm",
    "the ViDi judge",
    "VIDI_JUDGE",
    {"model": "gemini-2.0-flash", "temperature": 0.0, "max_tokens": 512},
)  # the paper's judge; precision/recall/F1: global only


FACTS = Benchmark(
    name="vidi",
    title="ViDi",
    root_variable="VIDI_ROOT",
    task_families=(
        "vidi_granular",
        "vidi_global",
        "vidi_granular_swap",
        "vidi_global_swap",
        "vidi_granular_avg",
        "vidi_global_avg",
        "vidi_fewshot",
    ),
    answer_spaces=(),  # free-form descriptions
    scoring_calls=(JUDGE,),
    fewshot_variant="vidi_fewshot",
    exports=(
        (
            "granular",
            "table1_granular",
            tuple((c, f"vidi_granular_{c}") for c in ("bleu1", "bleu4", "rougeL", "cider")),
        ),
        ("global", "table1_global", tuple((c, f"vidi_global_{c}") for c in ("bleu1", "bleu4", "rougeL", "cider"))),
        ("judge", "table2", tuple((c, f"vidi_global_{c}") for c in ("precision", "recall", "f1"))),
    ),
    smoke_task="vidi_granular",  # one small task: what the tests that touch every benchmark run
)
