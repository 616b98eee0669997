"""Percentile bootstrap confidence intervals. Pure functions; no lmms-eval import."""

from __future__ import annotations

from typing import Sequence

import numpy as np


def bootstrap_ci(values: Sequence[float], iterations: int = 2000, level: float = 0.95, seed: int = 0) -> tuple[float, float] | None:
    """(low, high) of the mean of ``values`` by resampling items with replacement; None for fewer
    than two values. Seeded, so a report is the same every time it is made."""
    data = np.asarray([v for v in values if v is not None], dtype=float)
    if len(data) < 2:
        return None
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, len(data), size=(iterations, len(data)))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    return float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail))


def grouped_bootstrap_ci(groups: Sequence[Sequence[float]], iterations: int = 2000, level: float = 0.95, seed: int = 0) -> tuple[float, float] | None:
    """CI of the unweighted mean of per-group means (a benchmark's Avg over its columns), each
    group resampled on its own."""
    arrays = [np.asarray([v for v in g if v is not None], dtype=float) for g in groups]
    arrays = [a for a in arrays if len(a)]
    if not arrays or all(len(a) < 2 for a in arrays):
        return None
    rng = np.random.default_rng(seed)
    means = np.mean([a[rng.integers(0, len(a), size=(iterations, len(a)))].mean(axis=1) for a in arrays], axis=0)
    tail = (1 - level) / 2 * 100
    return float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail))
