"""A ``--limit`` that cuts a VLM2-Bench T/F pair in two: the run says so in one line and counts the
pair (``counts.incomplete_pairs``), instead of a silent NaN; a limit that keeps whole pairs is the
honest twin (no line, no count). The line goes to the run log (lmms-eval's logger writes to stdout)."""

from __future__ import annotations

import pytest
from helpers import base_env, eval_args, read_run, run_cli

pytestmark = pytest.mark.e2e


def test_a_limit_that_splits_a_pair_is_said_and_counted(hf_home, fixture_roots, tmp_path):
    env = base_env(hf_home, VLM2BENCH_ROOT=fixture_roots["VLM2BENCH_ROOT"])
    found = {}
    for limit in ("3", "4"):
        out = tmp_path / f"limit{limit}"
        proc = run_cli(
            eval_args("random_choice", "vlm2bench_oc_cpr", out, "--limit", limit),
            env=env,
        )
        results, _ = read_run(out, proc)
        assert proc.returncode == 0, proc.stderr[-3000:]
        found[limit] = (results["results"]["vlm2bench_oc_cpr"]["counts,none"], proc.stdout + proc.stderr)
    counts, stderr = found["3"]
    assert counts["incomplete_pairs"] == 1 and counts["pairs"] == 1, counts
    assert (
        "1 pair(s) have only one of their two questions in this run (a --limit or --offset that splits "
        "pairs): dropped, as the official OC/PC script drops them" in stderr
    )
    counts, stderr = found["4"]
    assert (
        "incomplete_pairs" not in counts
        and counts["pairs"] == 2
        and "have only one of their two questions" not in stderr
    ), counts
