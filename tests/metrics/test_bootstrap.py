"""Bootstrap intervals: hand-checkable cases, and the resampled caption metrics against pycocoevalcap."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lmms_comparative.benchmarks.vlm2bench import scoring as rules
from lmms_comparative.metrics import bootstrap


def test_mean_interval_matches_the_binomial_standard_error():
    values = [1.0] * 300 + [0.0] * 100  # p = 0.75, n = 400: se = sqrt(p(1-p)/n) = 0.02165
    result = bootstrap.cluster_mean_intervals([[{"x": v}] for v in values], ["x"], iterations=2000)["x"]
    assert result["value"] == 0.75
    assert result["se"] == pytest.approx(math.sqrt(0.75 * 0.25 / 400), rel=0.1)
    assert result["low"] < 0.75 < result["high"] and result["high"] - result["low"] == pytest.approx(
        2 * 1.96 * result["se"], rel=0.15
    )
    again = bootstrap.cluster_mean_intervals([[{"x": v}] for v in values], ["x"], iterations=2000)["x"]
    assert again == result  # seeded: the same report every time


def test_clusters_are_resampled_whole():
    # Ten images, each with 20 questions all right or all wrong: the information is in 10 units,
    # not 200, so the interval is as wide as that of 10 coin flips (se = sqrt(.25/10) = 0.158).
    clusters = [[{"s": float(i % 2)}] * 20 for i in range(10)]
    result = bootstrap.cluster_mean_intervals(clusters, ["s"], iterations=2000)["s"]
    assert result["value"] == 0.5 and result["se"] == pytest.approx(0.158, rel=0.15)


def test_mean_of_intervals_independent_and_same_items():
    parts = [{"value": 0.6, "se": 0.03}, {"value": 0.8, "se": 0.04}]
    independent = bootstrap.mean_of_intervals(parts)
    assert independent["value"] == pytest.approx(0.7) and independent["se"] == pytest.approx(0.025)
    assert independent["low"] == pytest.approx(0.7 - 1.96 * 0.025)
    assert bootstrap.mean_of_intervals(parts, correlated=True)["se"] == pytest.approx(0.035)
    combined = bootstrap.combine_ci95([{"score": parts[0], "unit": "image"}, {"score": parts[1], "other": parts[1]}])
    assert set(combined) == {"score"}  # only what every part reports


def test_unit_bootstrap_reruns_the_official_pair_rule_on_rekeyed_pairs():
    pairs = [
        [{"pair_id": str(i), "half": "p", "correct": 1}, {"pair_id": str(i), "half": "n", "correct": int(i < 6)}]
        for i in range(10)
    ]

    def statistic(units):
        rekeyed = [{**it, "pair_id": n} for n, unit in enumerate(units) for it in unit]
        return {"score": rules.pair_accuracy(rekeyed, drop_incomplete=True)["pair"]}

    result = bootstrap.unit_bootstrap(pairs, statistic, iterations=500)["score"]
    assert result["value"] == 0.6 and result["low"] < 0.6 < result["high"]
    assert result["se"] == pytest.approx(math.sqrt(0.6 * 0.4 / 10), rel=0.2)
    assert bootstrap.unit_bootstrap(pairs[:1], statistic) == {}  # one unit: no interval


def test_corpus_bleu_from_sufficient_statistics_equals_pycocoevalcap():
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider

    from lmms_comparative.benchmarks.vidi.scoring import caption_item_stats, corpus_scores, ptb_tokenize

    refs = {
        "a": ["the red car moved to the left", "a car is missing"],
        "b": ["the dog now has a hat"],
        "c": ["there is one more window on the house", "the door is blue"],
    }
    preds = {"a": "the red car is further left", "b": "a dog wears a hat now", "c": "the door changed colour to blue"}
    stats = caption_item_stats(refs, preds)
    ours = corpus_scores(stats)
    gts, res = ptb_tokenize(refs), ptb_tokenize({k: [v] for k, v in preds.items()})
    bleu, _ = Bleu(4).compute_score(gts, res, verbose=0)
    cider, _ = Cider().compute_score(gts, res)
    assert [ours[f"bleu{k}"] for k in range(1, 5)] == pytest.approx(bleu, rel=1e-12)
    assert ours["cider"] == pytest.approx(cider, rel=1e-12)
    # A resample that draws every item once is the corpus itself.
    once = corpus_scores(stats, np.array([[0, 1, 2], [2, 0, 1]]))
    assert once["bleu4"] == pytest.approx([bleu[3], bleu[3]], rel=1e-12)


def test_normal_interval_of_an_overall_is_clipped_to_the_metric_range():
    from lmms_comparative.metrics.bootstrap import interval, mean_of_intervals

    # A share near 1 with a wide se: value 0.95, se 0.08 -> 0.95 + 1.96 * 0.08 = 1.107, clipped at 1.
    shares = [{"value": 0.95, "low": 0.8, "high": 1.0, "se": 0.08}] * 2
    entry = mean_of_intervals(shares, correlated=True)
    assert entry["high"] == 1.0 and entry["low"] == pytest.approx(0.95 - 1.96 * 0.08)
    near_zero = mean_of_intervals([{"value": 0.02, "low": 0.0, "high": 0.06, "se": 0.03}])
    assert near_zero["low"] == 0.0 and near_zero["high"] == pytest.approx(0.02 + 1.96 * 0.03)
    # A metric with its own range (ViDi's CIDEr x100 lies in [0, 1000]) is clipped to that range.
    cider = interval(950.0, [900.0, 980.0, 1000.0, 930.0], bounds=(0.0, 1000.0))
    assert cider["bounds"] == [0.0, 1000.0]
    combined = mean_of_intervals([{**cider, "se": 40.0}])
    assert (
        combined["high"] == 1000.0
        and combined["low"] == pytest.approx(950 - 1.96 * 40)
        and combined["bounds"] == [0.0, 1000.0]
    )
