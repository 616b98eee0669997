"""The official CaptionQA rules (qa.py) on hand-worked examples."""

from __future__ import annotations

import random

import pytest

from lmms_comparative.benchmarks.captionqa import prompts
from lmms_comparative.benchmarks.captionqa import scoring as rules
from lmms_comparative.benchmarks.captionqa.prompts import caption_prompt, taxonomy_prompt


@pytest.mark.parametrize(
    "question, choices, yesno",
    [
        ("What colour is it?", ["red", "blue"], False),
        ("What colour is it?", ["Yes", "No"], True),
        ("Which part is visible?", ["eyes", "nose"], True),  # substring quirk: eYES, NOse
        ("Which part is visible?", ["eyes", "hands"], False),  # "yes" alone is not enough
        ("Is it red?", ["red", "blue", "green"], True),  # opening word
        ("  IS it red?", ["red", "blue"], True),  # stripped and lowercased
        ("Island or coast?", ["island", "coast"], False),  # "is" needs the space after it
        ("Must we go?", ["a", "b"], True),
    ],
)
def test_yes_no_heuristic(question, choices, yesno):
    assert rules.is_yesno_question(question, choices) is yesno
    expected = choices if yesno else [*choices, rules.CANNOT_ANSWER]
    assert rules.choices_with_cannot(question, choices) == expected


@pytest.mark.parametrize(
    "text, n, letter",
    [
        ("B", 4, "B"),
        ("b", 4, "B"),  # upper-cased before matching
        ("<think>A or C?</think>C", 4, "C"),
        ("Answer: D", 4, "D"),
        ("The answer is\nC", 4, "C"),  # only the text after the first newline is read
        ("B\nbecause it is red", 4, None),  # ... so a first-line answer is lost (official quirk)
        ("B\nbecause A", 4, "A"),
        ("E", 4, None),  # out of range
        ("I think B", 4, None),  # the first single letter word ("I") decides, and is out of range
        ("I think B", 10, "I"),
        ("3", 4, "C"),  # a number 1..n maps to a letter
        ("option 12", 4, None),
        ("", 4, None),
        (None, 4, None),
    ],
)
def test_letter_extraction(text, n, letter):
    assert rules.extract_letter(text, n) == letter


def test_scores_correct_wrong_cannot_unparsed():
    choices = ["red", "blue", "green"]
    options = rules.choices_with_cannot("What colour?", choices)  # 4 with the cannot option
    perm = [3, 0, 2, 1]  # shown: A=cannot, B=red, C=green, D=blue
    gt = rules.gt_index(choices, " red ")
    assert gt == 0
    assert rules.score_answer("B", perm, options, 3, gt)["score"] == 1.0
    assert rules.score_answer("D", perm, options, 3, gt) == {
        "letter": "D",
        "answer": "blue",
        "correct": 0,
        "cannot": 0,
        "score": 0.0,
    }
    cannot = rules.score_answer("A", perm, options, 3, gt)
    assert cannot["cannot"] == 1 and cannot["score"] == 0.3833  # qa.py stores round(1/3 + 0.05, 4)
    assert rules.score_answer(None, perm, options, 3, gt)["score"] == 0.0
    assert rules.score_answer("E", perm, options, 3, gt)["answer"] is None


def test_permutations_walk_one_rng_and_skip_without_drawing():
    good = {"question": "What?", "choices": ["a", "b"], "answer": "a"}
    yesno = {"question": "Is it?", "choices": ["a", "b", "c"], "answer": "b"}
    skipped = [
        {"question": "x", "choices": ["only"], "answer": "only"},
        {"question": "y", "choices": ["a", "b"], "answer": "z"},
    ]
    perms = rules.official_permutations([("e1", [good, *skipped, yesno]), ("e2", [good])])
    rng = random.Random(0)
    expected = []
    for n in (3, 3, 3):  # good: a, b + cannot; yesno: 3 choices, no cannot; good again
        perm = list(range(n))
        rng.shuffle(perm)
        expected.append(perm)
    assert perms == {("e1", 0): expected[0], ("e1", 3): expected[1], ("e2", 0): expected[2]}


@pytest.mark.parametrize("k, stored", [(2, 0.55), (3, 0.3833), (4, 0.3), (6, 0.2167), (7, 0.1929)])
def test_cannot_score_is_rounded_per_question_as_qa_py_stores_it(k, stored):
    # qa.py: result_entry["score"] = round(score, 4); its averages read those stored values
    # (values from running its scoring loop on these K).
    choices = [f"c{i}" for i in range(k)]
    options = rules.choices_with_cannot("Which one?", choices)
    cannot = rules.score_answer("A", [k, *range(k)], options, k, 0)
    assert cannot["score"] == stored
    # Three cannot answers of a K=3 question average 0.3833, not 0.38333...
    assert (
        rules.summarize(
            [{**rules.score_answer("A", [3, 0, 1, 2], rules.choices_with_cannot("Which?", ["a", "b", "c"]), 3, 0)}] * 3
        )["score"]
        == 0.3833
    )


def test_an_uncaptioned_image_set_takes_no_shuffle_draws():
    # qa.py: "if image_key not in captions: continue" comes before the shuffle, and caption.py
    # stores no empty caption: the next image set draws what the skipped one would have drawn.
    q = {"question": "What?", "choices": ["a", "b", "c"], "answer": "a"}  # 4 options with the cannot option
    entries = [("e1", [q, q]), ("e2", [q]), ("e3", [q])]
    full = rules.official_permutations(entries)
    without = rules.official_permutations(entries, uncaptioned={"e1"})
    assert set(without) == {("e2", 0), ("e3", 0)}
    assert without[("e2", 0)] == full[("e1", 0)] and without[("e3", 0)] == full[("e1", 1)]
    # Hand-worked with random.Random(0): the draws on range(4) are [2, 0, 1, 3], [0, 1, 3, 2], [0, 2, 1, 3]
    assert full[("e1", 0)] == without[("e2", 0)] == [2, 0, 1, 3]
    assert full[("e1", 1)] == without[("e3", 0)] == [0, 1, 3, 2] and full[("e2", 0)] == [0, 2, 1, 3]
    assert rules.official_permutations(entries, uncaptioned={"e2"})[("e3", 0)] == full[("e2", 0)]


def test_qa_prompt_layout():
    prompt = prompts.build_qa_prompt("A red car.", "What colour?", ["red", "blue", rules.CANNOT_ANSWER])
    assert (
        prompt == "Caption:\nA red car.\n\nQuestion:\nWhat colour?\n\nOptions:\nA. red\nB. blue\nC. Cannot answer "
        "from the caption\n\nAnswer:"
    )


def test_summary_and_categories():
    rows = [
        {"score": 1.0, "correct": 1, "cannot": 0, "category": "Attribute"},
        {"score": 0.0, "correct": 0, "cannot": 0, "category": "Attribute"},
        {"score": 0.3833, "correct": 0, "cannot": 1, "category": ""},
    ]
    summary = rules.summarize(rows)
    assert summary["score"] == pytest.approx((1 + 0 + 0.3833) / 3) and summary["accuracy"] == pytest.approx(1 / 3)
    assert summary["cannot_rate"] == pytest.approx(1 / 3) and summary["n"] == 3
    assert set(rules.by_category(rows)) == {"Attribute", "unknown"}
    assert rules.first_category(["Spatial", "Layout"]) == "Spatial" and rules.first_category([]) == ""


def test_caption_prompts():
    assert caption_prompt("simple", 1) == "Describe this image in detail."
    assert (
        caption_prompt("short", 2)
        == "You are viewing 2 related images. Write a very short caption for the given image."
    )
    tax = {
        "Attribute": {"Color": None, "State": ["open", "closed"]},
        "Spatial": {"Relationship": {"Orientation": ["tilted"], "Containment": None}},
        "Flat": None,
    }
    text = taxonomy_prompt(tax)
    assert text.splitlines() == [
        "Describe this image from the following perspectives. Skip if no information applies to the specific aspect.",
        "",
        "- Attribute -> Color",
        "- Attribute -> State (e.g., open, closed)",
        "- Spatial -> Relationship -> Orientation (e.g., tilted)",
        "- Spatial -> Relationship -> Containment",
        "- Flat",
    ]
    with pytest.raises(ValueError):
        caption_prompt("fancy", 1)


def _row(image: str, q: int, correct: int, letter: str = "A", failed: bool = False) -> dict:
    return {"id": image, "q_idx": q, "correct": correct, "letter": letter, "failed": failed}


def test_reader_stability_is_the_std_of_accuracy_over_the_questions_every_read_answered():
    from lmms_comparative.benchmarks.captionqa.scoring import reader_stability

    read1 = [_row("a", 0, 1), _row("a", 1, 0, "B"), _row("b", 0, 1), _row("b", 1, 1)]
    read2 = [_row("a", 0, 1), _row("a", 1, 1, "A"), _row("b", 0, 1), _row("b", 1, 1)]
    read3 = [_row("a", 0, 1), _row("a", 1, 0, "B"), _row("b", 0, 0, "C"), _row("b", 1, 1, failed=True)]
    found = reader_stability([read1, read2, read3])
    # b/1 failed in read 3: left out of every read. Accuracies 2/3, 3/3, 1/3.
    assert found["questions"] == 3 and found["accuracies"] == pytest.approx([2 / 3, 1.0, 1 / 3])
    assert found["mean"] == pytest.approx(2 / 3) and found["std"] == pytest.approx(1 / 3)  # sample std of (2/3, 1, 1/3)
    assert found["identical"] == pytest.approx(1 / 3)  # only a/0 got the same letter three times


def test_difficulty_buckets_follow_table_10():
    from lmms_comparative.benchmarks.captionqa.scoring import difficulty

    # Five models; question shares correct: q0 5/5 (easy), q1 4/5 = 80% (easy), q2 3/5 = 60% (medium),
    # q3 2/4 = 50% (medium: one model's call failed), q4 0/5 (hard).
    answers = {0: [1, 1, 1, 1, 1], 1: [1, 1, 1, 1, 0], 2: [1, 1, 1, 0, 0], 3: [1, 1, 0, 0, None], 4: [0, 0, 0, 0, 0]}
    models = [[_row("x", q, a[m] or 0, failed=a[m] is None) for q, a in answers.items()] for m in range(5)]
    found = difficulty(models)
    assert found == {"easy": 0.4, "medium": 0.4, "hard": 0.2, "questions": 5, "models": 5}
