"""Honest runs that ``verify`` must not call forgeries: a run with ``--limit`` and ``--offset`` (its
re-score starts at the same doc), and a run without ``--log_samples`` (nothing to re-derive its
numbers from: UNVERIFIED, not FAIL)."""

from __future__ import annotations

import pytest
from helpers import base_env, read_run, run_cli
from helpers.verifying import verdicts, verify

pytestmark = pytest.mark.e2e


def test_a_run_with_an_offset_verifies(hf_home, subtlebench_root, tmp_path):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    out = tmp_path / "offset"
    proc = run_cli(["--model", "random_choice", "--tasks", "subtlebench_at", "--output_path", str(out), "--log_samples", "--limit", "2", "--offset", "1"], env=env)
    results, samples = read_run(out, proc)
    assert results["lmms_comparative"]["seeds"]["offset"] == 1 and len(samples["subtlebench_at"]) == 2
    proc = verify(out, env)
    assert proc.returncode == 0 and verdicts(proc)["subtlebench_at"].startswith("PASS       subtlebench_at: 2 items, each once"), proc.stdout[-3000:] + proc.stderr[-2000:]


def test_a_run_without_samples_is_unverified_not_failed(hf_home, subtlebench_root, tmp_path):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    out = tmp_path / "no_samples"
    proc = run_cli(["--model", "random_choice", "--tasks", "subtlebench_at", "--output_path", str(out)], env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = verify(out, env)
    found = verdicts(proc)
    assert proc.returncode == 1 and found["subtlebench_at"].startswith("UNVERIFIED subtlebench_at: no samples log"), proc.stdout[-3000:]
    assert "FAIL" not in proc.stdout


def test_a_second_score_of_a_folder_that_holds_the_first_scores_the_run_again(subtlebench_pass_run, hf_home, subtlebench_root, tmp_path):
    """``score RUN -o RUN/rescored`` writes a second run inside the folder: a later ``score RUN``
    must read the run's own samples, not those too (it stopped on "a second prediction for item")."""
    import shutil

    from helpers import run_score

    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    run = tmp_path / "run"
    shutil.copytree(subtlebench_pass_run, run, ignore=shutil.ignore_patterns("*_verify.json"))
    original, _ = read_run(run)
    for out in (run / "rescored", tmp_path / "second"):
        proc = run_score("subtlebench", str(run), "-o", str(out), env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        scored, _ = read_run(out)
        for task in ("subtlebench_at", "subtlebench_sp"):
            assert scored["results"][task]["accuracy,none"] == original["results"][task]["accuracy,none"]
