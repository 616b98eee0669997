"""ViDi: describe one (granular) or all (global) differences of a spot-the-difference pair."""

from dataclasses import replace

from lmms_comparative.benchmarks.vidi.facts import FACTS
from lmms_comparative.record import Benchmark, Parts


def _parts(benchmark: Benchmark) -> Parts:
    from lmms_comparative.benchmarks.vidi import fixture, predictions, report

    return Parts(report=report.PART, predictions=predictions.PART, fixture=fixture.PART)


BENCHMARK = replace(FACTS, parts=_parts)
