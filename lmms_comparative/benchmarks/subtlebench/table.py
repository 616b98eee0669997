"""VLM-SubtleBench's task table and the names its modules share: the data's variable and hub
repository, the synthetic primitives' colours, the caption judge and similarity model, the
difference types, domains, prompting strategies and multi-round protocols. A leaf: the record
(``__init__.py``), the hooks, the task files and the parts read it, and it imports none of them.
"""

from lmms_comparative.record import ScoringCall

ROOT_VARIABLE = "SUBTLEBENCH_ROOT"
HUB_REPO = "KRAFTON/VLM-SubtleBench"

# The synthetic primitives' colours (paper appendix; synthetic.py draws with them, the pixel_diff
# baseline names a difference by the nearest one).
COLOURS = {
    "red": (220, 40, 40), "green": (40, 160, 60), "blue": (40, 80, 210), "orange": (240, 140, 20),
    "purple": (140, 60, 180), "yellow": (230, 200, 30), "cyan": (30, 190, 200), "magenta": (210, 40, 170),
    "brown": (140, 90, 40), "gray": (120, 120, 120),
}  # fmt: skip
# The caption judge (paper: GPT-4o, Yes/No) and the caption similarity model (paper appendix B.3).
JUDGE = ScoringCall.llm(
    ("subtlebench_caption",),
    "the SubtleBench caption judge",
    "SUBTLEBENCH_JUDGE",
    {"model": "gpt-4o", "temperature": 0.0, "max_tokens": 8},
)
SBERT = ScoringCall.sbert(
    ("subtlebench_caption",),
    "the SubtleBench caption similarity (SBERT) model",
    "SUBTLEBENCH_SBERT_MODEL",
    "sentence-transformers/paraphrase-MiniLM-L6-v2",
)


# ---- the task table: what the hooks (hooks.py, rounds.py), the task files (tasks.py), the record and the
# parts read

# The ten difference types: task suffix -> the dataset's `category` value (paper Table 2 order).
# The one list of them: the tasks (subtlebench_<code>), metrics (accuracy_<code>) and report columns follow it.
CATEGORIES = {
    "at": "attribute",
    "st": "state",
    "em": "emotion",
    "tm": "temporal",
    "sp": "spatial",
    "ex": "existence",
    "qn": "quantity",
    "ql": "quality",
    "vp": "viewpoint",
    "ac": "action",
}

# The paper's columns as scalar metrics (declared in the task template, combined as micro averages by
# the group template): Table 2's difference types and Table 10's domains. A task reports a column
# only for the items it has (subtlebench_at has no accuracy_game).
TYPE_METRICS = {category: f"accuracy_{code}" for code, category in CATEGORIES.items()}
# Table 10's columns: Natural, Game, Industry, Aerial, Synthetic, Medical. The release spells the
# industrial domain "industrial" (its README: natural, industrial, medical, aerial, synthetic); the
# paper's Game items may carry another domain in the release, and then accuracy_game is not reported.
DOMAIN_METRICS = {
    "natural": "accuracy_natural",
    "game": "accuracy_game",
    "industrial": "accuracy_industry",
    "industry": "accuracy_industry",
    "aerial": "accuracy_aerial",
    "synthetic": "accuracy_synthetic",
    "medical": "accuracy_medical",
}
COLUMN_METRICS = tuple(TYPE_METRICS.values()) + tuple(dict.fromkeys(DOMAIN_METRICS.values()))

# The prompting strategies that change the prompt and the images (hooks.VISUALS draws them): each a
# group of the ten types, its tasks the template with doc_to_visual_<strategy> and prompt <strategy>.
# "reasoning" changes the prompt only.
STRATEGIES = ("reasoning", "grid", "grid_paper", "concat", "overlap", "subtract", "highlight")
# The multi-round protocols (rounds.py): the types each covers.
ROUNDS = {"twostep": tuple(CATEGORIES), "langonly": ("em", "ex", "ql")}


def task(family: str, code: str = "") -> str:
    """A task's name: ``subtlebench_<code>`` (family ""), else ``subtlebench_<family>_<code>``; a
    family's group without ``code``."""
    return "_".join(p for p in ("subtlebench", family, code) if p)
