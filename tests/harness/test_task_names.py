"""A misspelt name of one of our tasks stops the run with one line and exit status 1; a name that
is nothing of ours keeps lmms-eval's own message and exit status."""

from __future__ import annotations

import pytest
from helpers import base_env, run_cli

from lmms_comparative.harness.task_path import misspelt_task

INDEX = {name: {"type": "task"} for name in ("subtlebench_sp", "subtlebench_at", "subtlebench", "compbench_attribute_cub", "mme")}


def test_a_name_close_to_ours_gets_our_closest_name():
    assert misspelt_task(["subtlebench_spp"], INDEX) == "--tasks subtlebench_spp: no such task; did you mean `subtlebench_sp`?"
    assert misspelt_task(["mme", "subtlebenhc"], INDEX) == "--tasks subtlebenhc: no such task; did you mean `subtlebench`?"
    assert "no task of VLM-SubtleBench has that name" in misspelt_task(["subtlebench_nothing_like_it"], INDEX)
    assert misspelt_task(["subtlebench_sp", "mme"], INDEX) is None  # every name known
    assert misspelt_task(["mmee"], INDEX) is None  # not ours: lmms-eval's message
    assert misspelt_task(["subtlebench_*"], INDEX) is None  # a wildcard: lmms-eval matches it


@pytest.mark.e2e
def test_the_typo_exits_1_with_one_line_and_a_foreign_name_keeps_lmms_evals_behaviour(hf_home, subtlebench_root, tmp_path):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=str(subtlebench_root))
    proc = run_cli(["--model", "random_choice", "--tasks", "subtlebench_spp", "--output_path", str(tmp_path / "a")], env, timeout=300)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert proc.stderr.strip().splitlines()[-1] == "lmms-comparative: --tasks subtlebench_spp: no such task; did you mean `subtlebench_sp`?"
    assert "Traceback" not in proc.stderr and not (tmp_path / "a").exists()
    proc = run_cli(["--model", "random_choice", "--tasks", "mmee", "--output_path", str(tmp_path / "b")], env, timeout=300)
    assert proc.returncode == 0 and "Tasks not found: mmee" in proc.stderr  # lmms-eval's own, unchanged
