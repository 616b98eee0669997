"""DiffSpot's scoring rules against the authors' own functions (github Tencent/DiffSpot @3108fcd).

The expected values below are what the authors' ``render_prompt``, ``_parse_judge_json``,
``reduce_judge_label``, ``_row_to_item`` and ``aggregate`` returned when run on the same inputs
in a scratch copy of their repository (their code is not part of this project). Where their code
raises, the comment names the exception: an unreadable verdict stops their whole run, and is one
failed judgement here (left out of N and counted), as a failed call is in their evaluate.py.
"""

from __future__ import annotations

import hashlib
import json
import math

import pytest

from lmms_comparative.benchmarks.diffspot import prompts, scoring


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_the_prompts_are_the_authors_bytes():
    # The bodies of diffspot/prompts/judge.txt (judge.py load_prompt) and vlm_diff.txt, which
    # vlm_nodiff.txt repeats byte for byte (baselines/_common.py load_vlm_prompt).
    assert (len(prompts.JUDGE_PROMPT), _sha(prompts.JUDGE_PROMPT)) == (
        6509,
        "8fc35fe9ede168820edd44376a4751ab802afad7f19c09a3811d10f7c2b9d7e5",
    )
    assert (len(prompts.VLM_PROMPT), _sha(prompts.VLM_PROMPT)) == (
        625,
        "a371b0bf8d1b1e75d6a074445f0e3f185ea43ec5ca979989ad285f4d541b9a6e",
    )
    assert (
        prompts.NO_DIFF_GT_NOTE
        == "No changes were applied; the two screenshots are independent renderings of the same HTML."
    )


@pytest.mark.parametrize(
    "mutations, description, prediction, length, digest",
    [
        # Non-ASCII kept raw (ensure_ascii=False); a placeholder inside an earlier insertion is
        # replaced by a later one ("GTD {vlm_response}" becomes "GTD P ..."), the prediction never.
        (
            [{"type": "text", "t": "角が丸くなった → ↔ —"}],
            "GTD {vlm_response}",
            "P {gt_json} {gt_answer}",
            6581,
            "ea15578438643897f25526ed8673c5214d8ff1929d12e45bd66c7c6d80fb7302",
        ),
        (
            [{"type": "x", "v": "{gt_answer}"}],
            "{vlm_response}",
            "pred",
            6527,
            "b52699c5d8931a3c44936f279db6de0d82d514b411c293e3a750edbb5a211c33",
        ),
        ([], prompts.NO_DIFF_GT_NOTE, "", 6566, "35b4b6ec96def0dc40c458cd296c7e64819867ba6445632dd4437b2038f815e5"),
    ],
)
def test_the_judge_prompt_is_render_prompts(mutations, description, prediction, length, digest):
    text = scoring.render_judge_prompt(mutations, description, prediction)
    assert (len(text), _sha(text)) == (length, digest)


def test_a_no_diff_pair_gets_no_mutations_and_the_note():
    assert scoring.judge_inputs("no_diff", [{"type": "color"}], "ignored") == ([], prompts.NO_DIFF_GT_NOTE)
    assert scoring.judge_inputs("easy", None, None) == ([], "")


NOT_JSON = "JSONDecodeError"


@pytest.mark.parametrize(
    "reply, theirs",
    [
        (
            '```json\n{"mutations": [{"verdict": "correct"}], "hallucinations": []}\n```',
            {"mutations": [{"verdict": "correct"}], "hallucinations": []},
        ),
        ('```JSON\n{"a":1}\n```', {"a": 1}),  # "JSON" is not stripped; the {-span is taken instead
        ('Here: {"a":1} done', {"a": 1}),
        ('{"a":1}\nDone.', NOT_JSON),  # starts with "{": no span is cut, the prose after it fails
        ('x {"a":1} y {"b":2}', NOT_JSON),  # the span runs from the first "{" to the last "}"
        ("", NOT_JSON),
        ("Yes", NOT_JSON),
        ("[1,2]", [1, 2]),  # JSON, but no verdict: reduce_verdict refuses it
        ('```json{"mutations": [], "hallucinations": []}```', {"mutations": [], "hallucinations": []}),
        (
            'Reasoning...\n```json\n{"mutations": [{"verdict": "correct"}]}\n```\nDone',
            {"mutations": [{"verdict": "correct"}]},
        ),
    ],
)
def test_replies_parse_as_parse_judge_json(reply, theirs):
    if theirs == NOT_JSON:
        with pytest.raises(json.JSONDecodeError):
            scoring.parse_judge_reply(reply)
    else:
        assert scoring.parse_judge_reply(reply) == theirs


UNREADABLE = "their run stops"


@pytest.mark.parametrize(
    "label, has_diff, no_diff",
    [
        # (TP, TN, correct mutations, hallucinations) for a has-diff pair, then for a no-diff pair
        ({}, (False, False, 0, 0), (False, True, 0, 0)),
        ({"mutations": None, "hallucinations": None}, (False, False, 0, 0), (False, True, 0, 0)),
        ({"mutations": [{"verdict": "Correct"}]}, (False, False, 0, 0), (False, True, 0, 0)),  # exact, case-sensitive
        ({"mutations": [], "hallucinations": "none"}, (False, False, 0, 4), (False, False, 0, 4)),  # len of the string
        ({"mutations": [], "hallucinations": ""}, (False, False, 0, 0), (False, True, 0, 0)),
        ({"mutations": [{"verdict": "correct"}], "hallucinations": ["x"]}, (True, False, 1, 1), (False, False, 1, 1)),
        ({"summary": {"correct": 1}}, (False, False, 0, 0), (False, True, 0, 0)),  # the summary is never read
        ({"mutations": {}, "hallucinations": {}}, (False, False, 0, 0), (False, True, 0, 0)),
        ({"mutations": 0, "hallucinations": False}, (False, False, 0, 0), (False, True, 0, 0)),
        ({"mutations": [], "hallucinations": {"a": 1}}, (False, False, 0, 1), (False, False, 0, 1)),
        ([1, 2], UNREADABLE, UNREADABLE),  # AttributeError
        ({"mutations": "correct"}, UNREADABLE, UNREADABLE),  # AttributeError
        ({"mutations": ["correct"]}, UNREADABLE, UNREADABLE),  # AttributeError
        ({"mutations": [{"verdict": "correct"}, None]}, UNREADABLE, UNREADABLE),  # AttributeError
        ({"mutations": {"verdict": "correct"}}, UNREADABLE, UNREADABLE),  # AttributeError
        ({"mutations": 5}, UNREADABLE, UNREADABLE),  # TypeError
        ({"hallucinations": 3}, UNREADABLE, UNREADABLE),  # TypeError
        ({"hallucinations": True}, UNREADABLE, UNREADABLE),  # TypeError
    ],
)
def test_verdicts_reduce_as_reduce_judge_label(label, has_diff, no_diff):
    for is_no_diff, theirs in ((False, has_diff), (True, no_diff)):
        if theirs == UNREADABLE:
            with pytest.raises(scoring.UnreadableVerdict):
                scoring.reduce_verdict(label, is_no_diff)
            continue
        found = scoring.reduce_verdict(label, is_no_diff)
        assert (
            found["is_true_positive"],
            found["is_true_negative"],
            found["n_correct_mutations"],
            found["n_hallucinations"],
        ) == theirs


@pytest.mark.parametrize(
    "difficulty, task_type, raw, theirs",
    [
        ("unknown", "no_diff", None, ("no_diff", None)),
        ("no_diff", "no_diff", [], ("no_diff", None)),
        ("easy", "visual_diff", ['{"type": "font_size", "x": 1}', '{"type": "color"}'], ("easy", "font_size")),
        ("hard", "no_diff", [], ("no_diff", None)),  # task_type wins over the difficulty
        ("medium", "visual_diff", ['{"target": "x"}'], ("medium", None)),  # no type: no operator
        ("unknown", "visual_diff", ['{"type": "gradient"}'], ("no_diff", "gradient")),
        ("weird", "visual_diff", [], None),  # ValueError
        (None, None, [], None),  # ValueError
    ],
)
def test_rows_map_as_row_to_item(difficulty, task_type, raw, theirs):
    split = scoring.split_of(difficulty, task_type)
    if theirs is None:
        assert split is None
        return
    assert (split, scoring.operator_of(scoring.mutations_of(raw))) == theirs


def test_a_mutation_that_is_not_a_json_object_is_refused():
    with pytest.raises(ValueError):  # the authors' loader: AttributeError on '[1]'.get
        scoring.mutations_of(["[1]"])
    with pytest.raises(ValueError):
        scoring.mutations_of(["{not json"])


JUDGED = [
    {"split": "easy", "operator": "color", "is_true_positive": True},
    {"split": "easy", "operator": "text", "is_true_positive": False},
    {"split": "medium", "operator": "color", "is_true_positive": True},
    {"split": "hard", "operator": None, "is_true_positive": True},
    {"split": "no_diff", "operator": None, "is_true_negative": True},
    {"split": "no_diff", "operator": None, "is_true_negative": False},
    {"split": "no_diff", "operator": "", "is_true_positive": True, "is_true_negative": True},
]


def test_aggregate_gives_metrics_aggregates_report():
    found = scoring.aggregate(JUDGED)
    theirs = {
        "overall_accuracy": 0.7142857142857143,
        "diff_overall_recall": 0.75,
        "no_diff_specificity": 0.6666666666666666,
        "n_total": 7,
        "n_has_diff": 4,
        "n_no_diff": 3,
        "n_tp": 3,
        "n_tn": 2,
        "by_tier": {
            "easy": {"recall": 0.5, "n_pairs": 2, "n_tp": 1},
            "medium": {"recall": 1.0, "n_pairs": 1, "n_tp": 1},
            "hard": {"recall": 1.0, "n_pairs": 1, "n_tp": 1},
        },
        "by_operator": {
            "color": {"recall": 1.0, "n_pairs": 2, "n_tp": 2},
            "text": {"recall": 0.0, "n_pairs": 1, "n_tp": 0},
        },
    }
    assert found == theirs
    assert scoring.headline(found) == {
        "overall": theirs["overall_accuracy"],
        "easy_recall": 0.5,
        "medium_recall": 1.0,
        "hard_recall": 1.0,
        "diff_recall": 0.75,
        "nodiff_specificity": theirs["no_diff_specificity"],
    }


def test_an_empty_denominator_is_nan_where_the_authors_print_zero():
    # The one deliberate difference: their aggregate gives 0.0 for a share of no pairs
    # (no_diff_specificity of has-diff pairs only; every share of nothing).
    found = scoring.aggregate(JUDGED[:4])
    assert math.isnan(found["no_diff_specificity"]) and found["overall_accuracy"] == 0.75  # theirs: 0.0 and 0.75
    empty = scoring.aggregate([])
    assert all(
        math.isnan(empty[k]) for k in ("overall_accuracy", "diff_overall_recall", "no_diff_specificity")
    )  # theirs: 0.0 each
    assert (empty["n_total"], empty["by_tier"], empty["by_operator"]) == (0, {}, {})


def test_the_bootstrap_statistic_is_the_headline_on_the_identity_resample():
    import numpy as np

    report = scoring.headline(scoring.aggregate(JUDGED))
    found = scoring.bootstrap_statistic(JUDGED)(np.arange(len(JUDGED))[None, :])
    assert {k: float(v[0]) for k, v in found.items()} == pytest.approx(report)


def test_the_leaderboard_rounds_as_python_does():
    # tests/test_metrics.py of the authors: Gemini 3.1 Pro, 2079 of 4400, is printed 47.2.
    assert f"{2079 / 4400 * 100:.1f}" == "47.2"
