"""lmms-eval's ``--use_cache`` on our tasks, through the real CLI: the record says how many
requests its response cache served (``harness/response_cache.py``) and the report says so. The
cache serves deterministic requests only: SubtleBench's own decoding (the paper's temperature 0.5)
is never served from it, a run with ``--gen_kwargs temperature=0`` is, the second time; a run
without ``--use_cache`` (the honest twin) has no such record and no such line."""

from __future__ import annotations

import pytest
from helpers import base_env, read_run, run_cli, run_report

pytestmark = pytest.mark.e2e


def _run(out, env, *extra):
    proc = run_cli(
        ["--model", "random_choice", "--tasks", "subtlebench_sp", "--output_path", str(out), "--log_samples", *extra],
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    results, samples = read_run(out, proc)
    return results, len(samples["subtlebench_sp"])


def test_the_record_says_what_the_response_cache_served(hf_home, subtlebench_root, tmp_path):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    sampled, n = _run(tmp_path / "sampled", env, "--use_cache", str(tmp_path / "cache_sampled"))
    assert sampled["lmms_comparative"]["response_cache"] == {
        "hits": 0,
        "hits_shared": 0,
        "misses": 0,
        "skipped_non_deterministic": n,
    }

    first, _ = _run(tmp_path / "greedy_1", env, "--use_cache", str(tmp_path / "cache"), "--gen_kwargs", "temperature=0")
    again, _ = _run(tmp_path / "greedy_2", env, "--use_cache", str(tmp_path / "cache"), "--gen_kwargs", "temperature=0")
    assert (
        first["lmms_comparative"]["response_cache"]["misses"] == n
        and first["lmms_comparative"]["response_cache"]["hits"] == 0
    )
    assert (
        again["lmms_comparative"]["response_cache"]["hits"] == n
    )  # hits_shared: those of them found in the root cache of earlier runs
    assert again["lmms_comparative"]["response_cache"]["misses"] == 0

    report = run_report(str(tmp_path / "greedy_2"), "-o", str(tmp_path / "report"), "--no-html")
    assert report.returncode == 0, report.stderr[-2000:]
    text = (tmp_path / "report" / "report.md").read_text()
    assert (
        f"run with lmms-eval's `--use_cache`: {again['lmms_comparative']['response_cache']['hits']} "
        "request(s) answered from its response cache, 0 by the model" in text
    )

    # The honest twin: no --use_cache, no record of it, no line.
    plain, _ = _run(tmp_path / "plain", env)
    assert "response_cache" not in plain["lmms_comparative"]
    report = run_report(str(tmp_path / "plain"), "-o", str(tmp_path / "report_plain"), "--no-html")
    assert "--use_cache" not in (tmp_path / "report_plain" / "report.md").read_text()
