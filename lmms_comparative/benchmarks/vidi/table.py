"""ViDi's task table and the names its modules share: the data's variable, the judge's settings, the
settings (tasks) and the metrics each reports. A leaf: the record (``__init__.py``), the hooks, the
task files and the parts read it, and it imports none of them.
"""

from lmms_comparative.record import ScoringCall

ROOT_VARIABLE = "VIDI_ROOT"

JUDGE = ScoringCall.llm(
    ("vidi_global*",),
    "the ViDi judge",
    "VIDI_JUDGE",
    {"model": "gemini-2.0-flash", "temperature": 0.0, "max_tokens": 512},
    test_reply="Precision Score: 1/2\nRecall Score: 1/2",  # a reply its parser reads (scoring.py)
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
