"""DiffSpot's task table and the names its modules share: the data's variable and hub repository,
the judge's settings, the tasks and the metrics each reports. A leaf: the record (``__init__.py``),
the hooks, the task files and the parts read it, and it imports none of them.
"""

from lmms_comparative.record import ScoringCall

ROOT_VARIABLE = "DIFFSPOT_ROOT"
HUB_REPO = "tencent/DiffSpot"

# diffspot/judge.py: DEFAULT_JUDGE_MODEL "gpt-oss-120b", DEFAULT_TEMPERATURE 0.0, DEFAULT_MAX_TOKENS
# 16384; the timeout is the openai SDK's default that judge_item runs under (600 s: a reasoning
# judge at "high" takes minutes), the concurrency diffspot/cli.py's --workers default (50).
JUDGE = ScoringCall.llm(
    ("diffspot*",),
    "the DiffSpot judge",
    "DIFFSPOT_JUDGE",
    {"model": "gpt-oss-120b", "temperature": 0.0, "max_tokens": 16384, "timeout": 600.0, "concurrency": 50},
    # A verdict its parser reads (scoring.parse_judge_reply): the mutation found, nothing invented.
    test_reply='{"mutations": [{"gt": "", "type": "", "verdict": "correct", "vlm_match": ""}], "hallucinations": [], '
    '"summary": {"correct": 1, "partial": 0, "missed": 0, "hallucinated": 0}}',
)
# diffspot/judge.py DEFAULT_REASONING_EFFORT, sent as the request body's top-level
# ``reasoning_effort`` (judge_item: extra_body); DIFFSPOT_JUDGE_REASONING_EFFORT overrides it, and
# an empty value sends none (diffspot/cli.py: --reasoning-effort "" disables it).
REASONING_EFFORT = "high"
REASONING_EFFORT_VARIABLE = f"{JUDGE.setting}_REASONING_EFFORT"

# The task table: task suffix -> (the release's split it reads, "all" for every pair; the headline
# metrics it reports). The hooks (hooks.py), the task files (tasks.py), the score reader
# (predictions.py) and the report read the tasks from here.
TASKS = {
    "": ("all", ("overall", "easy_recall", "medium_recall", "hard_recall", "diff_recall", "nodiff_specificity")),
    "easy": ("easy", ("easy_recall",)),
    "medium": ("medium", ("medium_recall",)),
    "hard": ("hard", ("hard_recall",)),
    "nodiff": ("no_diff", ("nodiff_specificity",)),
}


def task_name(suffix: str) -> str:
    return f"diffspot_{suffix}" if suffix else "diffspot"


def metrics(suffix: str) -> tuple[str, ...]:
    """The metrics a task reports, in order: its shares, per-operator recall (has-diff pairs), counts, ci95."""
    shares = TASKS[suffix][1]
    return (*shares, *(() if suffix == "nodiff" else ("by_operator",)), "counts", "ci95")
