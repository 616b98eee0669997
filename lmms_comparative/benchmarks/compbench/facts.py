"""MLLM-CompBench: which of two images has more of a relative property (8 relativities, 16 sources).

The facts of the record (``__init__.py`` adds the parts): what the parts themselves read.
"""

from lmms_comparative.data.replies import ItemKey
from lmms_comparative.record import Benchmark

FACTS = Benchmark(
    name="compbench",
    title="MLLM-CompBench",
    root_variable="COMPBENCH_ROOT",
    task_families=("compbench", "compbench_full", "compbench_pair", "compbench_twostage")
    + tuple(
        f"compbench_{r}"
        for r in ("attribute", "existence", "state", "emotion", "temporality", "spatiality", "quantity", "quality")
    ),
    answer_spaces=("options", "words", "which"),
    exports=(
        (
            "",
            "table2",
            tuple(
                (c, f"compbench_{c}")
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
