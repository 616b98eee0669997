"""CaptionQA: a caption, then a text-only reader answers the image's questions from it alone."""

from lmms_comparative.benchmarks.captionqa.scoring import DOMAINS
from lmms_comparative.benchmarks.captionqa.table import HUB_REPO, IMAGE, PROMPTS, READER, ROOT_VARIABLE, task_name
from lmms_comparative.data.replies import ItemKey
from lmms_comparative.metrics.lettered import LETTERS
from lmms_comparative.record import Benchmark, Parts


def _parts(benchmark: Benchmark) -> Parts:
    from lmms_comparative.benchmarks.captionqa import commands, fixture, predictions, report

    return Parts(
        report=report.part(benchmark), predictions=predictions.PART, fixture=fixture.PART, commands=commands.COMMANDS
    )


BENCHMARK = Benchmark(
    name="captionqa",
    title="CaptionQA",
    root_variable=ROOT_VARIABLE,
    hub_repo=HUB_REPO,
    task_families=(*(task_name(p) for p in PROMPTS), task_name(IMAGE)),
    answer_spaces=(LETTERS,),  # lettered options (QA on the image): what random_choice draws from
    scoring_calls=(READER,),
    exports=tuple(
        (
            prompt,
            f"table3_{prompt}",
            tuple((c, task_name(prompt) if c == "overall" else task_name(prompt, c)) for c in ("overall", *DOMAINS)),
        )
        for prompt in PROMPTS
    ),
    smoke_task=task_name("simple", "natural"),  # one small task: what the tests that touch every benchmark run
    item_key=ItemKey(("id",)),
    side_logs=("reader",),  # the reader's answer to every question (reader_pass.py)
    parts=_parts,
)
