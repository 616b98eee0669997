"""VLM-SubtleBench: which subtle difference between two images (10 types, 6 domains); difference captions."""

from lmms_comparative.benchmarks.subtlebench.table import (
    CATEGORIES,
    COLOURS,
    HUB_REPO,
    JUDGE,
    ROOT_VARIABLE,
    ROUNDS,
    SBERT,
    STRATEGIES,
    task,
)
from lmms_comparative.metrics.lettered import LETTERS
from lmms_comparative.record import Benchmark, Parts


def _parts(benchmark: Benchmark) -> Parts:
    from lmms_comparative.benchmarks.subtlebench import commands, fixture, predictions, report

    return Parts(
        report=report.part(benchmark),
        predictions=predictions.PART,
        fixture=fixture.PART,
        commands=commands.COMMANDS,
        demo=commands.DEMO,
    )


BENCHMARK = Benchmark(
    name="subtlebench",
    title="VLM-SubtleBench",
    root_variable=ROOT_VARIABLE,
    hub_repo=HUB_REPO,
    # The type tasks' group, the strategies' and the image-order check, the captions, the multi-round protocols.
    task_families=tuple(task(f) for f in ("", *sorted((*STRATEGIES, "swap")), "caption", *ROUNDS)),
    answer_spaces=(LETTERS,),  # lettered options: what random_choice draws from
    scoring_calls=(JUDGE, SBERT),
    exports=(
        ("", "table2", (*((code, task("", code)) for code in CATEGORIES), ("avg", task("")))),
        ("caption", "table3", tuple((m, task("caption", m)) for m in ("css", "judge_accuracy"))),
    ),
    smoke_task="subtlebench_sp",  # one small task: what the tests that touch every benchmark run
    colours=COLOURS,
    parts=_parts,
)
