"""What the report shows as a run's claim rather than a checked fact: the model its ``--model_args``
name, and the protocol its command line overrode (``--gen_kwargs`` changes the papers' decoding
for every task). A run with the tasks' own decoding is the honest twin."""

from __future__ import annotations

import json

import pytest
from helpers import base_env, eval_args, read_run, run_cli, run_tool

pytestmark = pytest.mark.e2e


def test_a_decoding_override_is_shown_beside_the_run_and_the_tasks_own_is_said(
    subtlebench_pass_run, hf_home, subtlebench_root, tmp_path
):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    out = tmp_path / "overridden"
    proc = run_cli(
        eval_args("random_choice", "subtlebench_at", out, "--gen_kwargs", "temperature=0.7,max_new_tokens=32"),
        env=env,
    )
    read_run(out, proc)
    report = tmp_path / "report"
    proc = run_tool("report", str(subtlebench_pass_run), str(out), "-o", str(report), "--no-html", env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    runs = json.loads((report / "report.json").read_text())["runs"]
    assert runs[0]["overrides"] == {} and runs[1]["overrides"] == {"gen_kwargs": "temperature=0.7,max_new_tokens=32"}, (
        runs
    )
    markdown = (report / "report.md").read_text()
    assert "| overridden: `--gen_kwargs temperature=0.7,max_new_tokens=32` |" in markdown
    assert "| the tasks' own |" in markdown
    assert (
        "Runs are named by the model their `--model_args` name (a score of a --predict_only run's replies: "
        "the generating run's): the submitter's claim" in markdown
    )
