"""``verify`` of a folder of several runs: their re-scores are forked from one lmms-eval start-up
(lmms_comparative/rescoring/warm.py) and give the verdicts, output and verdict files of fresh
processes (``LMMS_COMPARATIVE_VERIFY_COLD=1``); a forged run among honest ones fails alone."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import base_env, eval_args, read_run, run_cli
from helpers.verifying import copy_run, save
from helpers.verifying import verify as _verify

pytestmark = pytest.mark.e2e

SEEDS = (1, 2, 3)
FORKED = "re-scored from one lmms-eval start-up"  # verify's line on stderr when the server serves
AFRESH = "starts lmms-eval afresh"  # its notice when a re-score falls back to a fresh process


@pytest.fixture(scope="module")
def three_runs(hf_home, subtlebench_root, tmp_path_factory) -> Path:
    """Three ``random_choice`` runs (seeds 1, 2, 3) of two SubtleBench tasks, one folder each, under
    one folder. Read it, never change it (copy it first)."""
    folder = tmp_path_factory.mktemp("three_runs")
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    for seed in SEEDS:
        out = folder / f"seed{seed}"
        proc = run_cli(eval_args("random_choice", "subtlebench_at,subtlebench_sp", out, model_args=f"seed={seed}"), env)
        read_run(out, proc)
        assert proc.returncode == 0, proc.stderr[-3000:]
    return folder


def _blocks(stdout: str) -> dict[str, list[str]]:
    """verify's output as {the run's folder name: the lines under its results file}."""
    blocks: dict[str, list[str]] = {}
    current: list[str] = []
    for line in stdout.splitlines():
        if line.endswith("_results.json:") and not line.startswith(" "):
            current = blocks.setdefault(Path(line[:-1]).parent.name, [])
        elif line.startswith("  "):
            current.append(line.strip())
    return blocks


def _verdict_files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.glob("*/*_verify.json"))}


def test_three_runs_pass_through_the_fork_server_as_through_fresh_processes(
    three_runs, hf_home, subtlebench_root, tmp_path
):
    folder = tmp_path / "runs"
    shutil.copytree(three_runs, folder)
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    forked = _verify(folder, env)
    assert forked.returncode == 0, forked.stdout[-3000:] + forked.stderr[-3000:]
    assert FORKED in forked.stderr and AFRESH not in forked.stderr, forked.stderr[-3000:]
    blocks = _blocks(forked.stdout)
    assert set(blocks) == {f"seed{s}" for s in SEEDS}
    for lines in blocks.values():
        verdicts = [line for line in lines if line.split()[0] in ("PASS", "FAIL", "UNVERIFIED")]
        assert verdicts and all(line.startswith("PASS") for line in verdicts), lines
        assert lines[-1] == f"run: PASS ({len(verdicts)} tasks and groups)", lines
    assert forked.stdout.rstrip().endswith("verify: every task holds")
    written = _verdict_files(folder)
    assert len(written) == len(SEEDS)

    fresh = _verify(folder, {**env, "LMMS_COMPARATIVE_VERIFY_COLD": "1"})
    assert fresh.returncode == 0, fresh.stdout[-3000:] + fresh.stderr[-3000:]
    assert FORKED not in fresh.stderr
    assert fresh.stdout == forked.stdout
    assert _verdict_files(folder) == written


def test_a_forged_run_among_honest_ones_fails_alone(three_runs, hf_home, subtlebench_root, tmp_path):
    folder = tmp_path / "runs"
    for seed in SEEDS:
        results_file, results, _ = copy_run(three_runs / f"seed{seed}", folder / f"seed{seed}")
        if seed == 2:
            results["results"]["subtlebench_at"]["accuracy,none"] += 0.125
            save(results_file, results)
    proc = _verify(folder, base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root))
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert FORKED in proc.stderr and AFRESH not in proc.stderr, proc.stderr[-3000:]
    blocks = _blocks(proc.stdout)
    assert any(line.startswith("FAIL       subtlebench_at: subtlebench_at accuracy,none") for line in blocks["seed2"])
    assert blocks["seed2"][-1].startswith("run: FAIL (1 FAIL of "), blocks["seed2"]
    assert blocks["seed1"][-1].startswith("run: PASS (") and blocks["seed3"][-1].startswith("run: PASS (")
    assert "verify: NOT every task holds" in proc.stdout
