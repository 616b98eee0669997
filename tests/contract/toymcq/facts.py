"""Toy MCQ: a text-only multiple-choice benchmark of four questions, the example of
docs/adding-a-benchmark.md (the contract tests add it to a copy of the package).

The facts of the record (``__init__.py`` adds the parts): what the parts themselves read.
"""

from lmms_comparative.record import Benchmark

FACTS = Benchmark(
    name="toymcq",
    title="Toy MCQ",
    root_variable="TOYMCQ_ROOT",
    task_families=("toymcq",),
    smoke_task="toymcq",
    answer_spaces=("letters",),
)
