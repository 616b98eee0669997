"""VLM-SubtleBench: which subtle difference between two images (10 types, 6 domains); difference captions."""

from dataclasses import replace

from lmms_comparative.benchmarks.subtlebench.facts import FACTS
from lmms_comparative.record import Benchmark, Parts


def _parts(benchmark: Benchmark) -> Parts:
    from lmms_comparative.benchmarks.subtlebench import commands, fixture, predictions, report

    return Parts(
        report=report.PART,
        predictions=predictions.PART,
        fixture=fixture.PART,
        commands=commands.COMMANDS,
        demo=commands.DEMO,
    )


BENCHMARK = replace(FACTS, parts=_parts)
