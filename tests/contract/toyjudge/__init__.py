"""Toy Judge: image pairs, "what differs?", a free-text reply that an LLM judges against the gold
answer; the guide's second example (docs/adding-a-benchmark.md: images and an LLM judge). The
contract tests add it to a copy of the package."""

from dataclasses import replace

from lmms_comparative.benchmarks.toyjudge.facts import FACTS

from lmms_comparative.record import FixturePart


def _fixture() -> FixturePart:
    from lmms_comparative.benchmarks.toyjudge import fixture

    return fixture.PART


BENCHMARK = replace(FACTS, fixture=_fixture)
