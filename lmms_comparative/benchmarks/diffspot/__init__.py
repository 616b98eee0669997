"""DiffSpot: list every difference between two screenshots of a web page; a judge LLM decides
whether the one CSS mutation was found, or, on an unchanged pair, that none was invented."""

from dataclasses import replace

from lmms_comparative.benchmarks.diffspot.facts import FACTS
from lmms_comparative.record import Benchmark, Parts


def _parts(benchmark: Benchmark) -> Parts:
    from lmms_comparative.benchmarks.diffspot import fixture, predictions, report

    return Parts(report=report.PART, predictions=predictions.PART, fixture=fixture.PART)


BENCHMARK = replace(FACTS, parts=_parts)
