"""Toy MCQ: a text-only multiple-choice benchmark of four questions, the example of
docs/adding-a-benchmark.md (the contract tests add it to a copy of the package)."""

from dataclasses import replace

from lmms_comparative.benchmarks.toymcq.facts import FACTS

from lmms_comparative.record import FixturePart


def _fixture() -> FixturePart:
    from lmms_comparative.benchmarks.toymcq import fixture

    return fixture.PART


BENCHMARK = replace(FACTS, fixture=_fixture)
