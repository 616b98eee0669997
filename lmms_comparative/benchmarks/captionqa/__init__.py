"""CaptionQA: a caption, then a text-only reader answers the image's questions from it alone."""

from dataclasses import replace

from lmms_comparative.benchmarks.captionqa.facts import FACTS
from lmms_comparative.record import Benchmark, Parts


def _parts(benchmark: Benchmark) -> Parts:
    from lmms_comparative.benchmarks.captionqa import commands, fixture, predictions, report

    return Parts(report=report.PART, predictions=predictions.PART, fixture=fixture.PART, commands=commands.COMMANDS)


BENCHMARK = replace(FACTS, parts=_parts)
