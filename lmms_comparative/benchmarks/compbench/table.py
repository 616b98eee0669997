"""MLLM-CompBench's task table and the names its modules share: the data's variable, the relativities
(the groups), the two-stage columns and the families over the columns. A leaf: the record
(``__init__.py``), the hooks, the task files and the parts read it, and it imports none of them.
"""

ROOT_VARIABLE = "COMPBENCH_ROOT"

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
