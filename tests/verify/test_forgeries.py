"""``verify`` and ``export`` against the forgeries a maintainer can make with a few JSON edits, each on
a copy of an untouched run that verifies PASS (tests/verify/test_verify.py), and their honest twins:
a run with a recorded skip, verified against the copy it ran on, passes."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from helpers import eval_args, read_run, run_cli
from helpers.verifying import copy_run, export, lines, roots_env, save, verdicts, verify, write_lines

pytestmark = pytest.mark.e2e


def test_every_row_a_reader_reads_is_checked_and_export_trusts_no_verdict_file(
    four_benchmarks_run, hf_home, fixture_roots, tmp_path
):
    results_file, results, _ = copy_run(four_benchmarks_run, tmp_path / "rows")
    # The headline row the report and export read first, and a group's breakdown in "groups".
    results["results"]["subtlebench"]["accuracy,none"] = 0.9
    results["results"]["compbench"]["accuracy,none"] = 0.9
    results["groups"]["subtlebench"]["accuracy_natural,none"] = 1.0
    # A task whose provenance entry was deleted, its metric edited.
    del results["lmms_comparative"]["tasks"]["vlm2bench_oc_cpr"]
    results["results"]["vlm2bench_oc_cpr"]["accuracy,none"] = 1.0
    # A row of ours for a task that never ran: no samples, no record.
    results["results"]["vidi_global"] = {"alias": "vidi_global", "bleu4,none": 0.99}
    save(results_file, results)

    proc = verify(tmp_path / "rows", roots_env(hf_home, fixture_roots))
    found = verdicts(proc)
    assert proc.returncode == 1 and "verify: NOT every task holds" in proc.stdout, (
        proc.stdout[-3000:] + proc.stderr[-2000:]
    )
    assert (
        found["subtlebench"].startswith("FAIL")
        and "subtlebench accuracy,none: the results JSON says 0.9" in found["subtlebench"]
    )
    assert "subtlebench (in 'groups') accuracy_natural,none: the results JSON says 1.0" in found["subtlebench"]
    assert (
        found["compbench"].startswith("FAIL")
        and "compbench accuracy,none: the results JSON says 0.9" in found["compbench"]
    )
    assert found["vlm2bench_oc_cpr"].startswith("FAIL") and "no record entry" in found["vlm2bench_oc_cpr"]
    assert found["vidi_global"].startswith("FAIL") and "no record entry" in found["vidi_global"]
    # What was left alone still passes: the honest twin in the same file.
    for untouched in ("subtlebench_at", "compbench_attribute_vaw", "vidi_granular", "vlm2bench_gc_mat"):
        assert found[untouched].startswith("PASS"), found[untouched]

    # A hand-written PASS verdict for the forged file, with its true sha256: export checks for itself.
    verdict = {"verdict": "PASS", "results_sha256": hashlib.sha256(results_file.read_bytes()).hexdigest(), "tasks": {}}
    (results_file.parent / results_file.name.replace("_results.json", "_verify.json")).write_text(json.dumps(verdict))
    out = tmp_path / "export"
    proc = export(
        str(tmp_path / "rows"),
        "-o",
        str(out),
        "--allow-subset",
        "--dataset-id",
        "compbench=someone/CompBench",
        env=roots_env(hf_home, fixture_roots),
    )
    assert (
        proc.returncode == 1
        and "not exported: verify's checks give FAIL" in proc.stderr
        and "nothing exported" in proc.stderr
    ), proc.stderr[-3000:]
    assert not (out / ".eval_results").exists()


def test_every_results_file_at_any_depth_is_checked_or_named(four_benchmarks_run, hf_home, fixture_roots, tmp_path):
    root = tmp_path / "results"
    copy_run(four_benchmarks_run, root / "real")
    # A forged run in a folder named like verify's own scratch, with a malformed samples line too.
    forged_file, forged, samples = copy_run(four_benchmarks_run, root / "rescored")
    forged["results"]["subtlebench_at"]["accuracy,none"] = 1.0
    save(forged_file, forged)
    samples["compbench_attribute_vaw"].write_text(samples["compbench_attribute_vaw"].read_text() + "{not json\n")
    # A truncated results file and a list-shaped one.
    (root / "broken").mkdir()
    real_text = next((root / "real").glob("*_results.json")).read_text()
    (root / "broken" / "20260101_000000_results.json").write_text(real_text[: len(real_text) // 2])
    (root / "broken" / "20260101_000001_results.json").write_text("[1, 2]")
    # lmms-eval's own task only: passed over, and said so.
    (root / "theirs").mkdir()
    (root / "theirs" / "20260101_000002_results.json").write_text(
        json.dumps({"results": {"mme": {"mme_perception_score,none": 1.0}}})
    )

    proc = verify(root, roots_env(hf_home, fixture_roots))
    out = proc.stdout
    assert proc.returncode == 1, out[-3000:] + proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    sections: dict[str, str] = {}
    for block in out.split(str(root) + "/")[1:]:
        folder = Path(block.split(":\n", 1)[0]).parent.name
        sections[folder] = sections.get(folder, "") + block
    assert set(sections) == {"real", "rescored", "broken", "theirs"}
    assert "FAIL       subtlebench_at: subtlebench_at accuracy,none" in sections["rescored"]
    assert (
        "FAIL       compbench_attribute_vaw: malformed samples log:" in sections["rescored"]
        and "line " in sections["rescored"]
    )
    assert "FAIL" not in sections["real"] and "PASS       subtlebench_at" in sections["real"]  # still checked
    assert "BAD FILE   20260101_000000_results.json: not valid JSON" in sections["broken"]
    assert "BAD FILE   20260101_000001_results.json: a JSON list, not the object lmms-eval writes" in sections["broken"]
    assert "passed over: no task or group of lmms-comparative" in sections["theirs"]


@pytest.fixture(scope="module")
def skipped_run(subtlebench_root, hf_home, tmp_path_factory):
    """A run on a copy whose one spatial image is cut short (a real skip, recorded), and the
    fingerprint of the untouched copy."""
    from lmms_comparative.provenance import fingerprint

    base = tmp_path_factory.mktemp("skips")
    damaged = base / "damaged"
    shutil.copytree(subtlebench_root, damaged)
    record = next(r for r in lines(damaged / "data" / "test.jsonl") if r["category"] == "spatial")
    image = damaged / record["image_1"].split("/resolve/main/", 1)[1]
    image.write_bytes(image.read_bytes()[: image.stat().st_size // 2])
    env = roots_env(hf_home, {"SUBTLEBENCH_ROOT": damaged}, LMMS_COMPARATIVE_MAX_FAILED="0.5")
    proc = run_cli(
        eval_args("random_choice", "subtlebench_sp,subtlebench_at", base / "run"),
        env=env,
    )
    results, _ = read_run(base / "run", proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    skipped = results["lmms_comparative"]["tasks"]["subtlebench_sp"]["skipped"]
    assert list(skipped.values()) == ["truncated image"], skipped
    return base, env, fingerprint(subtlebench_root)


def test_an_honest_run_with_a_recorded_skip_verifies(skipped_run):
    base, env, _ = skipped_run
    proc = verify(base / "run", env)
    found = verdicts(proc)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "1 item(s) skipped, their media unusable here too" in found["subtlebench_sp"]


def test_skips_claimed_for_items_that_read_here_fail(skipped_run, subtlebench_root, hf_home, tmp_path):
    """The forger's version: the same samples and metrics, the record's data line copied from the
    maintainer's copy, on which the "skipped" image reads."""
    base, _, good_fingerprint = skipped_run
    results_file, results, _ = copy_run(base / "run", tmp_path / "forged")
    for entry in results["lmms_comparative"]["tasks"].values():
        entry["data"]["fingerprint"] = good_fingerprint
        entry["data"]["root"] = str(subtlebench_root)
    save(results_file, results)
    env = roots_env(hf_home, {"SUBTLEBENCH_ROOT": subtlebench_root}, LMMS_COMPARATIVE_MAX_FAILED="0.5")
    proc = verify(tmp_path / "forged", env)
    found = verdicts(proc)
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert (
        found["subtlebench_sp"].startswith("FAIL")
        and "1 item(s) recorded as skipped read here" in found["subtlebench_sp"]
        and "(truncated image)" in found["subtlebench_sp"]
    )
    assert found["subtlebench_at"].startswith("PASS")


def test_a_malformed_samples_line_names_its_file_and_line(four_benchmarks_run, hf_home, fixture_roots, tmp_path):
    _, _, samples = copy_run(four_benchmarks_run, tmp_path / "run")
    rows = lines(samples["subtlebench_qn"])
    write_lines(samples["subtlebench_qn"], rows[:1])
    samples["subtlebench_qn"].write_text(samples["subtlebench_qn"].read_text() + "[]\n")
    proc = verify(tmp_path / "run", roots_env(hf_home, fixture_roots))
    line = verdicts(proc)["subtlebench_qn"]
    assert (
        proc.returncode == 1
        and line.startswith("FAIL")
        and "_samples_subtlebench_qn.jsonl, line 2: expected a JSON object, got list" in line
    )
