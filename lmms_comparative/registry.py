"""The registry: which benchmarks there are, in the order the report and the run summary show them,
and the lookups over their records. It imports each benchmark's package (its ``__init__.py``: the
record, ``BENCHMARK``, a ``record.Benchmark``, and a loader of its parts that runs on first use), so
that reading the registry imports neither lmms-eval nor a benchmark's parts. The drivers (the CLI,
report, verify, export, score, the preflight, the harness and the baseline models) read the
registry; the benchmarks and the kit never do.

Adding a benchmark: its folder, then its import and its entry in ``BENCHMARKS`` below (the registry
line). docs/adding-a-benchmark.md has the parts; the contract (``benchmarks/contract.py``) checks them.
"""

from __future__ import annotations

from types import ModuleType

from lmms_comparative.benchmarks import captionqa, compbench, diffspot, subtlebench, vidi, vidic, vlm2bench
from lmms_comparative.record import Benchmark


class RegistryError(Exception):
    """A package in ``BENCHMARKS`` that holds no record: one line naming it."""


def _record(package: ModuleType) -> Benchmark:
    """A benchmark package's record, checked: ``BENCHMARK``, a ``Benchmark`` named as its folder."""
    name = package.__name__.rsplit(".", 1)[-1]
    record = getattr(package, "BENCHMARK", None)
    if not isinstance(record, Benchmark) or record.name != name:
        raise RegistryError(
            f"the registry lists {name!r} (BENCHMARKS in lmms_comparative/registry.py), but "
            f"benchmarks/{name}/__init__.py defines no BENCHMARK = Benchmark(name={name!r}, ...)"
        )
    return record


# The registry line: every benchmark, in the order the report and the run summary show them.
BENCHMARKS: tuple[Benchmark, ...] = tuple(
    _record(package) for package in (subtlebench, captionqa, vlm2bench, compbench, vidi, diffspot, vidic)
)
BY_NAME: dict[str, Benchmark] = {b.name: b for b in BENCHMARKS}


def of_task(task: object) -> Benchmark | None:
    """The benchmark whose installed tasks or groups include exactly ``task``, or None: a name read
    from a folder means a task of ours only after this match (``Benchmark.has_task``)."""
    return next((b for b in BENCHMARKS if b.has_task(task)), None)


def of_loaded_task(name: object, config: object) -> Benchmark | None:
    """The benchmark a task lmms-eval loaded is ours by: its exact installed name (``of_task``), else
    the registered record its ``process_docs`` carries (``tasklib.docs_hook``): a team's variant, a
    YAML of its own name that includes one of ours, runs our hooks and is recorded as a variant."""
    found = of_task(name)
    if found is not None:
        return found
    record = getattr(getattr(config, "process_docs", None), "benchmark", None)
    return record if isinstance(record, Benchmark) and any(record is b for b in BENCHMARKS) else None


def named_like(name: str) -> Benchmark | None:
    """The benchmark whose prefix ``name`` has (``<benchmark>`` or ``<benchmark>_...``, the longest),
    or None: for messages about a name that looks like ours (a misspelt ``--tasks``), never to
    decide that a name from a folder is one of ours (``of_task`` does that, exactly)."""
    found = [b for b in BENCHMARKS if b.owns_task(name)]
    return max(found, key=lambda b: len(b.name)) if found else None


def setting_prefixes() -> tuple[str, ...]:
    """The prefixes of every environment variable of ours: the package's own
    (``LMMS_COMPARATIVE_``) and every benchmark's, from its record (``Benchmark.setting_prefixes``),
    so that a benchmark's settings are recorded without a list kept by hand."""
    return tuple(dict.fromkeys(("LMMS_COMPARATIVE_", *(p for b in BENCHMARKS for p in b.setting_prefixes))))


def side_log_names() -> tuple[str, ...]:
    """The names of every benchmark's side logs (``Benchmark.side_logs``): the per-item rows a
    scoring pass writes beside a samples log as ``<date>_<name>_<task>.jsonl``."""
    return tuple(sorted({name for b in BENCHMARKS for name in b.side_logs}))
