"""The registry: which benchmarks there are, in the order the report and the run summary show them,
and the lookups over their records. It imports nothing of the package: each benchmark's record
(``BENCHMARK`` in ``benchmarks/<name>/__init__.py``, a ``record.Benchmark``) is read by the name
listed here, on first use, so that reading the registry imports neither lmms-eval nor a
benchmark's code. The drivers (the CLI, report, verify, export, score, the preflight, the harness
and the baseline models) read the registry; the benchmarks and the kit never do
(``tools/import_graph.py`` counts this module's lookups as its arrows to every benchmark).

Adding a benchmark: its folder, then its name in ``NAMES`` below (the registry line).
docs/adding-a-benchmark.md has the parts; the contract (``benchmarks/contract.py``) checks them.
"""

from __future__ import annotations

import functools
import importlib

BENCHMARKS_PACKAGE = "lmms_comparative.benchmarks"

# The registry line: every benchmark, in the order the report and the run summary show them.
NAMES: tuple[str, ...] = ("subtlebench", "captionqa", "vlm2bench", "compbench", "vidi", "diffspot")


class RegistryError(Exception):
    """A name in ``NAMES`` whose folder holds no record: one line naming both."""


@functools.cache
def _records() -> tuple:
    """Each name's record (``benchmarks/<name>/__init__.py``'s ``BENCHMARK``, a ``record.Benchmark``), read once."""
    records = []
    for name in NAMES:
        record = getattr(importlib.import_module(f"{BENCHMARKS_PACKAGE}.{name}"), "BENCHMARK", None)
        if type(record).__name__ != "Benchmark" or getattr(record, "name", None) != name:
            raise RegistryError(
                f"the registry lists {name!r} (NAMES in lmms_comparative/registry.py), but benchmarks/{name}/__init__.py defines no BENCHMARK = Benchmark(name={name!r}, ...)"
            )
        records.append(record)
    return tuple(records)


@functools.cache
def _by_name() -> dict:
    return {b.name: b for b in _records()}


def __getattr__(name: str):
    """``BENCHMARKS`` (the records in order) and ``BY_NAME`` ({name: record}), read on first use."""
    if name == "BENCHMARKS":
        return _records()
    if name == "BY_NAME":
        return _by_name()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def of_task(task: str):  # -> record.Benchmark | None
    """The benchmark whose installed tasks or groups include exactly ``task``, or None: a name read
    from a folder means a task of ours only after this match (``Benchmark.has_task``)."""
    return next((b for b in _records() if b.has_task(task)), None)


def named_like(name: str):  # -> record.Benchmark | None
    """The benchmark whose prefix ``name`` has (``<benchmark>`` or ``<benchmark>_...``, the longest),
    or None: for messages about a name that looks like ours (a misspelt ``--tasks``), never to
    decide that a name from a folder is one of ours (``of_task`` does that, exactly)."""
    found = [b for b in _records() if b.owns_task(name)]
    return max(found, key=lambda b: len(b.name)) if found else None


def of_module(module: str):  # -> record.Benchmark | None
    """The benchmark whose folder holds the Python module ``module``, or None."""
    return next((b for b in _records() if b.owns_module(module)), None)


def setting_prefixes() -> tuple[str, ...]:
    """The prefixes of every environment variable of ours: the package's own
    (``LMMS_COMPARATIVE_``) and every benchmark's, from its record (``Benchmark.setting_prefixes``),
    so that a benchmark's settings are recorded without a list kept by hand."""
    return tuple(dict.fromkeys(("LMMS_COMPARATIVE_", *(p for b in _records() for p in b.setting_prefixes))))


def side_log_names() -> tuple[str, ...]:
    """The names of every benchmark's side logs (``Benchmark.side_logs``): the per-item rows a
    scoring pass writes beside a samples log as ``<date>_<name>_<task>.jsonl``."""
    return tuple(sorted({name for b in _records() for name in b.side_logs}))
