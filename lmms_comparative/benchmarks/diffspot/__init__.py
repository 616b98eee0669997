"""DiffSpot: list every difference between two screenshots of a web page; a judge LLM decides
whether the one CSS mutation was found, or, on an unchanged pair, that none was invented.
"""

from lmms_comparative.benchmarks.diffspot.table import HUB_REPO, JUDGE, ROOT_VARIABLE, TASKS, task_name
from lmms_comparative.data.replies import ItemKey
from lmms_comparative.record import Benchmark, Parts


def _parts(benchmark: Benchmark) -> Parts:
    from lmms_comparative.benchmarks.diffspot import fixture, predictions, report

    return Parts(report=report.part(benchmark), predictions=predictions.PART, fixture=fixture.PART)


BENCHMARK = Benchmark(
    name="diffspot",
    title="DiffSpot",
    root_variable=ROOT_VARIABLE,
    hub_repo=HUB_REPO,
    task_families=tuple(task_name(s) for s in TASKS),
    answer_spaces=(),  # free-text lists of differences
    scoring_calls=(JUDGE,),
    # The leaderboard's six columns (paper.json "leaderboard"), each the task's metric it is.
    exports=(
        (
            "",
            "leaderboard",
            (
                ("easy_recall", "diffspot_easy_recall"),
                ("med_recall", "diffspot_medium_recall"),
                ("hard_recall", "diffspot_hard_recall"),
                ("diff_overall_recall", "diffspot_diff_recall"),
                ("no_diff_specificity", "diffspot_nodiff_specificity"),
                ("overall_accuracy", "diffspot_overall"),
            ),
        ),
    ),
    item_key=ItemKey(("id",)),  # the release's id column: the authors' join key with predictions
    side_logs=("judge",),  # the judge's verdict on every pair (hooks.py)
    smoke_task="diffspot",  # every pair of the fixture (8 by default): what the tests that touch every benchmark run
    parts=_parts,
)
