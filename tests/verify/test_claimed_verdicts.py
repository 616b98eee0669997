"""A verdict file that came with a folder is the submitter's claim (docs/security.md, "Verdicts"):
a forger edits a metric and writes ``<date>_verify.json`` with the right file hashes and
``"verdict": "PASS"`` (or signs it with a key of their own); ``compare`` and ``report`` show it as
``claimed PASS, not checked here``, never PASS, and ``verify`` here says FAIL. The honest twin: a
run verified on this machine shows PASS, and so does a copy of it with its verdict file, whose
hashes still cover every file. The maintainer's key lives in the test's own config folder."""

from __future__ import annotations

import json
import shutil

import pytest
from helpers import base_env, run_tool
from helpers.hostile import copy, save
from helpers.verifying import verdicts, verify

from lmms_comparative.verify import covered_files, signing

pytestmark = pytest.mark.e2e

CLAIMED = "claimed PASS, not checked here"


def _forge_pass(results_file, signed_by=None, monkeypatch=None) -> None:
    """A PASS verdict beside ``results_file`` with the true hashes of every file of the run, as a
    forger writes it: by hand, or signed under the forger's own key (``signed_by``: their config folder)."""
    document = {
        "verified_with": "0.1.0",
        "results_sha256": covered_files(results_file)[results_file.name],
        "files": covered_files(results_file),
        "verdict": "PASS",
        "tasks": {
            t: {"status": "PASS", "detail": "45 items, each once; metrics and samples re-scored equal"}
            for t in ("subtlebench_at", "subtlebench_sp")
        },
    }
    if signed_by is not None:
        monkeypatch.setenv(signing.CONFIG_VARIABLE, str(signed_by))
        document = signing.sign(document)
    results_file.with_name(results_file.name.replace("_results.json", "_verify.json")).write_text(
        json.dumps(document, indent=1)
    )


def test_a_forged_pass_beside_an_edited_metric_is_shown_as_a_claim_and_fails_here(
    subtlebench_pass_run, hf_home, subtlebench_root, tmp_path, monkeypatch
):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root, LMMS_COMPARATIVE_CONFIG_DIR=tmp_path / "maintainer")
    copy(subtlebench_pass_run, tmp_path / "honest")
    assert verify(tmp_path / "honest", env).returncode == 0
    shutil.copytree(tmp_path / "honest", tmp_path / "copied")  # the maintainer's verdict travels with unchanged files
    for name, signed_by in (("forged", None), ("signed", tmp_path / "forger")):
        forged_file, forged, _ = copy(subtlebench_pass_run, tmp_path / name)
        forged["results"]["subtlebench_at"]["accuracy,none"] = 1.0
        save(forged_file, forged)
        _forge_pass(forged_file, signed_by, monkeypatch)

    proc = run_tool("compare", str(tmp_path / "honest"), str(tmp_path / "forged"), "-o", str(tmp_path / "cmp"), env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    first = proc.stdout.splitlines()[0]
    assert "; verify: PASS), B = random_choice (" in first and f"; verify: {CLAIMED});" in first, first
    assert all(
        r["verify_a"] == "PASS" and r["verify_b"] == CLAIMED
        for r in json.loads((tmp_path / "cmp" / "compare.json").read_text())
    )

    out = tmp_path / "report"
    runs = [tmp_path / n for n in ("honest", "copied", "forged", "signed")]
    proc = run_tool("report", *map(str, runs), "-o", str(out), env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    states = [r["verify"] for r in json.loads((out / "report.json").read_text())["runs"]]
    assert states[:2] == ["PASS (2 pass)", "PASS (2 pass)"], states
    claim = (
        f"{CLAIMED} (its verdict file was not made by `lmms-comparative verify` on this machine: run it on the "
        "folder, with SUBTLEBENCH_ROOT set to the data the run read)"
    )
    assert states[2:] == [claim, claim], states
    page = (out / "index.html").read_text()
    shown = {state: page.count(f'<span class="verify">verify: {state}</span>') for state in ("PASS", CLAIMED)}
    assert shown["PASS"] == shown[CLAIMED] > 0, shown  # each table of the Overview: two runs of each

    # verify here says what the numbers are, and its verdict, made here, replaces the claim.
    proc = verify(tmp_path / "forged", env)
    assert proc.returncode == 1 and verdicts(proc)["subtlebench_at"].startswith("FAIL"), proc.stdout[-3000:]
    proc = run_tool("compare", str(tmp_path / "honest"), str(tmp_path / "forged"), env=env)
    assert proc.returncode == 1 and "; verify: FAIL);" in proc.stdout.splitlines()[0], (
        proc.stdout[-2000:] + proc.stderr[-2000:]
    )


def test_a_claimed_fail_decides_nothing(subtlebench_pass_run, hf_home, subtlebench_root, tmp_path):
    """``compare`` refuses a run that FAILs here; a FAIL verdict that came with a folder is a claim too."""
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root, LMMS_COMPARATIVE_CONFIG_DIR=tmp_path / "maintainer")
    results_file, _, _ = copy(subtlebench_pass_run, tmp_path / "run")
    verdict = results_file.with_name(results_file.name.replace("_results.json", "_verify.json"))
    verdict.write_text(json.dumps({"verdict": "FAIL", "files": covered_files(results_file), "tasks": {}}))
    proc = run_tool("compare", str(tmp_path / "run"), str(tmp_path / "run"), env=env)
    assert proc.returncode == 0 and "verify: claimed FAIL, not checked here)" in proc.stdout.splitlines()[0], (
        proc.stdout[-2000:] + proc.stderr[-2000:]
    )
