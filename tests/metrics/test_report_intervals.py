"""The report's per-run intervals (bootstrap_ci, grouped_bootstrap_ci) draw class counts, not an
index matrix: they must still give the textbook percentile bootstrap of the mean."""

from __future__ import annotations

import numpy as np
import pytest

from lmms_comparative.metrics import bootstrap


def _textbook(values, resamples=20_000, seed=11):
    """Resample item positions with replacement, written out."""
    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    return np.percentile(data[rng.integers(0, len(data), size=(resamples, len(data)))].mean(axis=1), [2.5, 97.5])


@pytest.mark.parametrize("kind", ["binary", "three scores", "continuous"])
def test_the_mean_interval_is_the_textbook_one(kind):
    rng = np.random.default_rng(5)
    n = 500
    values = {
        "binary": (rng.random(n) < 0.6).astype(float),
        "three scores": rng.choice([0.0, 0.5, 1.0], size=n),
        "continuous": rng.random(n),  # one class per item: the chunked index draw
    }[kind]
    low, high = bootstrap.bootstrap_ci(list(values), iterations=20_000)
    ref_low, ref_high = _textbook(values)
    assert low == pytest.approx(ref_low, abs=0.006) and high == pytest.approx(ref_high, abs=0.006)
    assert bootstrap.bootstrap_ci(list(values), iterations=20_000) == (low, high)  # seeded


def test_the_grouped_interval_resamples_each_group_on_its_own():
    rng = np.random.default_rng(8)
    groups = [(rng.random(300) < p).astype(float) for p in (0.3, 0.6, 0.9)]
    low, high = bootstrap.grouped_bootstrap_ci([list(g) for g in groups], iterations=20_000)
    draws = np.random.default_rng(2)
    means = np.mean([g[draws.integers(0, len(g), size=(20_000, len(g)))].mean(axis=1) for g in groups], axis=0)
    ref_low, ref_high = np.percentile(means, [2.5, 97.5])
    assert low == pytest.approx(ref_low, abs=0.006) and high == pytest.approx(ref_high, abs=0.006)
    # The Avg's interval is narrower than any column's: three independent groups averaged.
    widest = max(np.subtract(*reversed(bootstrap.bootstrap_ci(list(g)))) for g in groups)
    assert high - low < widest
