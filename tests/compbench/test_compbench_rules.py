"""MLLM-CompBench's scoring rules against the authors' functions (github RaptorMai/CompBenchReview
val_test_split.py get_acc / get_acc_option, val_test_ft_decom.py get_acc_option,
LLaVA/llava/mm_utils.py merge_images; hand-worked cases checked by running them during development):
the answer parsers, the chance row, the merged image, the prompts."""

from __future__ import annotations

import re

import pytest
from PIL import Image

from lmms_comparative.benchmarks.compbench import data, hooks
from lmms_comparative.benchmarks.compbench.scoring import chance_level, normalize_option, parse_option, parse_side

COLUMNS = list(data.COLUMN_BY_TASK)
TAG = re.compile(r"#(\w+-\d+)")


# ---- parsing: get_acc -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, side",
    [
        ("Right", "Right"),
        ("Second", "Right"),
        ("Left", "Left"),
        ("First", "Left"),
        ("right", None),  # case-sensitive: lower case is an error for the authors
        ("left.", None),
        ("The left image.", None),
        ("LEFT", None),
        ("Leftmost", "Left"),  # substring, not whole word
        ("Firstly, the right one", "Left"),
        ("Left image, right?", "Left"),
        ("Left is older, so Right", "Right"),  # Right/Second is tested first
        ("The First frame; the Second is later", "Right"),
        ("Rightward", "Right"),
        ("Copyright", None),
        ("Same", "Same"),  # accepted in every column, as get_acc does
        ("same", None),
        ("None", None),
        ("", None),
        (None, None),
    ],
)
def test_side_parser_is_get_acc(text, side):
    assert parse_side(text) == side


# ---- parsing: get_acc_option --------------------------------------------------------------------


def test_option_normalisation_is_get_acc_option():
    assert normalize_option("  Clearer. ") == "clearer"
    assert (
        normalize_option("red brick building .") == "red brick building "
    )  # punctuation only at the ends, after the spaces
    assert normalize_option("Clearer\n") == "clearer\n"  # only spaces are stripped
    assert normalize_option('"(People)"') == "people"
    assert normalize_option("It's a, test!") == "it's a, test"


@pytest.mark.parametrize(
    "reply, parsed",
    [
        ("Clearer", "clearer"),
        ("CLEARER.", "clearer"),
        ("  more blurry! ", "more blurry"),
        ("None", "none"),  # "none" is always a valid answer, Q-Bench2 included
        ("none.", "none"),
        ("Clearer\n", None),  # invalid
        ("The answer is Clearer", None),
        ("Clearer, More blurry", None),
        ("Error", None),  # an error
        ("terror", None),  # "error" in the reply: an error too
        ("", None),
        (None, None),
    ],
)
def test_option_parser_is_get_acc_option(reply, parsed):
    assert parse_option(reply, ["More blurry", "Clearer", "About the same"]) == parsed


@pytest.mark.parametrize(
    "kind, options, answer, reply, correct",
    [
        ("binary", [], "Left", "left", 0),
        ("binary", [], "Left", "Leftmost", 1),
        ("binary", [], "Right", "Left image, right?", 0),
        ("soccer", [], "Left", "Firstly", 1),
        ("quantity", [], "Same", "Same", 1),
        ("binary", [], "Left", "Same", 0),
        ("options", ["people", "trees"], "people", "People.", 1),
        ("options", ["people", "trees"], "people", "people\n", 0),
        ("options", ["distanced white truck", "trees"], "distanced white truck", "distanced white truck .", 0),
        ("qbench", ["More blurry", "Clearer"], "Clearer", "clearer", 1),
        ("qbench", ["More blurry", "Clearer"], "Clearer", "None", 0),
    ],
)
def test_process_results_scores_as_the_authors(kind, options, answer, reply, correct):
    sample = hooks.process_results({"uid": "t:0", "kind": kind, "options": options, "answer": answer}, [reply])[
        "accuracy"
    ]
    assert sample["correct"] == correct


def test_a_failed_request_is_not_scored():
    sample = hooks.process_results(
        {"uid": "t:0", "kind": "binary", "options": [], "answer": "Left"},
        ["[LMMS_EVAL_REQUEST_FAILED after 5 retries] timeout"],
    )["accuracy"]
    assert sample["status"] == "failed" and sample["correct"] is None


# ---- chance row -----------------------------------------------------------------------------------


def test_chance_level_is_one_over_the_mean_number_of_choices():
    assert chance_level([2, 2, 2]) == 0.5
    assert chance_level([4, 5]) == pytest.approx(2 / 9)  # not (1/4 + 1/5) / 2
    items = [
        hooks.process_results({"uid": f"t:{i}", "kind": "options", "options": ["a"] * n, "answer": "a"}, ["a"])[
            "chance"
        ]
        for i, n in enumerate((3, 4))
    ]
    assert hooks.aggregate_chance(items) == pytest.approx(2 / 9)  # options + None: 4 and 5 choices
    qb = [
        hooks.process_results({"uid": f"t:{i}", "kind": "qbench", "options": ["a"] * n, "answer": "a"}, ["a"])["chance"]
        for i, n in enumerate((2, 3, 4))
    ]
    assert hooks.aggregate_chance(qb) == pytest.approx(1 / 3)


# ---- merged image ---------------------------------------------------------------------------------


def test_merge_images_is_the_authors_merge_images():
    red = Image.new("RGB", (64, 64), (200, 0, 0))
    blue = Image.new("RGBA", (96, 48), (0, 0, 200, 255))
    merged = hooks.merge_images([red, blue])
    # mean height (64 + 48) // 2 = 56; widths int(64 * 56 / 64) = 56 and int(96 * 56 / 48) = 112; + 10
    assert merged.size == (178, 56) and merged.mode == "RGB"
    assert merged.getpixel((55, 30)) == (200, 0, 0)
    assert merged.getpixel((56, 30)) == (0, 0, 0)
    assert all(merged.getpixel((x, 30)) == (255, 255, 255) for x in range(57, 65))
    assert merged.getpixel((65, 30)) == (0, 0, 0)
    assert merged.getpixel((66, 30)) == (0, 0, 200) and merged.getpixel((177, 55)) == (0, 0, 200)
    assert hooks.merge_images([red]).size == (64, 64)
    # odd sizes: integer mean height and truncated widths
    assert hooks.merge_images([Image.new("RGB", (333, 201)), Image.new("RGB", (640, 479))]).size == (1027, 340)


# ---- prompts --------------------------------------------------------------------------------------


def test_qbench_options_are_not_appended_twice():
    carried = {
        "kind": "qbench",
        "question": "Which is clearer? Options: A, B. Please only return one of the options without any other words or "
        "punctuation.",
        "options": ["A", "B"],
    }
    assert hooks.doc_to_text(carried) == carried["question"]
    bare = {"kind": "qbench", "question": "Which is clearer?", "options": ["A", "B"]}
    assert hooks.doc_to_text(bare) == "Which is clearer? Options: A, B"


def test_soccernet_asks_the_closed_question_of_the_release():
    text = hooks.doc_to_text({"kind": "soccer", "action": "Corner"})
    assert text.startswith(
        "These are two frames related to Corner in a soccer match. Which frame happens first? Please only "
        "return one option from (Left, Right, None)"
    )
