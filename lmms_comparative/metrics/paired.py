"""Paired comparison of two runs on the same scoring units: the statistics ``compare`` and the report
use. Pure functions; no lmms-eval import.

- **Paired bootstrap** (Efron & Tibshirani 1993, ch. 13; Koehn 2004 for evaluation): units are
  resampled with replacement, the same draw for both runs, within each stratum where the metric is
  stratified (SubtleBench's AVG over its types, CompBench's Avg over its columns); the interval is
  the 2.5th and 97.5th percentiles of the resampled differences. Seeded.
- **Exact McNemar test** (McNemar 1947; the exact form is the two-sided binomial test of the
  discordant pairs, Fagerland, Lydersen & Laake 2013): where a unit is right or wrong.
- **Paired permutation test** (Fisher 1935; sign flips of the per-unit differences): where a unit's
  score is not binary (CaptionQA's partial credit, counting scores). Exact over all 2^n sign
  patterns up to ``EXACT_UP_TO`` units, else Monte Carlo with the add-one estimate (Phipson & Smyth
  2010).
- **Holm's step-down adjustment** (Holm 1979) across one task's categories.
- **Minimum detectable difference** at 80% power and a two-sided 5% level, from the normal
  approximation of the paired difference: (z_0.975 + z_0.8) * sd(d) / sqrt(n).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from lmms_comparative.metrics.bootstrap import resampled_sums

BOOTSTRAP_RESAMPLES = 10_000
PERMUTATIONS = 10_000
EXACT_UP_TO = 16  # 2^16 sign patterns
SEED = 0
Z_975 = 1.959963984540054
Z_80 = 0.8416212335729143

# Per-unit numbers: a list from a caller, or the arrays ``compare_units`` passes on.
Values = Sequence[float] | np.ndarray
# Each unit's stratum: a name, or a number (a group's task by its place: quicker to sort).
Strata = Sequence[str] | Sequence[int]


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value: ``a_only`` units right under A only, ``b_only`` under B only;
    twice the smaller binomial tail at p = 1/2, at most 1 (1.0 without discordant units). The tail
    is summed in log space from the binomial coefficients' running products (no scipy: its import
    alone cost ``compare`` 1.3 s)."""
    n = a_only + b_only
    if n == 0:
        return 1.0
    k = min(a_only, b_only)
    steps = np.log(np.arange(n, n - k, -1, dtype=float)) - np.log(np.arange(1, k + 1, dtype=float))
    log_terms = np.concatenate(([0.0], np.cumsum(steps))) - n * math.log(2.0)  # log C(n, i) / 2^n, i <= k
    top = float(log_terms.max())
    tail = math.exp(top) * float(np.exp(log_terms - top).sum())
    return float(min(1.0, 2.0 * tail))


def permutation_test(differences: Values, resamples: int = PERMUTATIONS, seed: int = SEED) -> float:
    """Two-sided paired permutation p-value of the mean of ``differences`` (B - A per unit) under
    random sign flips: exact up to ``EXACT_UP_TO`` units, else ``resamples`` seeded draws."""
    d = np.asarray(differences, dtype=float)
    n = len(d)
    if n == 0 or not np.any(d):
        return 1.0
    observed = abs(d.sum()) - 1e-12 * max(1.0, float(np.abs(d).sum()))  # a tie counts as extreme
    if n <= EXACT_UP_TO:
        signs = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1) * 2 - 1
        return float(np.mean(np.abs(signs @ d) >= observed))
    # A sign-flipped sum depends only on how many of each distinct |d| flip: per value, a binomial
    # draw (the same distribution as flipping each unit's sign, at K draws per resample, not n).
    sizes, counts = np.unique(np.abs(d[d != 0]), return_counts=True)
    rng = np.random.default_rng(seed)
    flipped = rng.binomial(counts, 0.5, size=(resamples, len(counts)))
    sums = (2 * flipped - counts) @ sizes
    hits = int(np.sum(np.abs(sums) >= observed))
    return (hits + 1) / (resamples + 1)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given (each at most 1, monotone in rank)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def paired_bootstrap(
    a: Values,
    b: Values,
    strata: Strata | None = None,
    macro: bool = False,
    weights: Values | None = None,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = SEED,
) -> tuple[float, float]:
    """95% interval of B - A, resampling units within each stratum, the same draw for both runs.
    The metric: the weighted mean over units (``weights``: a unit's share of the denominator, e.g.
    a CaptionQA image's question count; 1 each by default), or with ``macro`` the mean of the
    strata's weighted means."""
    a_arr, b_arr = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    w = np.ones(len(a_arr)) if weights is None else np.asarray(weights, dtype=float)
    labels = np.asarray(list(strata) if strata is not None else [""] * len(a_arr))
    names, inverse = np.unique(labels, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(len(names) + 1))
    first_seen = sorted(range(len(names)), key=lambda k: int(order[bounds[k]]))  # the strata in order of appearance
    groups = {str(names[k]): order[bounds[k] : bounds[k + 1]] for k in first_seen}
    rng = np.random.default_rng(seed)
    weighted = (b_arr - a_arr) * w
    parts = [resampled_sums(weighted[index], w[index], resamples, rng) for index in groups.values()]
    if macro:
        replicates = np.mean([num / den for num, den in parts], axis=0)
    else:
        replicates = sum(num for num, _ in parts) / sum(den for _, den in parts)
    low, high = np.percentile(replicates, [2.5, 97.5])
    return float(low), float(high)


def metric(
    values: Values,
    strata: Strata | None = None,
    macro: bool = False,
    weights: Values | None = None,
) -> float:
    """The weighted mean over units, or with ``macro`` the mean of the strata's weighted means."""
    v = np.asarray(values, dtype=float)
    w = np.ones(len(v)) if weights is None else np.asarray(weights, dtype=float)
    if not len(v):
        return float("nan")
    if not macro or strata is None:
        return float((v * w).sum() / w.sum())
    labels = np.asarray(list(strata))
    return float(
        np.mean([(v[labels == s] * w[labels == s]).sum() / w[labels == s].sum() for s in dict.fromkeys(strata)])
    )


def minimum_detectable_difference(differences: Values, a: Values) -> float:
    """The smallest |B - A| the unit count detects at 80% power (two-sided 5%): from the sd of the
    paired differences, or, where they are all equal (identical runs), from A's own spread as if
    the runs were independent (sd * sqrt(2))."""
    d = np.asarray(differences, dtype=float)
    n = len(d)
    if n < 2:
        return float("nan")
    sd = float(d.std(ddof=1))
    if sd == 0:
        sd = float(np.asarray(a, dtype=float).std(ddof=1)) * math.sqrt(2)
    return (Z_975 + Z_80) * sd / math.sqrt(n)


def compare_units(
    a: Sequence[float],
    b: Sequence[float],
    binary: bool,
    strata: Strata | None = None,
    macro: bool = False,
    weights: Sequence[float] | None = None,
    scale: float = 1.0,
) -> dict:
    """One comparison row's numbers on paired units (``a[i]`` and ``b[i]`` the same unit): A, B,
    B - A and its interval at ``scale`` (100 for a percentage), the p-value (exact McNemar where
    ``binary``, else the permutation test of the weighted differences), the flips (units better
    under A, under B), the minimum detectable difference."""
    a_arr, b_arr = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    w = np.ones(len(a_arr)) if weights is None else np.asarray(weights, dtype=float)
    value_a, value_b = metric(a_arr, strata, macro, w), metric(b_arr, strata, macro, w)
    low, high = paired_bootstrap(a_arr, b_arr, strata, macro, w)
    a_only, b_only = int(np.sum(a_arr > b_arr)), int(np.sum(b_arr > a_arr))
    p = mcnemar_exact(a_only, b_only) if binary else permutation_test((b_arr - a_arr) * w)
    return {
        "a": value_a * scale,
        "b": value_b * scale,
        "delta": (value_b - value_a) * scale,
        "ci95": [low * scale, high * scale],
        "p_value": p,
        "n": int(len(a_arr)),
        "a_only": a_only,
        "b_only": b_only,
        "mdd": minimum_detectable_difference((b_arr - a_arr) * w / w.mean(), a_arr) * scale,
        "test": "exact McNemar" if binary else "paired permutation",
    }
