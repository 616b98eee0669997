"""ViDi: describe one (granular) or all (global) differences of a spot-the-difference pair."""

from dataclasses import replace

from lmms_comparative.benchmarks.vidi.facts import FACTS
from lmms_comparative.record import FixturePart, PredictionsPart, ReportPart


def _report() -> ReportPart:
    from lmms_comparative.benchmarks.vidi import report

    return report.PART


def _predictions() -> PredictionsPart:
    from lmms_comparative.benchmarks.vidi import predictions

    return predictions.PART


def _fixture() -> FixturePart:
    from lmms_comparative.benchmarks.vidi import fixture

    return fixture.PART


BENCHMARK = replace(FACTS, report=_report, predictions=_predictions, fixture=_fixture)
