"""ViDiC-1K's task table and the names its modules share: the data's variable and hub repository,
the judge's settings, the checklist's sections and classes, and the metrics the task reports. A
leaf: the record (``__init__.py``), the hooks, the task files and the parts read it, and it imports
none of them.
"""

from lmms_comparative.record import ScoringCall

ROOT_VARIABLE = "VIDIC_ROOT"
HUB_REPO = "NJU-LINK/ViDiC-1K"

# judge/judge.py (NJU-LINK/ViDiC-1K @d00446f): MODEL_NAME "gpt-5-mini"; the payload holds the model
# and the two messages only (no temperature, seed or max tokens: the engine sends none of them);
# safe_post_json: 3 attempts (the engine's max_retries counts the retries after the first), 120 s
# each; __main__: max_concurrent_requests=5.
JUDGE = ScoringCall.llm(
    ("vidic",),
    "the ViDiC-1K judge",
    "VIDIC_JUDGE",
    {
        "model": "gpt-5-mini",
        "temperature": None,
        "max_tokens": None,
        "max_retries": 2,
        "timeout": 120.0,
        "concurrency": 5,
    },
    # A verdict its parser reads (scoring.parse_judge_response): the JSON object the prompt asks for.
    test_reply='{"answer": "no", "explanation": "The description states no such difference."}',
)

# The checklist's two sections, in the order judge.py ``process_object`` asks them, and the
# section each metric pools (utils/calculate.py ``calculate_global_scores``).
SECTIONS = ("Similarities", "Differences")
SECTION_METRICS = {"Similarities": "sim", "Differences": "diff"}

# The seven dimensions (the README's table: Subject, Motion, Pos., Backgr., Cam., Style, Tech.), by
# our metric name; a checklist item's ``class`` is matched to one by ``scoring.dimension`` (its
# exact spelling in the release could not be read here: the loader logs the classes it finds).
DIMENSIONS = ("subject", "motion", "position", "background", "camera", "style", "technique")

# The task table: the one task, every pair of the release, and the metrics it reports in order:
# Avg (every checklist item pooled), Diff, Sim, the seven dimensions (each pooled over both
# sections), then the breakdown by the release's own class names, counts and intervals.
TASK = "vidic"
METRICS = ("avg", "diff", "sim", *DIMENSIONS, "by_class", "counts", "ci95")
SHARES = METRICS[:-3]
