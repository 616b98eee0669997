"""DiffSpot: list every difference between two screenshots of a web page; a judge LLM decides
whether the one CSS mutation was found, or, on an unchanged pair, that none was invented."""

from dataclasses import replace

from lmms_comparative.benchmarks.diffspot.facts import FACTS
from lmms_comparative.record import FixturePart, PredictionsPart, ReportPart


def _report() -> ReportPart:
    from lmms_comparative.benchmarks.diffspot import report

    return report.PART


def _predictions() -> PredictionsPart:
    from lmms_comparative.benchmarks.diffspot import predictions

    return predictions.PART


def _fixture() -> FixturePart:
    from lmms_comparative.benchmarks.diffspot import fixture

    return fixture.PART


BENCHMARK = replace(FACTS, report=_report, predictions=_predictions, fixture=_fixture)
