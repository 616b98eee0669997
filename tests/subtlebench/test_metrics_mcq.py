"""Unit tests of the pure multiple-choice functions and aggregations."""

from __future__ import annotations

import pytest

from lmms_comparative.benchmarks.subtlebench.scoring import parse_subtlebench_letter
from lmms_comparative.metrics import aggregate
from lmms_comparative.metrics.mcq import format_options, letter_index, shuffle_options


@pytest.mark.parametrize(
    "response, letter",
    [
        # 1. "### Answer X" wins over everything else
        ("### Reasoning\nA is brighter than B.\n\n### Answer\nC", "C"),
        ("### Answer B\nD", "B"),
        # the official regex allows only whitespace after 'Answer'; this one falls to the word rule
        ("### Answer: B\nD", "D"),
        # 2. the last line that is a single letter once punctuation is stripped
        ("A\nthinking...\n(B)", "B"),
        ("**D**", "D"),  # '*' is punctuation, so the line is 'D'
        # 3. the last single-letter word
        ("I pick B, not A.", "A"),
        ("The answer is (C).", "C"),
        # 4. the first standalone letter (a word with inner punctuation, e.g. 'B/C')
        ("B/C maybe", "B"),
        # letters outside A-E and lowercase never count
        ("F", ""),
        ("answer: b", ""),
        ("I cannot tell.", ""),
        ("", ""),
        (None, ""),
    ],
)
def test_parser_follows_the_official_order(response, letter):
    assert parse_subtlebench_letter(response) == letter


def test_option_order_is_deterministic_and_keeps_the_answer():
    options, idx = shuffle_options("yes", ["no"], "quantity_src_1\x1fq")
    assert (options, idx) == shuffle_options("yes", ["no"], "quantity_src_1\x1fq")
    assert options[idx] == "yes" and sorted(options) == ["no", "yes"]
    # Different items get different orders: over many keys both positions occur.
    positions = {shuffle_options("a", ["b", "c", "d"], f"k{i}")[1] for i in range(50)}
    assert positions == {0, 1, 2, 3}


def test_answer_position_survives_a_duplicated_distractor():
    options, idx = shuffle_options("same", ["same", "other"], "dup")
    assert options[idx] == "same"
    assert sorted(options) == ["other", "same", "same"]


def test_format_options_matches_the_official_rendering():
    assert format_options(["x", "y", "z"]) == "A. x\nB. y\nC. z"
    assert letter_index("C") == 2 and letter_index("") == -1


def _item(correct, status="ok", domain="d", n_options=2):
    return {"correct": correct, "status": status, "domain": domain, "n_options": n_options}


def test_accuracy_excludes_failed_requests_and_counts_unparsed_as_wrong():
    items = [_item(1), _item(0, "unparsed"), _item(None, "failed"), _item(1)]
    assert aggregate.accuracy(items) == pytest.approx(2 / 3)
    assert aggregate.counts(items) == {"n": 4, "scored": 3, "correct": 2, "unparsed": 1, "failed": 1}


def test_chance_is_the_mean_of_one_over_the_option_count():
    items = [_item(1, n_options=2), _item(0, n_options=4), _item(1, n_options=5)]
    assert aggregate.chance_accuracy(items) == pytest.approx((1 / 2 + 1 / 4 + 1 / 5) / 3)


def test_breakdowns_merge_to_the_micro_average():
    task_a = [_item(1, domain="x"), _item(0, domain="x"), _item(1, domain="y")]
    task_b = [_item(1, domain="x"), _item(1, domain="z")]
    merged = aggregate.merge_breakdowns([aggregate.breakdown(task_a, "domain"), aggregate.breakdown(task_b, "domain")])
    assert merged == aggregate.breakdown(task_a + task_b, "domain")
    assert merged["x"] == {"accuracy": pytest.approx(2 / 3), "correct": 2, "n": 3}


def test_failed_request_marker_is_recognised():
    assert aggregate.is_failed_request("[LMMS_EVAL_REQUEST_FAILED after 5 retries] timeout")
    assert not aggregate.is_failed_request("A")


def test_budget_exceeded_reply_is_a_failed_request_not_an_unparsed_answer():
    # lmms_eval/models/chat/openai.py answers "[LMMS_EVAL_BUDGET_EXCEEDED]" once --max_budget is spent.
    assert aggregate.is_failed_request("[LMMS_EVAL_BUDGET_EXCEEDED]")
    outcome = aggregate.mcq_outcome("[LMMS_EVAL_BUDGET_EXCEEDED]", lambda text: "", "A")
    assert outcome == {"parsed": None, "correct": None, "status": "failed"}
    assert aggregate.counts([outcome, aggregate.mcq_outcome("B", lambda t: t, "A")]) == {
        "n": 2,
        "scored": 1,
        "correct": 0,
        "unparsed": 0,
        "failed": 1,
    }
