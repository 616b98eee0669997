"""``verify`` and ``export`` on a folder from a stranger (docs/security.md), through the CLI, each
hostile copy beside the untouched copy of the same PASS run (its honest twin): a link where the
verdict goes is refused and its target left alone; JSON nested 200,000 deep, a results file past
the size bound, a linked results file and two folder loops are one line each while the honest run
beside them is still checked, once; a link where an export file goes is refused."""

from __future__ import annotations

import json
import os

import pytest
from helpers import base_env
from helpers.hostile import copy, deep_json, deep_results, save
from helpers.verifying import export, verdicts, verify

from lmms_comparative.data import untrusted

pytestmark = pytest.mark.e2e


def test_a_link_where_the_verdict_goes_is_refused_and_its_target_is_untouched(
    subtlebench_pass_run, hf_home, subtlebench_root, tmp_path
):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    target = tmp_path / "bashrc"
    target.write_text("# the maintainer's shell start-up\n")
    results_file, results, _ = copy(subtlebench_pass_run, tmp_path / "hostile")
    results["results"]["subtlebench_at"]["accuracy,none"] = "$(touch PWNED)"
    save(results_file, results)
    verdict = results_file.with_name(results_file.name.replace("_results.json", "_verify.json"))
    os.symlink(target, verdict)

    proc = verify(tmp_path / "hostile", env)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert (
        f"  REFUSED    {verdict.name}: a link stands where this file goes: not written through it (remove the link)"
        in proc.stdout.splitlines()
    )
    assert (
        verdicts(proc)["subtlebench_at"].startswith("FAIL") and '"$(touch PWNED)"' in verdicts(proc)["subtlebench_at"]
    )
    assert target.read_text() == "# the maintainer's shell start-up\n" and os.path.islink(verdict)
    assert "Traceback" not in proc.stderr

    # The honest twin: the untouched copy passes and gets its verdict file, a regular file.
    honest_file, _, _ = copy(subtlebench_pass_run, tmp_path / "honest")
    proc = verify(tmp_path / "honest", env)
    assert proc.returncode == 0 and "REFUSED" not in proc.stdout, proc.stdout[-3000:]
    written = honest_file.with_name(honest_file.name.replace("_results.json", "_verify.json"))
    assert not os.path.islink(written) and json.loads(written.read_text())["verdict"] == "PASS"


def test_deep_json_large_files_links_and_loops_are_one_line_each_and_the_honest_run_is_checked_once(
    subtlebench_pass_run, hf_home, subtlebench_root, tmp_path
):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    root = tmp_path / "submission"
    # Sorted first, so that a crash on it would stop verify before the honest run.
    deep_results(root / "0bad")
    # A samples line nested as deep, in a copy of the run.
    _, _, samples = copy(subtlebench_pass_run, root / "1deepline")
    samples["subtlebench_sp"].write_text(samples["subtlebench_sp"].read_text() + deep_json() + "\n")
    # A results file past the size a real run writes (sparse: nothing is written to disk).
    (root / "2large").mkdir()
    with open(root / "2large" / "20260101_000000_results.json", "wb") as handle:
        handle.truncate(untrusted.MAX_JSON_BYTES + 1)
    # A results file that links out of the folder, and two loops.
    outside = tmp_path / "outside"
    copy(subtlebench_pass_run, outside)
    os.symlink(next(outside.glob("*_results.json")), root / "3_results.json")
    honest_file, _, _ = copy(subtlebench_pass_run, root / "honest")
    os.symlink("..", root / "honest" / "loop")
    os.symlink("..", root / "loop2")

    proc = verify(root, env)
    out = proc.stdout
    assert proc.returncode == 1, out[-3000:] + proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "RecursionError" not in out
    lines = out.splitlines()
    assert (
        "  BAD FILE   20260101_000000_results.json: JSON nested deeper than 64 levels (no lmms-eval file "
        "nests so deep): not parsed" in lines
    )
    assert any(
        line.startswith("  BAD FILE   20260101_000000_results.json: 64.0 MiB, past the 64.0 MiB a real run writes")
        for line in lines
    ), out
    assert any(
        line.startswith("  FAIL       subtlebench_sp: malformed samples log:")
        and line.endswith("JSON nested deeper than 64 levels (no lmms-eval file nests so deep): not parsed")
        for line in lines
    ), out
    assert (
        f"{root / '3_results.json'}: passed over: a link: not followed (links inside a submitted folder "
        "are never followed)" in lines
    )
    assert (
        f"{root / 'loop2'}: passed over: a link to a folder: not followed (links inside a submitted folder "
        "are never followed)" in lines
    )
    # The honest run beside them: checked, once, and PASS.
    assert out.count(f"{honest_file}:") == 1 and out.count("PASS       subtlebench_sp") == 1
    honest_block = out.split(f"{honest_file}:", 1)[1].split("\n", 3)[:3]
    assert honest_block[1].startswith("  PASS       subtlebench_at") and honest_block[2].startswith(
        "  PASS       subtlebench_sp"
    ), out
    assert not (
        outside / next(outside.glob("*_results.json")).name.replace("_results.json", "_verify.json")
    ).exists()  # nothing written outside


def test_export_writes_no_file_through_a_link(subtlebench_pass_run, hf_home, subtlebench_root, tmp_path):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    target = tmp_path / "elsewhere.yaml"
    target.write_text("mine\n")
    out = tmp_path / "hostile_out"
    (out / ".eval_results").mkdir(parents=True)
    os.symlink(target, out / ".eval_results" / "subtlebench.yaml")
    proc = export(str(subtlebench_pass_run), "-o", str(out), "--allow-subset", env=env)
    assert proc.returncode == 1 and "a link stands where this file goes: not written through it" in proc.stderr, (
        proc.stderr[-3000:]
    )
    assert target.read_text() == "mine\n"
    # The honest twin: a fresh folder gets the file.
    proc = export(str(subtlebench_pass_run), "-o", str(tmp_path / "honest_out"), "--allow-subset", env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "honest_out" / ".eval_results" / "subtlebench.yaml").is_file()
