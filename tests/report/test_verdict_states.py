"""A verdict covers every file of the run it checked (the results JSON, samples logs, answers and
side logs, each by sha256): ``report`` and ``compare`` show STALE for a run whose samples changed
after ``verify`` passed it, or that gained a file; ``compare`` says both runs' verify state in its
first line and in compare.json, and refuses a run that FAILs unless ``--unverified``. The untouched,
verified run beside them is the honest twin (PASS). The verdict key lives in the test's own config
folder (verify.signing), never the real home's."""

from __future__ import annotations

import json
import shutil

import pytest
from helpers import base_env, run_tool
from helpers.hostile import copy, rows, save, write_rows
from helpers.verifying import verify

pytestmark = pytest.mark.e2e


def test_report_and_compare_show_each_runs_verify_state(subtlebench_pass_run, hf_home, subtlebench_root, tmp_path):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root, LMMS_COMPARATIVE_CONFIG_DIR=tmp_path / "config")
    honest_file, _, _ = copy(subtlebench_pass_run, tmp_path / "honest")
    assert verify(tmp_path / "honest", env).returncode == 0
    verdict = json.loads(honest_file.with_name(honest_file.name.replace("_results.json", "_verify.json")).read_text())
    assert sorted(verdict["files"]) == sorted(
        p.name for p in (tmp_path / "honest").iterdir() if not p.name.endswith("_verify.json")
    )

    # Edited after verify passed it: a reply and its score in a samples log.
    shutil.copytree(tmp_path / "honest", tmp_path / "edited")
    samples = next((tmp_path / "edited").glob("*_samples_subtlebench_at.jsonl"))
    found = rows(samples)
    found[0]["resps"] = [["Z"]]
    write_rows(samples, found)
    # A samples log added after verify passed it (a task the record does not name).
    shutil.copytree(tmp_path / "honest", tmp_path / "added")
    extra = next((tmp_path / "added").glob("*_samples_subtlebench_sp.jsonl"))
    shutil.copy(extra, extra.with_name(extra.name.replace("subtlebench_sp", "subtlebench_st")))

    out = tmp_path / "report"
    proc = run_tool(
        "report", str(tmp_path / "honest"), str(tmp_path / "edited"), str(tmp_path / "added"), "-o", str(out), env=env
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    states = [r["verify"] for r in json.loads((out / "report.json").read_text())["runs"]]
    assert states[0] == "PASS (2 pass)", states
    assert states[1] == f"STALE: {samples.name} changed after `lmms-comparative verify` checked the run", states
    assert states[2].startswith("STALE: ") and "_samples_subtlebench_st.jsonl" in states[2], states

    proc = run_tool("compare", str(tmp_path / "honest"), str(tmp_path / "edited"), "-o", str(tmp_path / "cmp"), env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (
        proc.stdout.splitlines()[0].startswith("A = random_choice (")
        and "; verify: PASS), B = random_choice (" in proc.stdout.splitlines()[0]
        and "; verify: STALE);" in proc.stdout.splitlines()[0]
    )
    listed = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert listed and all(r["verify_a"] == "PASS" and r["verify_b"] == "STALE" for r in listed)


def test_compare_refuses_a_run_that_fails_verify_unless_asked(
    subtlebench_pass_run, hf_home, subtlebench_root, tmp_path
):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root, LMMS_COMPARATIVE_CONFIG_DIR=tmp_path / "config")
    copy(subtlebench_pass_run, tmp_path / "honest")
    assert verify(tmp_path / "honest", env).returncode == 0
    forged_file, forged, _ = copy(subtlebench_pass_run, tmp_path / "forged")
    forged["results"]["subtlebench_at"]["accuracy,none"] = 1.0
    save(forged_file, forged)
    assert verify(tmp_path / "forged", env).returncode == 1

    proc = run_tool("compare", str(tmp_path / "honest"), str(tmp_path / "forged"), env=env)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "verify: FAIL" in proc.stdout.splitlines()[0]
    assert (
        f"B ({tmp_path / 'forged'}) FAILS verify: its numbers do not follow from its samples; not compared "
        "(--unverified compares anyway)" in proc.stderr
    )
    proc = run_tool(
        "compare",
        str(tmp_path / "honest"),
        str(tmp_path / "forged"),
        "--unverified",
        "-o",
        str(tmp_path / "cmp"),
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert all(r["verify_b"] == "FAIL" for r in json.loads((tmp_path / "cmp" / "compare.json").read_text()))
    # The honest twin: two passing runs compare with exit 0.
    proc = run_tool("compare", str(tmp_path / "honest"), str(tmp_path / "honest"), env=env)
    assert proc.returncode == 0 and "verify: PASS), B = " in proc.stdout, proc.stderr[-2000:]


def test_the_report_does_not_depend_on_the_order_of_samples_lines(
    four_benchmarks_run, hf_home, fixture_roots, tmp_path
):
    """A one-process and a multi-process run of the same replies write their samples lines in other
    orders; the report's intervals (a bootstrap that resamples by position) must be the same."""
    env = base_env(hf_home, **fixture_roots, LMMS_COMPARATIVE_CONFIG_DIR=tmp_path / "config")
    reversed_run = tmp_path / "reversed"
    shutil.copytree(four_benchmarks_run, reversed_run, ignore=shutil.ignore_patterns("*_verify.json"))
    for samples in reversed_run.glob("*_samples_*.jsonl"):
        write_rows(samples, rows(samples)[::-1])
    reports = []
    for name, run in (("original", four_benchmarks_run), ("reversed", reversed_run)):
        proc = run_tool("report", str(run), "-o", str(tmp_path / name), "--no-html", env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        reports.append(json.loads((tmp_path / name / "report.json").read_text())["tables"])
    assert any('"low"' in json.dumps(table) for table in reports[0])  # intervals were drawn
    assert reports[0] == reports[1]
