"""Honest runs that ``verify`` must not call forgeries: a run with ``--limit`` and ``--offset`` (its
re-score starts at the same doc), and a run without ``--log_samples`` (nothing to re-derive its
numbers from: UNVERIFIED, not FAIL)."""

from __future__ import annotations

import pytest
from helpers import base_env, eval_args, read_run, run_cli
from helpers.verifying import verdicts, verify

pytestmark = pytest.mark.e2e


def test_a_run_with_an_offset_verifies(hf_home, subtlebench_root, tmp_path):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    out = tmp_path / "offset"
    proc = run_cli(
        eval_args("random_choice", "subtlebench_at", out, "--limit", "2", "--offset", "1"),
        env=env,
    )
    results, samples = read_run(out, proc)
    assert results["lmms_comparative"]["seeds"]["offset"] == 1 and len(samples["subtlebench_at"]) == 2
    proc = verify(out, env)
    assert proc.returncode == 0 and verdicts(proc)["subtlebench_at"].startswith(
        "PASS       subtlebench_at: 2 items, each once"
    ), proc.stdout[-3000:] + proc.stderr[-2000:]


def test_a_run_without_samples_is_unverified_not_failed(hf_home, subtlebench_root, tmp_path):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    out = tmp_path / "no_samples"
    proc = run_cli(eval_args("random_choice", "subtlebench_at", out, log_samples=False), env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = verify(out, env)
    found = verdicts(proc)
    assert proc.returncode == 1 and found["subtlebench_at"].startswith("UNVERIFIED subtlebench_at: no samples log"), (
        proc.stdout[-3000:]
    )
    assert "FAIL" not in proc.stdout


def test_a_second_score_of_a_folder_that_holds_the_first_scores_the_run_again(
    subtlebench_pass_run, hf_home, subtlebench_root, tmp_path
):
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


def test_a_teams_variant_of_our_task_verifies_as_a_variant_and_is_never_exported_as_ours(
    hf_home, subtlebench_root, tmp_path
):
    """A team's own task that includes ours with its own decoding (``task: team_sp_greedy``,
    ``include: .../subtlebench_sp.yaml``) is re-scored as a variant of subtlebench_sp and labelled
    so; it FAILed ("the record names benchmark 'subtlebench', which does not own team_sp_greedy"),
    which pushed teams to shadow our names. A forged metric of the variant still fails."""
    import json
    import shutil
    from pathlib import Path

    from helpers import run_tool
    from helpers.verifying import export

    import lmms_comparative.benchmarks.subtlebench as subtlebench

    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    team = tmp_path / "team_tasks"
    team.mkdir()
    ours = Path(subtlebench.__file__).parent / "yaml" / "subtlebench_sp.yaml"
    (team / "team_sp_greedy.yaml").write_text(
        f"include: {ours}\ntask: team_sp_greedy\ngeneration_kwargs:\n  max_new_tokens: 512\n  temperature: "
        "0\n  until: []\n"
    )
    out = tmp_path / "run"
    proc = run_cli(
        eval_args("random_choice", "team_sp_greedy,subtlebench_sp", out, "--include_path", str(team)),
        env=env,
    )
    results, _ = read_run(out, proc)
    assert results["lmms_comparative"]["tasks"]["team_sp_greedy"]["variant_of"] == "subtlebench_sp"
    assert "variant_of" not in results["lmms_comparative"]["tasks"]["subtlebench_sp"]

    proc = verify(out, env)
    found = verdicts(proc)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert found["team_sp_greedy"].startswith(
        "PASS       team_sp_greedy: variant of subtlebench_sp: re-scored through subtlebench_sp's hooks"
    ) and found["subtlebench_sp"].startswith("PASS")

    forged = tmp_path / "forged"
    shutil.copytree(out, forged, ignore=shutil.ignore_patterns("*_verify.json"))
    results_file = next(forged.glob("*_results.json"))
    document = json.loads(results_file.read_text())
    document["results"]["team_sp_greedy"]["accuracy,none"] = 1.0
    results_file.write_text(json.dumps(document))
    found = verdicts(verify(forged, env))
    assert (
        found["team_sp_greedy"].startswith("FAIL")
        and "team_sp_greedy accuracy,none: the results JSON says 1.0" in found["team_sp_greedy"]
    ), found
    assert found["subtlebench_sp"].startswith("PASS"), found

    proc = export(str(out), "-o", str(tmp_path / "export"), "--allow-subset", env=env)
    exported = "".join(p.read_text() for p in (tmp_path / "export").rglob("*.yaml"))
    assert proc.returncode == 0 and "subtlebench_sp" in exported and "team_sp_greedy" not in exported, proc.stderr[
        -2000:
    ]
    proc = run_tool("report", str(out), "-o", str(tmp_path / "report"), "--no-html", env=env)
    assert (
        proc.returncode == 0
        and "`team_sp_greedy` is a variant of `subtlebench_sp`" in (tmp_path / "report" / "report.md").read_text()
    ), proc.stderr[-2000:]
