"""What a verdict file covers (verify.read_verdicts): every file of the run by sha256, each change
named once; a verdict of an earlier version, which hashed the results file only, names every other
file as not covered (once each) and the results file only where it changed."""

from __future__ import annotations

import hashlib
import json

from lmms_comparative.verify import covered_files, read_verdicts


def _run(folder):
    folder.mkdir()
    results = folder / "20260101_000000_results.json"
    results.write_text('{"results": {}}')
    (folder / "20260101_000000_samples_subtlebench_at.jsonl").write_text('{"doc_id": 0}\n')
    (folder / "20260101_000000_samples_subtlebench_sp.jsonl").write_text('{"doc_id": 0}\n')
    return results


def test_a_current_verdict_and_each_change_named_once(tmp_path):
    results = _run(tmp_path / "run")
    verdict = tmp_path / "run" / "20260101_000000_verify.json"
    verdict.write_text(json.dumps({"verdict": "PASS", "files": covered_files(results)}))
    assert read_verdicts(results)["current"] is True and read_verdicts(results)["changed"] == []  # the honest twin
    (tmp_path / "run" / "20260101_000000_samples_subtlebench_at.jsonl").write_text('{"doc_id": 1}\n')
    (tmp_path / "run" / "20260101_000000_samples_subtlebench_st.jsonl").write_text('{"doc_id": 0}\n')
    found = read_verdicts(results)
    assert found["current"] is False and found["changed"] == ["20260101_000000_samples_subtlebench_at.jsonl", "20260101_000000_samples_subtlebench_st.jsonl"]


def test_an_older_verdict_names_each_uncovered_file_once(tmp_path):
    results = _run(tmp_path / "run")
    verdict = tmp_path / "run" / "20260101_000000_verify.json"
    verdict.write_text(json.dumps({"verdict": "PASS", "results_sha256": hashlib.sha256(results.read_bytes()).hexdigest()}))
    found = read_verdicts(results)
    assert found["current"] is False
    assert found["changed"] == [f"20260101_000000_samples_subtlebench_{t}.jsonl (not covered by this older verdict)" for t in ("at", "sp")]
    results.write_text('{"results": {"x": {}}}')
    assert read_verdicts(results)["changed"][0] == results.name
