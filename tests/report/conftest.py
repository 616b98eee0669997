"""The report folder's shared runs: ``compared``, the two baselines (and a third run of SubtleBench
alone) that test_compare_runs.py and test_pair_report.py read. A session fixture, and the two files
one work unit (tests/conftest.py: SAME_WORKER), so the runs are made once."""

from __future__ import annotations

import re

import pytest
from helpers import COMPARED_TASKS, base_env, build_roots, eval_args, read_run, run_cli, run_tool
from helpers.fake_openai import FakeOpenAI, message_text


def _reader(body: dict) -> str:
    text = message_text(body)
    options = re.findall(r"^([A-Z])\. ", text, re.M)
    return options[len(text) % len(options)] if options else "A"


@pytest.fixture(scope="session")
def compared(tmp_path_factory, hf_home):
    """Runs a and b: ``random_choice`` with seeds 1 and 2 on every benchmark's fixture; c: seed 3 on
    two SubtleBench tasks; and ``compare a b`` into out. Returns the folder, the environment, the
    data roots and the compare process. Read them, never change them (copy first)."""
    base = tmp_path_factory.mktemp("compare")
    roots = build_roots(base / "data", subtlebench={"per_category": 4}, compbench={"per_source": 4})
    env = base_env(hf_home, **roots, LMMS_COMPARATIVE_LLM_CACHE="off")
    with FakeOpenAI(_reader) as server:
        served = {**env, **server.judge_env("CAPTIONQA_READER")}
        for name, seed, tasks in (
            ("a", 1, COMPARED_TASKS),
            ("b", 2, COMPARED_TASKS),
            ("c", 3, ["subtlebench_at", "subtlebench_sp"]),
        ):  # c: one benchmark only
            proc = run_cli(
                eval_args("random_choice", ",".join(tasks), base / name, model_args=f"seed={seed}"),
                env=served,
            )
            read_run(base / name, proc)
    proc = run_tool("compare", str(base / "a"), str(base / "b"), "-o", str(base / "out"), env=env)
    return base, env, roots, proc
