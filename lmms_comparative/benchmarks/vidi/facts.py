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


# The task table. The caption metrics every task reports, and the judge's (the global setting's only).
CAPTION_METRICS = ("bleu1", "bleu2", "bleu3", "bleu4", "rougeL", "cider")
JUDGE_METRICS = ("precision", "recall", "f1")
# Each setting's metrics besides the caption metrics (only the global setting asks the judge), and
# whether it is asked in both image orders (a task per order and a group averaging them).
SETTINGS = {"granular": ((), True), "global": (JUDGE_METRICS, True), "fewshot": ((), False)}
SWAPPED = "swap"
PAIRED = tuple(s for s, (_, both) in SETTINGS.items() if both)  # the settings asked in both orders
AVERAGE = "avg"  # the group of a paired setting: both orders averaged


def task_name(setting: str, order: str = "") -> str:
    """A task's or group's name: ``vidi_<setting>[_<order>]`` (order: SWAPPED, or AVERAGE for the group)."""
    return "_".join(p for p in ("vidi", setting, order) if p)


def metrics(setting: str) -> tuple[str, ...]:
    """The metrics a setting's tasks report, in their order: scores, then repeats, counts, ci95."""
    return (*CAPTION_METRICS, *SETTINGS[setting][0], "repeats", "counts", "ci95")


FACTS = Benchmark(
    name="vidi",
    title="ViDi",
    root_variable="VIDI_ROOT",
    task_families=(
        *(task_name(s) for s in PAIRED),
        *(task_name(s, SWAPPED) for s in PAIRED),
        *(task_name(s, AVERAGE) for s in PAIRED),
        *(task_name(s) for s in SETTINGS if s not in PAIRED),
    ),
    answer_spaces=(),  # free-form descriptions
    scoring_calls=(JUDGE,),
    fewshot_variant=task_name("fewshot"),
    exports=(
        (
            "granular",
            "table1_granular",
            tuple((c, f"{task_name('granular')}_{c}") for c in ("bleu1", "bleu4", "rougeL", "cider")),
        ),
        (
            "global",
            "table1_global",
            tuple((c, f"{task_name('global')}_{c}") for c in ("bleu1", "bleu4", "rougeL", "cider")),
        ),
        ("judge", "table2", tuple((c, f"{task_name('global')}_{c}") for c in JUDGE_METRICS)),
    ),
    smoke_task=task_name("granular"),  # one small task: what the tests that touch every benchmark run
)
