"""MLLM-CompBench: which of two images has more of a relative property (8 relativities, 16 sources)."""

from lmms_comparative.benchmarks.compbench.answers import ANSWER_SPACES
from lmms_comparative.benchmarks.compbench.table import FAMILIES, RELATIVITIES, ROOT_VARIABLE, task
from lmms_comparative.data.replies import ItemKey
from lmms_comparative.record import Benchmark, Parts


def _parts(benchmark: Benchmark) -> Parts:
    from lmms_comparative.benchmarks.compbench import fixture, predictions, report

    return Parts(report=report.part(benchmark), predictions=predictions.PART, fixture=fixture.PART)


BENCHMARK = Benchmark(
    name="compbench",
    title="MLLM-CompBench",
    root_variable=ROOT_VARIABLE,
    task_families=tuple(task(f) for f in FAMILIES) + tuple(task(r) for r in RELATIVITIES),
    answer_spaces=ANSWER_SPACES,  # Options: lists, return Left/Right/Same, which of two (answers.py)
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
    parts=_parts,
)
