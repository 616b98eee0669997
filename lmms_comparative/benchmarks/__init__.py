"""A folder per benchmark (``benchmarks/<name>/``: its record, task YAMLs, hooks, data loader,
scoring, report, fixture). The registry that lists them is ``lmms_comparative.registry``; its
names are handed on here, read when asked for (a record imports the registry)."""

from __future__ import annotations

_NAMES = ("BENCHMARKS", "BY_NAME", "Benchmark", "ScoringCall", "of_module", "of_task")


def __getattr__(name: str):
    if name in _NAMES:
        from lmms_comparative import registry

        return getattr(registry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_NAMES)
