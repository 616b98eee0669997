"""Toy MCQ: a text-only multiple-choice benchmark of four questions, the example of
docs/adding-a-benchmark.md (the contract tests add it to a copy of the package).

The record (its facts, and the loader of its parts, which imports the part modules on first use and
hands each the record); the hooks read the record from here.
"""

from lmms_comparative.metrics.lettered import LETTERS
from lmms_comparative.record import Benchmark, Parts


def _parts(benchmark: Benchmark) -> Parts:
    from lmms_comparative.benchmarks.toymcq import fixture

    return Parts(fixture=fixture.PART)


BENCHMARK = Benchmark(
    name="toymcq",
    title="Toy MCQ",
    root_variable="TOYMCQ_ROOT",
    task_families=("toymcq",),
    smoke_task="toymcq",
    answer_spaces=(LETTERS,),  # lettered options: what random_choice draws from
    parts=_parts,
)
