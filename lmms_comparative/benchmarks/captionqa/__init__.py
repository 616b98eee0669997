"""CaptionQA: a caption, then a text-only reader answers the image's questions from it alone."""

from dataclasses import replace

from lmms_comparative.benchmarks.captionqa.facts import FACTS
from lmms_comparative.record import Command, FixturePart, PredictionsPart, ReportPart


def _report() -> ReportPart:
    from lmms_comparative.benchmarks.captionqa import report

    return report.PART


def _predictions() -> PredictionsPart:
    from lmms_comparative.benchmarks.captionqa import predictions

    return predictions.PART


def _fixture() -> FixturePart:
    from lmms_comparative.benchmarks.captionqa import fixture

    return fixture.PART


def _commands() -> tuple[Command, ...]:
    from lmms_comparative.benchmarks.captionqa import commands

    return commands.COMMANDS


BENCHMARK = replace(FACTS, report=_report, predictions=_predictions, fixture=_fixture, commands=_commands)
