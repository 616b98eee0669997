"""VLM²-Bench's task table and the names its modules share: the data's variable and hub repository,
the subtasks' groups and kinds, the metrics each kind reports, the prompting strategies, the video
judge's settings and the item key. A leaf: the record (``__init__.py``), the hooks, the task files
and the parts read it, and it imports none of them (only the subtask list of ``records.py``, and the
kit).
"""

from lmms_comparative.benchmarks.vlm2bench.records import SUBTASKS
from lmms_comparative.record import ScoringCall

ROOT_VARIABLE = "VLM2BENCH_ROOT"
HUB_REPO = "Sterzhang/vlm2-bench"

# The task table: a task per subtask (records.SUBTASKS: its files and its kind), grouped by their
# prefix (gc, oc, pc), all nine (the paper's Overall) and the eight image subtasks; a prompting
# strategy's family runs its subtasks again with its prompt. The hooks (hooks.py), the task files
# (tasks.py) and the record (__init__.py) read the tasks from here.
IMAGE = "image"  # the group of the image subtasks, for image-only models
IMAGE_SUBTASKS = tuple(s for s, (_, _, kind) in SUBTASKS.items() if kind != "vid")
VIDEO_SUBTASKS = tuple(s for s in SUBTASKS if s not in IMAGE_SUBTASKS)
GC = tuple(s for s in SUBTASKS if s.startswith("gc_"))
PREFIXES = tuple(dict.fromkeys(s.split("_")[0] for s in SUBTASKS))  # gc, oc, pc: a group each
# What each kind of subtask reports (the metric lists of its YAML file, in order): positive and
# negative accuracy belong to T/F pairs, exact accuracy to counting.
KIND_METRICS = {
    "tf": ("score", "positive", "negative", "counts", "ci95"),
    "tf_gc": ("score", "positive", "negative", "counts", "ci95"),
    "cnt": ("score", "exact", "counts", "ci95"),
    "grp": ("score", "counts", "ci95"),
    "vid": ("score", "counts", "ci95"),
}
# The prompting strategies (§4, Fig. 5): family -> (the prompt's name in prompts.py, the subtasks it runs on).
STRATEGIES = {
    "cot": ("cot", IMAGE_SUBTASKS),
    "cotspecial": ("cot_special", GC),
    "vpgrid": ("vp_grid", GC),
}


def task_name(*parts: str) -> str:
    """``vlm2bench``, then the parts: a subtask's task (``vlm2bench_oc_cnt``), a group
    (``vlm2bench_gc``), a strategy's family or its task of a subtask (``vlm2bench_cot_oc_cnt``)."""
    return "_".join(("vlm2bench", *(p for p in parts if p)))


# eval_pc-v_open-ended.py: gpt-4o, max_tokens=300 and no temperature (the API's default applies;
# the engine sends ``"temperature": null``, which servers read as not set).
JUDGE = ScoringCall.llm(
    tuple(task_name(s) for s in VIDEO_SUBTASKS),
    "the VLM2-Bench video description judge",
    "VLM2BENCH_JUDGE",
    {"model": "gpt-4o", "temperature": None, "max_tokens": 300},
    test_reply="Score: 1",  # a reply its parser reads (scoring.py)
)


def doc_key(fields: dict) -> str:
    """``uid``; for a GC T/F item ``uid#half``."""
    return f"{fields['uid']}#{fields.get('half', '')}" if fields.get("kind") == "tf_gc" else str(fields["uid"])
