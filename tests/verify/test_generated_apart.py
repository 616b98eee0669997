"""``verify/predict_only.py`` on records as our provenance writes them: the generating run's entry of
a scored --predict_only run against the re-score's. The untouched entry passes; a changed prompt
hash or item order fails; another data copy is said, not failed."""

from __future__ import annotations

from lmms_comparative.verify.predict_only import generation_checks

USED = {
    "prompts": "a" * 64,
    "items": {"count": 3, "sha256": "s" * 64, "order_sha256": "o" * 64},
    "data": {"source": "local", "fingerprint": "f" * 64},
}


def _record(entry: dict | None) -> dict:
    return {
        "tasks": {"subtlebench_sp": USED},
        "predictions": {
            "generation": {"predict_only": True, "tasks": {} if entry is None else {"subtlebench_sp": entry}}
        },
    }


def test_the_generating_entry_must_match_the_package_and_the_docs_and_its_data_copy_is_said():
    assert generation_checks("subtlebench_sp", _record(USED), USED) == ([], [])
    assert generation_checks("subtlebench_sp", {"tasks": {}}, USED) == ([], [])  # a run that generated its own replies
    problems, _ = generation_checks("subtlebench_sp", _record({**USED, "prompts": "b" * 64}), USED)
    assert problems == [
        f"the generating (--predict_only) run's record has prompt hash {'b' * 12}..., not the installed "
        f"package's {'a' * 12}...: the replies answer other prompts than the ones scored"
    ]
    problems, _ = generation_checks(
        "subtlebench_sp", _record({**USED, "items": {**USED["items"], "order_sha256": "x" * 64}}), USED
    )
    assert len(problems) == 1 and "in an order other than the docs re-scored here" in problems[0]
    # A task with no generating entry took its replies from another file of the same score: no prompts to hold it to.
    assert generation_checks("subtlebench_sp", _record(None), USED) == ([], [])
    # A team's variant: its generating entry is held to the scored record's prompts, not the package's.
    variant = {**USED, "prompts": "v" * 64}
    assert generation_checks("subtlebench_sp", _record(variant), USED, "v" * 64) == ([], [])
    problems, _ = generation_checks("subtlebench_sp", _record(variant), USED, "w" * 64)
    assert problems and problems[0].startswith(
        f"the generating (--predict_only) run's record has prompt hash {'v' * 12}..., not the scored "
        f"record's {'w' * 12}..."
    )
    problems, notes = generation_checks(
        "subtlebench_sp", _record({**USED, "data": {"source": "hub", "fingerprint": "e" * 64}}), USED
    )
    assert problems == [] and notes == [
        f"generated, as its record claims, on a data copy (fingerprint {'e' * 12}...) other than the one scored here"
    ]


def test_one_score_takes_the_replies_of_one_generating_run():
    """Two --predict_only runs' replies merged into one score would leave one generating record for
    both: refused in one line; a predict-only run with another file (no generating record) merges."""
    import pytest

    from lmms_comparative.data.replies import PredictionsError, Replies

    first = Replies(sources=["gen_a"], generation={"tasks": {"subtlebench_sp": USED}}, generated_by={"model": "a"})
    plain = Replies(sources=["replies.json"])
    first.merge(plain)
    assert first.generation == {"tasks": {"subtlebench_sp": USED}} and first.generated_by == {"model": "a"}
    first.merge(
        Replies(sources=["gen_a_again"], generation={"tasks": {"subtlebench_sp": USED}})
    )  # the same run's record
    with pytest.raises(
        PredictionsError, match="gen_b: the replies of a second --predict_only run; score each run's folder on its own"
    ):
        first.merge(Replies(sources=["gen_b"], generation={"tasks": {"subtlebench_at": USED}}))
