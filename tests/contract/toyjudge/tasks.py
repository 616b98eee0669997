"""Toy Judge's task file, stated once as data: ``python -m lmms_comparative.benchmarks.generate
tests/contract/toyjudge`` writes it to yaml/ (docs/adding-a-benchmark.md). Where Toy MCQ's file
spells out the loader's placeholder and the doc hooks, this one has ``generate_until`` write them,
as the benchmarks' task files do."""

from __future__ import annotations

from lmms_comparative.benchmarks.toyjudge import hooks

from lmms_comparative.tasklib.yamlgen import Hooks, Note, Source, Task, generate_until, generation, metric

H = Hooks(hooks)  # each hook named by the object: H(hooks.doc_to_text)

TASK = Task(
    "toyjudge",
    note="Toy Judge (docs/adding-a-benchmark.md). Data: TOYJUDGE_ROOT. The placeholder row only\n"
    "satisfies lmms-eval's loader; process_docs returns the real docs.",
    config={
        **generate_until(H, hooks.doc_to_visual, hooks.doc_to_text, hooks.doc_to_target),
        "process_docs": H(hooks.process_docs),
        "generation_kwargs": Note(
            "A free-text reply, which the judge reads: more room than a letter.", generation(64, 0)
        ),
        "process_results": H(hooks.process_results),
        "metric_list": [
            metric("accuracy", H(hooks.aggregate_accuracy)),
            metric("counts", H(hooks.aggregate_counts), None),
        ],
        "metadata": {"version": 1.0},
    },
)

SOURCE = Source(files=(TASK,))
