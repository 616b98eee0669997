"""Percentile bootstrap confidence intervals. Pure functions; no lmms-eval import."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

# A report asks for the same interval several times (a table's cell, the paper table it is placed
# in, the Overview): each is computed once per process, by the values' bytes (a pure function of
# them, the iterations, the level and the seed).
_SEEN: dict[tuple, tuple[float, float] | None] = {}
_SEEN_MAX = 4096


def _digest(data: np.ndarray) -> bytes:
    import hashlib

    return hashlib.blake2b(data.tobytes(), digest_size=16).digest()


def _remembered(key: tuple, compute):
    if key not in _SEEN:
        if len(_SEEN) >= _SEEN_MAX:
            _SEEN.clear()
        _SEEN[key] = compute()
    return _SEEN[key]


def bootstrap_ci(
    values: Sequence[float], iterations: int = 2000, level: float = 0.95, seed: int = 0
) -> tuple[float, float] | None:
    """(low, high) of the mean of ``values`` by resampling items with replacement; None for fewer
    than two values. Seeded, so a report is the same every time it is made."""
    data = np.asarray([v for v in values if v is not None], dtype=float)
    if len(data) < 2:
        return None
    return _remembered(
        ("mean", data.tobytes(), iterations, level, seed), lambda: _mean_ci(data, iterations, level, seed)
    )


def _mean_ci(data: np.ndarray, iterations: int, level: float, seed: int) -> tuple[float, float]:
    means = resampled_sums(data, np.ones(len(data)), iterations, np.random.default_rng(seed))[0] / len(data)
    return _percentiles(means, level)


def _percentiles(replicates: np.ndarray, level: float) -> tuple[float, float]:
    tail = (1 - level) / 2 * 100
    return float(np.percentile(replicates, tail)), float(np.percentile(replicates, 100 - tail))


def resampled_sums(
    values: np.ndarray, weights: np.ndarray, resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The sums of ``values`` and of ``weights`` over ``resamples`` draws of len(values) units with
    replacement. A draw's sums depend only on how many units of each distinct (value, weight) it
    picks, which is multinomial over those classes: one (resamples x K) draw where K, the number of
    classes, is small (a right-or-wrong item is one of two, a paired difference one of three), index
    draws in chunks otherwise; either way the memory is bounded, never resamples x n."""
    n = len(values)
    if n and np.all(weights == weights[0]):  # equal weights (the usual case): the values' classes, sorted alike
        distinct, counts = np.unique(values, return_counts=True)
        classes = np.stack([distinct, np.full(len(distinct), weights[0])], axis=1)
    else:
        classes, counts = np.unique(np.stack([values, weights], axis=1), axis=0, return_counts=True)
    if len(classes) <= 64:
        picked = rng.multinomial(n, counts / n, size=resamples).astype(float)
        return picked @ classes[:, 0], picked @ classes[:, 1]
    sums, dens = np.empty(resamples), np.empty(resamples)
    chunk = max(1, 4_000_000 // max(n, 1))
    for start in range(0, resamples, chunk):
        stop = min(resamples, start + chunk)
        picks = rng.integers(0, n, size=(stop - start, n), dtype=np.int32)
        sums[start:stop], dens[start:stop] = values[picks].sum(axis=1), weights[picks].sum(axis=1)
    return sums, dens


def grouped_bootstrap_ci(
    groups: Sequence[Sequence[float]], iterations: int = 2000, level: float = 0.95, seed: int = 0
) -> tuple[float, float] | None:
    """CI of the unweighted mean of per-group means (a benchmark's Avg over its columns), each
    group resampled on its own."""
    arrays = [np.asarray([v for v in g if v is not None], dtype=float) for g in groups]
    arrays = [a for a in arrays if len(a)]
    if not arrays or all(len(a) < 2 for a in arrays):
        return None
    key = ("grouped", tuple(_digest(a) for a in arrays), iterations, level, seed)
    return _remembered(key, lambda: _grouped_ci(arrays, iterations, level, seed))


def _grouped_ci(arrays: list, iterations: int, level: float, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    means = np.mean([resampled_sums(a, np.ones(len(a)), iterations, rng)[0] / len(a) for a in arrays], axis=0)
    return _percentiles(means, level)


# ---- intervals computed where a task is scored --------------------------------------------------
# Benchmarks whose scoring runs after generation (a reader or judge pass, corpus-level caption
# metrics) have no per-item scores in lmms-eval's samples logs, so their tasks compute the interval
# in the aggregation and publish it as a ``ci95`` metric: {metric: {value, low, high, se}}.

DEFAULT_ITERATIONS = 1000


# The range of a metric that is a share of items (every ``ci95`` metric unless its entry says
# otherwise with ``bounds``): a normal interval built from standard errors is clipped to it.
PROPORTION = (0.0, 1.0)


def interval(
    value: float, replicates: Sequence[float], level: float = 0.95, bounds: tuple[float, float] | None = None
) -> dict | None:
    """Percentile interval and bootstrap standard error of ``value`` from its replicates;
    ``bounds`` (the metric's range, when it is not a share) is recorded for combined intervals."""
    reps = np.asarray(replicates, dtype=float)
    reps = reps[~np.isnan(reps)]
    if len(reps) < 2 or value is None or value != value:
        return None
    tail = (1 - level) / 2 * 100
    out: dict[str, float | list[float]] = {
        "value": float(value),
        "low": float(np.percentile(reps, tail)),
        "high": float(np.percentile(reps, 100 - tail)),
        "se": float(reps.std(ddof=1)),
    }
    if bounds is not None:
        out["bounds"] = [float(bounds[0]), float(bounds[1])]
    return out


def resampled_indices(n: int, iterations: int, seed: int = 0, chunk: int = 250):
    """Chunks of an (iterations, n) matrix of unit indices drawn with replacement, seeded."""
    rng = np.random.default_rng(seed)
    for start in range(0, iterations, chunk):
        yield rng.integers(0, n, size=(min(chunk, iterations - start), n))


def vector_bootstrap(
    n_units: int,
    statistic,
    estimate: dict[str, float],
    iterations: int = DEFAULT_ITERATIONS,
    seed: int = 0,
    bounds: Mapping[str, tuple[float, float]] | None = None,
) -> dict:
    """Intervals of every metric in ``estimate``. ``statistic(idx)`` maps an (b, n_units) index
    matrix to {metric: array of b replicate values}; units are resampled with replacement.
    ``bounds``: the range of each metric that is not a share of items."""
    if n_units < 2:
        return {}
    replicates: dict[str, list] = {k: [] for k in estimate}
    for idx in resampled_indices(n_units, iterations, seed):
        for key, values in statistic(idx).items():
            if key in replicates:
                replicates[key].extend(np.asarray(values, dtype=float).tolist())
    out = {k: interval(estimate[k], replicates[k], bounds=(bounds or {}).get(k)) for k in estimate}
    return {k: v for k, v in out.items() if v is not None}


def unit_bootstrap(units: Sequence, statistic, iterations: int = DEFAULT_ITERATIONS, seed: int = 0) -> dict:
    """Intervals of a metric computed by an arbitrary function of the units (pairs, items).
    ``statistic(list_of_units) -> {metric: value}`` is the benchmark's own scoring function, rerun
    on each resample; a unit drawn twice is passed twice, so the function must not merge units
    by an id (re-key them first)."""
    estimate = statistic(list(units))

    def replicates(idx):
        rows = [statistic([units[i] for i in row]) for row in idx]
        return {k: [r[k] for r in rows] for k in estimate}

    return vector_bootstrap(len(units), replicates, estimate, iterations, seed)


def cluster_mean_intervals(
    clusters: Sequence[Sequence[Mapping]],
    keys: Sequence[str] | Mapping[str, str],
    iterations: int = DEFAULT_ITERATIONS,
    seed: int = 0,
) -> dict:
    """Intervals of per-row means (``sum(row[field]) / rows``) when rows come in clusters that are
    resampled whole (a CaptionQA image and its questions): the ratio of resampled sums. ``keys``
    names the row fields, or maps each metric name to its row field."""
    fields = dict(keys) if isinstance(keys, Mapping) else {k: k for k in keys}
    keys = list(fields)
    clusters = [c for c in clusters if len(c)]
    sizes = np.asarray([len(c) for c in clusters], dtype=float)
    sums = {k: np.asarray([sum(float(r[fields[k]]) for r in c) for c in clusters]) for k in keys}
    if not len(sizes):
        return {}
    estimate = {k: float(sums[k].sum() / sizes.sum()) for k in keys}

    def statistic(idx):
        total = sizes[idx].sum(axis=1)
        return {k: sums[k][idx].sum(axis=1) / total for k in keys}

    return vector_bootstrap(len(clusters), statistic, estimate, iterations, seed)


def mean_of_intervals(
    parts: Sequence[Mapping | None], correlated: bool = False
) -> dict[str, float | list[float]] | None:
    """The interval of an unweighted mean of estimates (an Overall over subtasks or domains): the
    mean of the values, and the normal 95% interval of its standard error: sqrt(sum se_i^2) / k for
    independent parts, the mean se_i when the parts score the same items (``correlated``: an upper
    bound, exact for perfectly correlated parts). The interval is clipped to the metric's range:
    the parts' ``bounds``, else that of a share, [0, 1]."""
    present = [p for p in parts if p]
    if not present:
        return None
    value = float(np.mean([p["value"] for p in present]))
    ses = [p["se"] for p in present]
    se = float(np.mean(ses)) if correlated else float(np.sqrt(sum(x**2 for x in ses)) / len(present))
    lo, hi = present[0].get("bounds") or PROPORTION
    out: dict[str, float | list[float]] = {
        "value": value,
        "low": max(lo, value - 1.96 * se),
        "high": min(hi, value + 1.96 * se),
        "se": se,
    }
    if present[0].get("bounds"):
        out["bounds"] = [lo, hi]
    return out


def combine_ci95(values: Sequence[Mapping], correlated: bool = False) -> dict:
    """Group aggregation of the tasks' ``ci95`` dicts: each metric as mean_of_intervals. Only
    metrics every task reports are combined (an Overall needs all of its parts; a part that could
    not be scored, a NaN, leaves the group without intervals)."""
    if any(isinstance(v, float) for v in values):
        return {}
    values = [v for v in values if isinstance(v, Mapping)]
    if not values:
        return {}
    shared = set.intersection(*(set(k for k, x in v.items() if isinstance(x, Mapping)) for v in values))
    out = {k: mean_of_intervals([v[k] for v in values], correlated) for k in sorted(shared)}
    return {k: v for k, v in out.items() if v is not None}
