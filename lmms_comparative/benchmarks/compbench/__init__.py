"""MLLM-CompBench: which of two images has more of a relative property (8 relativities, 16 sources)."""

from dataclasses import replace

from lmms_comparative.benchmarks.compbench.facts import FACTS
from lmms_comparative.record import FixturePart, PredictionsPart, ReportPart


def _report() -> ReportPart:
    from lmms_comparative.benchmarks.compbench import report

    return report.PART


def _predictions() -> PredictionsPart:
    from lmms_comparative.benchmarks.compbench import predictions

    return predictions.PART


def _fixture() -> FixturePart:
    from lmms_comparative.benchmarks.compbench import fixture

    return fixture.PART


BENCHMARK = replace(FACTS, report=_report, predictions=_predictions, fixture=_fixture)
