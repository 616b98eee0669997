"""VLM²-Bench: link matching cues across images or a video (T/F, counting, grouping, description)."""

from dataclasses import replace

from lmms_comparative.benchmarks.vlm2bench.facts import FACTS
from lmms_comparative.record import FixturePart, PredictionsPart, ReportPart


def _report() -> ReportPart:
    from lmms_comparative.benchmarks.vlm2bench import report

    return report.PART


def _predictions() -> PredictionsPart:
    from lmms_comparative.benchmarks.vlm2bench import predictions

    return predictions.PART


def _fixture() -> FixturePart:
    from lmms_comparative.benchmarks.vlm2bench import fixture

    return fixture.PART


BENCHMARK = replace(FACTS, report=_report, predictions=_predictions, fixture=_fixture)
