"""``verify/generated.py`` on records as our provenance writes them: the generating run's entry of
a scored --predict_only run against the re-score's. The untouched entry passes; a changed prompt
hash, item order or a missing entry fails; another data copy is said, not failed."""

from __future__ import annotations

from lmms_comparative.verify.generated import generation_checks

USED = {"prompts": "a" * 64, "items": {"count": 3, "sha256": "s" * 64, "order_sha256": "o" * 64}, "data": {"source": "local", "fingerprint": "f" * 64}}


def _record(entry: dict | None) -> dict:
    return {"tasks": {"subtlebench_sp": USED}, "predictions": {"generation": {"predict_only": True, "tasks": {} if entry is None else {"subtlebench_sp": entry}}}}


def test_the_generating_entry_must_match_the_package_and_the_docs_and_its_data_copy_is_said():
    assert generation_checks("subtlebench_sp", _record(USED), USED) == ([], [])
    assert generation_checks("subtlebench_sp", {"tasks": {}}, USED) == ([], [])  # a run that generated its own replies
    problems, _ = generation_checks("subtlebench_sp", _record({**USED, "prompts": "b" * 64}), USED)
    assert problems == [f"the generating (--predict_only) run's record has prompt hash {'b' * 12}..., not the installed package's {'a' * 12}...: the replies answer other prompts than the ones scored"]
    problems, _ = generation_checks("subtlebench_sp", _record({**USED, "items": {**USED["items"], "order_sha256": "x" * 64}}), USED)
    assert len(problems) == 1 and "in an order other than the docs re-scored here" in problems[0]
    problems, _ = generation_checks("subtlebench_sp", _record(None), USED)
    assert problems == ["the generating (--predict_only) run's record has no entry for subtlebench_sp: these replies are not shown to come from it"]
    problems, notes = generation_checks("subtlebench_sp", _record({**USED, "data": {"source": "hub", "fingerprint": "e" * 64}}), USED)
    assert problems == [] and notes == [f"generated, as its record claims, on a data copy (fingerprint {'e' * 12}...) other than the one scored here"]
