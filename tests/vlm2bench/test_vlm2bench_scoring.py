"""VLM2-Bench's official scoring rules, checked by hand: the T/F and count parsers, pair accuracy,
Acc_num and its chance level, the grouping rule, the video judge's score, the paper's Overall, and
intervals that do not depend on the order items arrive in."""

from __future__ import annotations

import json

import pytest

from lmms_comparative.benchmarks.vlm2bench import scoring as rules
from lmms_comparative.benchmarks.vlm2bench.fixture import build as build_vlm2bench


@pytest.mark.parametrize(
    "text, value",
    [
        ("T", "T"),
        ("false", "F"),
        ("The answer is True.", "T"),
        ("T or F? T", None),
        ("Yes", None),
        ("F.", "F"),
        ("", None),
    ],
)
def test_tf_token(text, value):
    assert rules.parse_tf(text) == value


def test_gc_compares_the_raw_answer():
    assert rules.gc_correct(" T\n", "T") and not rules.gc_correct("True", "T") and not rules.gc_correct("T.", "T")


def test_a_failed_half_takes_its_pair_out_for_gc_oc_and_pc_alike():
    ok = [
        {"pair_id": "1", "half": "p", "correct": 1}, {"pair_id": "1", "half": "n", "correct": 1},
        {"pair_id": "2", "half": "p", "correct": 1},  # its negative half failed
    ]  # fmt: skip
    failed = [{"pair_id": "2", "half": "n", "status": "failed"}]
    kept, broken = rules.without_failed_pairs(ok, failed)
    assert broken == 1 and [it["pair_id"] for it in kept] == ["1", "1"]
    for drop in (False, True):  # the GC script would have counted pair 2 as wrong: 1/2
        assert rules.pair_accuracy(kept, drop_incomplete=drop)["pair"] == 1.0


def test_failed_request_keeps_its_pair_id_and_the_summary_counts_failed_pairs():
    from lmms_comparative.benchmarks.vlm2bench import hooks

    def doc(q, half, gt, kind="tf_gc"):
        return {"uid": f"{q}{half}", "kind": kind, "pair_id": q, "half": half, "gt": gt}

    failed = "[LMMS_EVAL_REQUEST_FAILED after 3 retries] boom"
    samples = [
        hooks.process_results(doc("a", "p", "T"), ["T"])["score"],
        hooks.process_results(doc("a", "n", "F"), ["F"])["score"],
        hooks.process_results(doc("b", "p", "T"), ["T"])["score"],
        hooks.process_results(doc("b", "n", "F"), [failed])["score"],
    ]  # fmt: skip
    assert samples[3]["status"] == "failed" and samples[3]["pair_id"] == "b"
    summary = hooks.summarize(samples)
    assert summary["score"] == 1.0 and summary["counts"]["pairs"] == 1 and summary["counts"]["failed_pairs"] == 1
    tf = [{**s, "kind": "tf"} for s in samples]
    assert hooks.summarize(tf)["score"] == 1.0 and hooks.summarize(tf)["counts"]["failed_pairs"] == 1


def test_pc_cpr_ids_lose_a_leading_tf_and_bad_ids_get_a_true_message(tmp_path, monkeypatch):
    from lmms_comparative.benchmarks.vlm2bench import data
    from lmms_comparative.data import items

    root = build_vlm2bench(tmp_path / "v")
    monkeypatch.setenv("VLM2BENCH_ROOT", str(root))
    # pc eval_comp_tf_pair_batch_3acc.py: "tf_300_p" -> pair "300", half "p" (run on these ids).
    docs = data.subtask_docs("pc_cpr")
    assert {(d["uid"], d["pair_id"], d["half"]) for d in docs} >= {("tf_0_p", "0", "p"), ("tf_0_n", "0", "n")}
    path = root / "jsonl/oc/vanilla/oc_cpr.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["q_id"] = "tf_0_p"  # the OC script keeps no such prefix rule: "tf" / "0_p" is no pair
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    # An item-level problem: the record is skipped and named, the rest of the subtask loads.
    with items.collecting(items.Skips()) as skips:
        assert "tf_0_p" not in {d["uid"] for d in data.subtask_docs("oc_cpr")}
    assert (
        "'tf_0_p' must be <pair>_p or <pair>_n, with no other underscore (got pair 'tf', half '0_p')"
        in skips.by_reason[items.RECORD][0]
    )


def test_paper_overall_is_the_mean_of_nine_subtasks():
    # Table 1: every model row and the human row average all nine columns, VID included; only the
    # chance row (no VID) averages eight. Qwen2.5-VL-7B: 54.82 (nine), not 55.86 (eight).
    qwen = [35.91, 43.38, 71.39, 41.72, 47.50, 80.00, 57.98, 69.00, 46.50]
    human = [95.06, 98.11, 96.02, 94.23, 91.92, 97.08, 92.87, 91.17, 100.00]
    assert round(sum(qwen) / 9, 2) == 54.82 and round(sum(qwen[:8]) / 8, 2) == 55.86
    assert round(sum(human) / 9, 2) == 95.16
    assert round(sum([25.00, 25.00, 50.00, 34.88, 25.00, 50.00, 34.87, 25.00]) / 8, 2) == 33.72


def test_pair_accuracy_and_incomplete_pairs():
    items = [
        {"pair_id": "1", "half": "p", "correct": 1}, {"pair_id": "1", "half": "n", "correct": 1},
        {"pair_id": "2", "half": "p", "correct": 1}, {"pair_id": "2", "half": "n", "correct": 0},
        {"pair_id": "3", "half": "p", "correct": 1},  # incomplete
    ]  # fmt: skip
    gc = rules.pair_accuracy(items, drop_incomplete=False)
    assert (gc["positive"], gc["negative"], gc["pair"], gc["pairs"]) == (
        1.0,
        pytest.approx(1 / 3),
        pytest.approx(1 / 3),
        3,
    )
    ocpc = rules.pair_accuracy(items, drop_incomplete=True)
    assert (ocpc["positive"], ocpc["negative"], ocpc["pair"], ocpc["pairs"]) == (1.0, 0.5, 0.5, 2)


@pytest.mark.parametrize(
    "text, value",
    [
        ("3", 3), ("There are three objects.", 3), ("twenty one", 21), ("one hundred and five", 105),
        ("2 or 3", None), ("one of the two", 3), ("none", None), ("zero", None),
        # acc_with_cnt_score.py words_to_num deletes "and" from the joined phrase, so "thousand"
        # becomes "thous d" and no phrase containing it converts (values from running the script's
        # parse_model_answer on these strings).
        ("2 thousand", 2), ("one thousand", None), ("Five thousand and two", None), ("thousand", None),
        ("twenty-one", 21),
    ],
)  # fmt: skip
def test_count_parsing(text, value):
    assert rules.parse_count(text) == value


def test_acc_num_formula_and_denominators():
    # N = 2 of N_img = 4: eps = 1 / max(1, 2) = 0.5, w = 4/4 = 1, score = 1 - 0.5 ** 0.1
    assert rules.count_score(3, 2, 4) == pytest.approx(1 - 0.5**0.1)
    # N_img = 2: w = 2, penalty = 2 * 1 ** 0.1 = 2 >= 1 -> 0
    assert rules.count_score(2, 1, 2) == 0.0
    assert rules.count_score(2, 2, 3) == 1.0
    items = [
        rules.count_item("2", 2, 4),
        rules.count_item("3", 2, 4),
        rules.count_item("7", 2, 4),
        rules.count_item("many", 2, 4),
    ]
    assert [it["valid"] for it in items] == [True, True, False, False]
    assert rules.acc_num(items) == pytest.approx((1 + 1 - 0.5**0.1) / 2)  # invalid answers leave the denominator


def test_grouping_rule():
    assert rules.grp_correct("(B) images 1 and 3", "(B) 1 and 3")
    assert not rules.grp_correct("(A) or (B)", "(B) x")
    assert rules.grp_correct("B", "B) 1 and 3") and not rules.grp_correct("I think (B)", "(B) x")


def test_video_score_combination():
    items = [
        {"type": "AB", "score": 1},
        {"type": "AB", "score": 0},
        {"type": "ABA", "score": 2},
        {"type": "ABA", "score": 1},
        {"type": "ABA", "score": None},
    ]
    scores = rules.video_scores(items)
    assert scores["ab"] == 50.0 and scores["aba"] == 75.0 and scores["score"] == 62.5
    assert rules.parse_video_score("Score: 2") == 2 and rules.parse_video_score("two") is None


def test_chance_acc_num_is_exact_and_matches_the_paper():
    assert rules.chance_acc_num([(1, 2), (2, 2)]) == 0.5  # a guess of 1 or 2: one exact, one scored 0
    # One item per answer position of sequences of 2, 3 and 4 images: 2:3:4, the paper's 80/120/160
    # mix (appendix D.1), gives its 34.87-34.88; an even mix of the three lengths would give 37.27.
    assert rules.chance_acc_num([(gt, n) for n in (2, 3, 4) for gt in range(1, n + 1)]) == pytest.approx(
        0.3488, abs=5e-4
    )
    per_length = [rules.chance_acc_num([(gt, n) for gt in range(1, n + 1)]) for n in (2, 3, 4)]
    assert sum(per_length) / 3 == pytest.approx(0.3727, abs=5e-5)


def test_intervals_do_not_depend_on_the_order_items_arrive_in():
    """Aggregation gets items rank by rank (two processes: another order than one); the bootstrap
    must see them in one order, or the interval changes with the process count."""
    import random

    from lmms_comparative.benchmarks.vlm2bench import hooks

    def tf(pair, half, correct):
        return {
            "uid": f"{pair}_{half}",
            "kind": "tf",
            "pair_id": pair,
            "half": half,
            "correct": int(correct),
            "status": "ok",
        }

    pairs = [tf(str(i), h, (i * 7 + (h == "n")) % 3 != 0) for i in range(40) for h in ("p", "n")]
    counts = [
        {
            "uid": f"c{i}",
            "kind": "cnt",
            "status": "ok",
            "gt": 1 + i % 4,
            "n_images": 4,
            **rules.count_item(str(1 + (i * 5) % 4), 1 + i % 4, 4),
        }
        for i in range(40)
    ]
    for items in (pairs, counts):
        shuffled = items[:]
        random.Random(1).shuffle(shuffled)
        assert hooks.summarize(shuffled)["ci95"] == hooks.summarize(items)["ci95"]
