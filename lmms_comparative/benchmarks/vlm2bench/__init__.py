"""VLM²-Bench: link matching cues across images or a video (T/F, counting, grouping, description)."""

from dataclasses import replace

from lmms_comparative.benchmarks.vlm2bench.facts import FACTS
from lmms_comparative.record import Benchmark, Parts


def _parts(benchmark: Benchmark) -> Parts:
    from lmms_comparative.benchmarks.vlm2bench import fixture, predictions, report

    return Parts(report=report.PART, predictions=predictions.PART, fixture=fixture.PART)


BENCHMARK = replace(FACTS, parts=_parts)
