"""ViDi: describe one (granular) or all (global) differences of a spot-the-difference pair."""

from lmms_comparative.benchmarks.vidi.table import (
    AVERAGE,
    JUDGE,
    JUDGE_METRICS,
    PAIRED,
    ROOT_VARIABLE,
    SETTINGS,
    SWAPPED,
    task_name,
)
from lmms_comparative.record import Benchmark, Parts


def _parts(benchmark: Benchmark) -> Parts:
    from lmms_comparative.benchmarks.vidi import fixture, predictions, report

    return Parts(report=report.part(benchmark), predictions=predictions.PART, fixture=fixture.PART)


BENCHMARK = Benchmark(
    name="vidi",
    title="ViDi",
    root_variable=ROOT_VARIABLE,
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
    parts=_parts,
)
