"""ViDiC-1K's scoring rules against what the authors' code does (judge/judge.py, utils/calculate.py
at NJU-LINK/ViDiC-1K @d00446f). The expected values are theirs, read from running their functions
on these inputs; the cases marked "differs" are where their script stops and ours goes on."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lmms_comparative.benchmarks.vidic import scoring
from lmms_comparative.benchmarks.vidic.prompts import JUDGE_TEMPLATE

PARSED = [
    # the first fenced ```json block, as an object
    ('Here:\n```json\n{"answer": "yes", "explanation": "B is faster"}\n```', "yes", "B is faster"),
    # a fenced block that is not an object: the whole reply is tried, then the regex
    ("```json\n[1]\n```\nanswer: no", "no", "```json\n[1]\n```\nanswer: no"),
    # "```JSON" is not their fence (case-sensitive): the regex reads it
    ('```JSON\n{"answer": "no"}\n```', "error", '```JSON\n{"answer": "no"}\n```'),
    # an object's answer is kept as it is: not lowercased, not stripped
    ('{"answer": "Yes ", "explanation": 3}', "Yes ", 3),
    ('{"explanation": "x"}', "error", "x"),
    ('{"answer": null}', None, ""),
    # prose: the regex, lowercased, with a full-width colon too; its explanation after "because"
    ("The answer：YES, because the camera pans.", "yes", "the camera pans."),
    ("the answer:nope", "no", "the answer:nope"),
    ("answer: unsure", "unsure", "answer: unsure"),
    ("I would rather not say.", "error", "I would rather not say."),
    ('"yes"', "error", '"yes"'),
    ("", "error", ""),
]


@pytest.mark.parametrize(("reply", "answer", "explanation"), PARSED)
def test_the_judge_reply_is_read_as_the_authors_read_it(reply, answer, explanation):
    assert scoring.parse_judge_response(reply) == {"answer": answer, "explanation": explanation}


def test_a_missing_reply_and_an_object_reply():
    assert scoring.parse_judge_response(None) == {"answer": "error", "explanation": "Empty response"}
    assert scoring.parse_judge_response({"answer": "no"}) == {"answer": "no", "explanation": ""}


def test_a_deeply_nested_reply_is_an_error_not_a_crash():
    assert scoring.parse_judge_response("[" * 5000 + "]" * 5000)["answer"] == "error"


@given(st.sampled_from(["yes", "no", "Yes", "NO", "unsure"]), st.text(max_size=40))
def test_the_object_the_prompt_asks_for_is_read_back(answer, explanation):
    reply = json.dumps({"answer": answer, "explanation": explanation}, ensure_ascii=False)
    assert scoring.parse_judge_response(reply) == {"answer": answer, "explanation": explanation}


@given(st.text(max_size=200))
def test_any_reply_parses_to_an_answer(reply):
    parsed = scoring.parse_judge_response(reply)
    assert set(parsed) == {"answer", "explanation"}


def test_an_answer_is_right_when_it_equals_the_gold_case_aside():
    assert scoring.is_correct("Yes", "yes") and scoring.is_correct("no", "NO")
    assert not scoring.is_correct(" yes", "yes") and not scoring.is_correct("error", "no")
    # differs: calculate.py calls .lower() on a JSON null, true or number and stops; here it is wrong
    assert not scoring.is_correct(None, "no") and not scoring.is_correct(True, "yes")


def test_the_judge_messages_are_judge_py_s():
    messages = scoring.judge_messages("Similarities", "A {question} in braces", "Is the style the same?")
    assert messages[0] == {
        "role": "system",
        "content": "You are a rigorous video analysis assistant. This is a Similarities problem.",
    }
    assert messages[1]["role"] == "user"
    content = messages[1]["content"]
    assert content == JUDGE_TEMPLATE.format(description="A {question} in braces", question="Is the style the same?")
    # str.format inserts the description as it is: a brace in it is not filled again
    assert "【Model Description】\nA {question} in braces\n\n【Question】\nIs the style the same?\n" in content
    assert 'Output format is a JSON object: {"answer": "yes/no", "explanation": "reason"}' in content


def test_a_response_file_s_response_becomes_the_text_judge_py_reads():
    assert scoring.description_text({"Subject": "différent"}) == '{"Subject": "différent"}'
    assert scoring.description_text(["a"]) == "['a']"  # str() of a list, as judge.py gives it
    assert scoring.description_text(None) == "None"


def _item(section, cls, correct):
    return {"section": section, "class": cls, "correct": correct}


def test_avg_pools_every_item_and_each_class_pools_both_sections():
    items = [
        _item("Similarities", "style", True),
        _item("Similarities", "playback technique", False),
        _item("Differences", "style", False),
        _item("Differences", "camera", True),
        _item("Differences", "camera", True),
    ]
    report = scoring.aggregate(items)
    assert report["avg"] == 3 / 5  # not the mean of Diff and Sim (1/2 and 2/3)
    assert (report["sim"], report["diff"]) == (1 / 2, 2 / 3)
    assert (report["style"], report["camera"], report["technique"]) == (1 / 2, 1.0, 0.0)
    assert report["by_class"]["playback technique"] == {"accuracy": 0.0, "n": 1, "right": 0}
    # differs: calculate.py prints 0 for a section or class with no item; here it is NaN (no score)
    assert math.isnan(report["subject"])


@pytest.mark.parametrize(
    ("cls", "dimension"),
    [
        ("subject", "subject"),
        ("playback technique", "technique"),
        ("Playback_Technique", "technique"),
        ("Camera Work", "camera"),
        ("lighting", None),
    ],
)
def test_a_class_is_read_as_its_readme_column(cls, dimension):
    assert scoring.dimension(cls) == dimension


def test_the_interval_resamples_pairs():
    import numpy as np

    pairs = [[_item("Differences", "camera", True)], [_item("Similarities", "style", False)] * 3]
    statistic = scoring.bootstrap_statistic(pairs)
    values = statistic(np.array([[0, 0], [1, 1], [0, 1]]))
    assert list(values["avg"]) == [1.0, 0.0, 0.25]
