"""MLLM-CompBench: which of two images has more of a relative property (8 relativities, 16 sources).

The facts of the record (``__init__.py`` adds the parts): what the parts themselves read.
"""

from lmms_comparative.data.replies import ItemKey
from lmms_comparative.record import Benchmark

# The task table. The sixteen columns of the paper's Table 2 are ``files.COLUMNS`` (a relativity on a
# source, with the release's file of each); their relativities, in that order, are the groups.
RELATIVITIES = ("attribute", "existence", "state", "emotion", "temporality", "spatiality", "quantity", "quality")
TWO_STAGE_COLUMNS = ("existence_magicbrush", "emotion_celeba", "spatiality_nyudepth")  # Table 3 left
# The families over the columns: "" the test split with the pair merged into one image (the
# template's input), "full" every record, "pair" the two images apart, "twostage" two stages.
FAMILIES = ("", "full", "pair", "twostage")


def task(family: str, column: str = "") -> str:
    """A task's or group's name: ``compbench[_<family>][_<column>]``."""
    return "_".join(p for p in ("compbench", family, column) if p)


FACTS = Benchmark(
    name="compbench",
    title="MLLM-CompBench",
    root_variable="COMPBENCH_ROOT",
    task_families=tuple(task(f) for f in FAMILIES) + tuple(task(r) for r in RELATIVITIES),
    answer_spaces=("options", "words", "which"),
    exports=(
        (
            "",
            "table2",
            tuple(
                (c, task("", c))
                for c in (
                    "attribute_mitstates",
                    "attribute_fashionpedia",
                    "attribute_vaw",
                    "attribute_cub",
                    "attribute_wildfish",
                    "existence_magicbrush",
                    "existence_spotdiff",
                    "state_mitstates",
                    "state_vaw",
                    "emotion_celeba",
                    "emotion_fer2013",
                    "temporality_soccernet",
                    "temporality_compcars",
                    "spatiality_nyudepth",
                )
            ),
        ),
    ),
    smoke_task="compbench_attribute_cub",  # one small task: what the tests that touch every benchmark run
    item_key=ItemKey(("uid",)),
)
