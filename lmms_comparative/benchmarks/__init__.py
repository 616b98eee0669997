"""The registry: one record per benchmark, in the order the report and the run summary show them.

Adding a benchmark: a folder ``benchmarks/<name>/`` whose ``__init__.py`` defines ``BENCHMARK`` (a
``registry.Benchmark``), then one line below. docs/adding-a-benchmark.md has the parts, which are
required, the contract (``python -m lmms_comparative.benchmarks.contract <name>`` checks it) and a
worked example.
"""

from __future__ import annotations

from lmms_comparative.benchmarks.captionqa import BENCHMARK as _captionqa
from lmms_comparative.benchmarks.compbench import BENCHMARK as _compbench
from lmms_comparative.benchmarks.registry import Benchmark
from lmms_comparative.benchmarks.subtlebench import BENCHMARK as _subtlebench
from lmms_comparative.benchmarks.vidi import BENCHMARK as _vidi
from lmms_comparative.benchmarks.vlm2bench import BENCHMARK as _vlm2bench

BENCHMARKS: tuple[Benchmark, ...] = (_subtlebench, _captionqa, _vlm2bench, _compbench, _vidi)
BY_NAME: dict[str, Benchmark] = {b.name: b for b in BENCHMARKS}


def of_task(task: str) -> Benchmark | None:
    """The benchmark a task or group name belongs to (the longest matching prefix), or None."""
    found = [b for b in BENCHMARKS if b.owns_task(task)]
    return max(found, key=lambda b: len(b.name)) if found else None


def of_module(module: str) -> Benchmark | None:
    """The benchmark whose folder holds the Python module ``module``, or None."""
    return next((b for b in BENCHMARKS if b.owns_module(module)), None)


__all__ = ["BENCHMARKS", "BY_NAME", "Benchmark", "of_module", "of_task"]
