"""VLM-SubtleBench: which subtle difference between two images (10 types, 6 domains); difference captions."""

from dataclasses import replace

from lmms_comparative.benchmarks.subtlebench.facts import FACTS
from lmms_comparative.record import Command, Demo, FixturePart, PredictionsPart, ReportPart


def _report() -> ReportPart:
    from lmms_comparative.benchmarks.subtlebench import report

    return report.PART


def _predictions() -> PredictionsPart:
    from lmms_comparative.benchmarks.subtlebench import predictions

    return predictions.PART


def _fixture() -> FixturePart:
    from lmms_comparative.benchmarks.subtlebench import fixture

    return fixture.PART


def _commands() -> tuple[Command, ...]:
    from lmms_comparative.benchmarks.subtlebench import commands

    return commands.COMMANDS


def _demo() -> Demo:
    from lmms_comparative.benchmarks.subtlebench import commands

    return commands.DEMO


BENCHMARK = replace(FACTS, report=_report, predictions=_predictions, fixture=_fixture, commands=_commands, demo=_demo)
