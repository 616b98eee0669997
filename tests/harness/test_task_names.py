"""A misspelt name of one of our tasks stops the run with one line and exit status 1; a name that
is nothing of ours keeps lmms-eval's own message and exit status."""

from __future__ import annotations

import os

import pytest
from helpers import base_env, eval_args, run_cli

from lmms_comparative import yaml_dir
from lmms_comparative.harness.task_path import misspelt_task

# Ours indexed from our folder; lmms-eval's own from its (upstream has captionqa_* tasks too).
OURS = ("subtlebench_sp", "subtlebench_at", "subtlebench", "compbench_attribute_cub")
INDEX = {
    name: {"type": "task", "yaml_path": os.path.join(yaml_dir(), name.split("_")[0], "yaml", f"{name}.yaml")}
    for name in OURS
}
INDEX.update(
    {
        name: {"type": "task", "yaml_path": f"/site-packages/lmms_eval/tasks/{name}/{name}.yaml"}
        for name in ("mme", "captionqa_natural")
    }
)


def test_a_name_close_to_ours_gets_our_closest_name():
    assert (
        misspelt_task(["subtlebench_spp"], INDEX)
        == "--tasks subtlebench_spp: no such task; did you mean `subtlebench_sp`?"
    )
    assert (
        misspelt_task(["mme", "subtlebenhc"], INDEX) == "--tasks subtlebenhc: no such task; did you mean `subtlebench`?"
    )
    assert "no task of VLM-SubtleBench has that name" in misspelt_task(["subtlebench_nothing_like_it"], INDEX)
    assert misspelt_task(["subtlebench_sp", "mme"], INDEX) is None  # every name known
    assert misspelt_task(["mmee"], INDEX) is None  # not ours: lmms-eval's message
    assert misspelt_task(["subtlebench_*"], INDEX) is None  # a wildcard: lmms-eval matches it
    # lmms-eval's own captionqa_natural, misspelt: its message, not ours, although the prefix is ours.
    assert misspelt_task(["captionqa_natrual"], INDEX) is None
    assert misspelt_task(["captionqa_whatever"], INDEX) is None  # a prefix upstream shares: not only ours


@pytest.mark.e2e
def test_the_typo_exits_1_with_one_line_and_a_foreign_name_keeps_lmms_evals_behaviour(
    hf_home, subtlebench_root, tmp_path
):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=str(subtlebench_root))
    proc = run_cli(
        eval_args("random_choice", "subtlebench_spp", tmp_path / "a", log_samples=False),
        env,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert (
        proc.stderr.strip().splitlines()[-1]
        == "lmms-comparative: --tasks subtlebench_spp: no such task; did you mean `subtlebench_sp`?"
    )
    assert "Traceback" not in proc.stderr and not (tmp_path / "a").exists()
    proc = run_cli(eval_args("random_choice", "mmee", tmp_path / "b", log_samples=False), env, timeout=300)
    assert proc.returncode == 0 and "Tasks not found: mmee" in proc.stderr  # lmms-eval's own, unchanged
