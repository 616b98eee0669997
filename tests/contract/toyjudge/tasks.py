"""Toy Judge's task file, stated once as data: ``python -m lmms_comparative.benchmarks.generate
tests/contract/toyjudge`` writes it to yaml/ (docs/adding-a-benchmark.md)."""

from __future__ import annotations

from lmms_comparative.benchmarks.toyjudge import hooks

from lmms_comparative.tasklib.yamlgen import PLACEHOLDER, Hooks, Source, Task, generation, metric

H = Hooks(hooks)  # each hook named by the object: H(hooks.doc_to_text)

SOURCE = Source(
    files=(
        Task(
            "toyjudge",
            note="Toy Judge (docs/adding-a-benchmark.md). Data: TOYJUDGE_ROOT. The placeholder row only\n"
            "satisfies lmms-eval's loader; process_docs returns the real docs.",
            config={
                **PLACEHOLDER,
                "output_type": "generate_until",
                "process_docs": H(hooks.process_docs),
                "doc_to_visual": H(hooks.doc_to_visual),
                "doc_to_text": H(hooks.doc_to_text),
                "doc_to_target": H(hooks.doc_to_target),
                "generation_kwargs": generation(64, 0),
                "process_results": H(hooks.process_results),
                "metric_list": [
                    metric("accuracy", H(hooks.aggregate_accuracy)),
                    metric("counts", H(hooks.aggregate_counts), None),
                ],
                "metadata": {"version": 1.0},
            },
        ),
    ),
)
