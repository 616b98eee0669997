"""VLM²-Bench: link matching cues across images or a video (T/F, counting, grouping, description)."""

from lmms_comparative.benchmarks.vlm2bench.answers import ANSWER_SPACES
from lmms_comparative.benchmarks.vlm2bench.records import SUBTASKS
from lmms_comparative.benchmarks.vlm2bench.table import (
    HUB_REPO,
    IMAGE,
    JUDGE,
    PREFIXES,
    ROOT_VARIABLE,
    STRATEGIES,
    VIDEO_SUBTASKS,
    doc_key,
    task_name,
)
from lmms_comparative.data.replies import ItemKey
from lmms_comparative.record import Benchmark, Parts


def _parts(benchmark: Benchmark) -> Parts:
    from lmms_comparative.benchmarks.vlm2bench import fixture, predictions, report

    return Parts(report=report.part(benchmark), predictions=predictions.PART, fixture=fixture.PART)


BENCHMARK = Benchmark(
    name="vlm2bench",
    title="VLM2-Bench",
    root_variable=ROOT_VARIABLE,
    hub_repo=HUB_REPO,
    # All nine subtasks, the image ones, each prefix's, the video subtask alone, each strategy's.
    task_families=(
        task_name(),
        task_name(IMAGE),
        *(task_name(p) for p in PREFIXES),
        *(task_name(s) for s in VIDEO_SUBTASKS),
        *(task_name(s) for s in STRATEGIES),
    ),
    answer_spaces=ANSWER_SPACES,  # grouping choices, T/F, counts (answers.py)
    scoring_calls=(JUDGE,),
    exports=(
        (
            "",
            "table1",
            tuple((c, task_name() if c == "overall" else task_name(c)) for c in (*SUBTASKS, "overall")),
        ),
    ),
    smoke_task=task_name("oc_cnt"),  # one small task: what the tests that touch every benchmark run
    item_key=ItemKey(("uid", "kind", "half"), doc_key),
    parts=_parts,
)
