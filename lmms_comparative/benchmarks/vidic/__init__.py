"""ViDiC-1K: describe the similarities and differences of two videos; a text-only judge checks the
description against each pair's yes/no checklist, whose Similarity items catch invented differences
and whose Difference items catch missed ones.
"""

from lmms_comparative.benchmarks.vidic.table import DIMENSIONS, HUB_REPO, JUDGE, ROOT_VARIABLE, TASK
from lmms_comparative.data.replies import ItemKey
from lmms_comparative.record import Benchmark, Parts


def _parts(benchmark: Benchmark) -> Parts:
    from lmms_comparative.benchmarks.vidic import fixture, predictions, report

    return Parts(report=report.part(benchmark), predictions=predictions.PART, fixture=fixture.PART)


BENCHMARK = Benchmark(
    name="vidic",
    title="ViDiC-1K",
    root_variable=ROOT_VARIABLE,
    hub_repo=HUB_REPO,
    task_families=(TASK,),
    answer_spaces=(),  # free-text descriptions
    scoring_calls=(JUDGE,),
    # The README's table (paper.json "readme"), each column the task's metric it is.
    exports=(("", "readme", (("avg", TASK), ("diff", TASK), ("sim", TASK), *((d, TASK) for d in DIMENSIONS))),),
    item_key=ItemKey(("pair",)),  # the two paths: judge.py's join of a response with its checklist
    side_logs=("judge",),  # the judge's answer on every checklist item (hooks.py)
    smoke_task=TASK,  # every pair of the fixture (4 by default)
    parts=_parts,
)
