"""The paired statistics (metrics/paired.py) against references computed another way: scipy's
binomial test and exact fractions for McNemar, brute-force enumeration for the permutation test,
hand-worked Holm, and the paired bootstrap's coverage on simulated pairs with a known difference."""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from scipy.stats import binomtest

from lmms_comparative.metrics import paired


@pytest.mark.parametrize(("a_only", "b_only"), [(0, 0), (0, 1), (3, 3), (2, 9), (10, 1), (40, 61), (500, 560)])
def test_exact_mcnemar_is_the_two_sided_binomial_test_of_the_discordant_units(a_only, b_only):
    n = a_only + b_only
    expected = 1.0 if n == 0 else binomtest(b_only, n, 0.5, alternative="two-sided").pvalue
    assert paired.mcnemar_exact(a_only, b_only) == pytest.approx(expected, rel=1e-9)
    if 0 < n <= 30:  # and as an exact fraction
        tail = Fraction(sum(comb(n, i) for i in range(min(a_only, b_only) + 1)), 2**n)
        assert paired.mcnemar_exact(a_only, b_only) == pytest.approx(float(min(Fraction(1), 2 * tail)), rel=1e-12)


def _brute_force_permutation(d):
    observed = abs(sum(d))
    patterns = list(itertools.product((-1, 1), repeat=len(d)))
    return sum(abs(sum(s * x for s, x in zip(signs, d))) >= observed - 1e-9 for signs in patterns) / len(patterns)


@pytest.mark.parametrize("seed", range(5))
def test_the_permutation_test_enumerates_every_sign_pattern_on_small_cases(seed):
    rng = np.random.default_rng(seed)
    d = list(rng.choice([-1.0, -0.3, 0.0, 0.3, 0.55, 1.0], size=int(rng.integers(3, 12))))
    assert paired.permutation_test(d) == pytest.approx(_brute_force_permutation(d), abs=1e-12)


def test_the_monte_carlo_permutation_test_is_near_the_exact_one():
    rng = np.random.default_rng(7)
    d = list(rng.normal(0.2, 1.0, size=18))  # past EXACT_UP_TO: sampled
    exact = _brute_force_permutation(d)
    assert paired.permutation_test(d) == pytest.approx(exact, abs=0.015)
    assert paired.permutation_test([0.0] * 30) == 1.0


def test_holm_adjusts_step_down():
    assert paired.holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert paired.holm([0.2, 0.9]) == pytest.approx([0.4, 0.9])
    assert paired.holm([]) == []


def test_the_paired_bootstrap_covers_a_known_difference_about_95_percent_of_the_time():
    """200 simulated comparisons of two correlated right/wrong runs on 300 units, B truly 5 points
    better: the interval should hold the truth in about 95% of them (a binomial 95% band: 90-99%)."""
    rng = np.random.default_rng(11)
    hits = 0
    for _ in range(200):
        shared = rng.random(300)
        a = (shared < 0.60).astype(float)
        b = (shared < 0.65).astype(float)
        flip = rng.random(300) < 0.2  # some units move independently, both ways
        b[flip] = (rng.random(flip.sum()) < 0.65).astype(float)
        a[flip] = (rng.random(flip.sum()) < 0.60).astype(float)
        low, high = paired.paired_bootstrap(a, b, resamples=1000, seed=int(rng.integers(1 << 30)))
        hits += low <= 0.05 <= high
    assert 180 <= hits <= 198, hits


def test_strata_and_the_macro_mean():
    a = [1, 1, 0, 0, 0, 0]
    b = [1, 1, 1, 0, 1, 1]
    strata = ["x", "x", "y", "y", "y", "y"]
    assert paired.metric(b, strata, macro=True) == pytest.approx((1.0 + 0.75) / 2)
    row = paired.compare_units(a, b, binary=True, strata=strata, macro=True, scale=100)
    assert row["delta"] == pytest.approx(100 * ((1.0 + 0.75) / 2 - 0.5))
    assert (row["a_only"], row["b_only"], row["n"]) == (0, 3, 6)
    assert row["p_value"] == pytest.approx(0.25)  # 3 discordant, all one way: 2 * (1/2)^3
    low, high = row["ci95"]
    assert low <= row["delta"] <= high
    assert row["mdd"] > 0


def test_weighted_units_give_the_ratio_of_sums():
    """CaptionQA's score is over questions; its unit is an image with its questions' mean score,
    weighted by how many it has."""
    a, b, w = [0.5, 1.0], [1.0, 1.0], [2, 6]
    assert paired.metric(a, weights=w) == pytest.approx((0.5 * 2 + 6) / 8)
    row = paired.compare_units(a, b, binary=False, weights=w)
    assert row["delta"] == pytest.approx(1.0 / 8)
    assert (
        row["test"] == "paired permutation" and row["p_value"] == 1.0
    )  # one unit differs: every sign pattern is as extreme


def _index_bootstrap(a, b, resamples=20_000, seed=7):
    """The textbook paired bootstrap, written out: resample unit positions, the same for both runs."""
    rng = np.random.default_rng(seed)
    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    means = d[rng.integers(0, len(d), size=(resamples, len(d)))].mean(axis=1)
    return np.percentile(means, [2.5, 97.5])


@pytest.mark.parametrize("kind", ["binary", "continuous"])
def test_the_class_count_bootstrap_draws_what_resampling_units_draws(kind):
    # Binary units have three distinct differences (the multinomial draw over classes); continuous
    # scores have one class per unit (the chunked index draw). Both must give the textbook interval.
    rng = np.random.default_rng(3)
    n = 400
    if kind == "binary":
        a, b = rng.random(n) < 0.55, rng.random(n) < 0.65
    else:
        a, b = rng.random(n), rng.random(n) * 1.1
    low, high = paired.paired_bootstrap(a, b)
    ref_low, ref_high = _index_bootstrap(a, b)
    assert low == pytest.approx(ref_low, abs=0.01) and high == pytest.approx(ref_high, abs=0.01)
