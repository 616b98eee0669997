"""MLLM-CompBench: which of two images has more of a relative property (8 relativities, 16 sources)."""

from dataclasses import replace

from lmms_comparative.benchmarks.compbench.facts import FACTS
from lmms_comparative.record import Benchmark, Parts


def _parts(benchmark: Benchmark) -> Parts:
    from lmms_comparative.benchmarks.compbench import fixture, predictions, report

    return Parts(report=report.PART, predictions=predictions.PART, fixture=fixture.PART)


BENCHMARK = replace(FACTS, parts=_parts)
