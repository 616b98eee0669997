"""An interrupted run beside a full one, through the CLI: a run stopped as its results JSON was
written keeps the results rows of every task, the full samples logs of some, a one-line log of
one and none of two more. ``verify`` names the missing logs as missing (the run did log samples);
``compare`` leaves out each task its samples do not back, saying why and on how many items a
difference would rest, names the rows it left out and exits 1; the report's Overview and its
comparison table (index.html, report.json) say the same beside the run's values. The honest twin,
two full runs, shows its differences, and compares the unaffected tasks to the same numbers."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from helpers import base_env, eval_args, read_run, run_cli, run_tool
from helpers.browser import wait_for
from helpers.verifying import files, lines, verdicts, verify, write_lines

from lmms_comparative.benchmarks.subtlebench.fixture import build

pytestmark = pytest.mark.e2e
TASKS = ["subtlebench_at", "subtlebench_st", "subtlebench_qn", "subtlebench_sp", "subtlebench_vp"]
CUT, GONE = "subtlebench_qn", ("subtlebench_sp", "subtlebench_vp")
PER_TASK = 8


@pytest.fixture(scope="module")
def runs(tmp_path_factory, hf_home):
    """Two full runs (seeds 1 and 2) and an interrupted copy of the second, verified here."""
    base = tmp_path_factory.mktemp("interrupted")
    env = base_env(
        hf_home,
        SUBTLEBENCH_ROOT=build(base / "data", per_category=PER_TASK),
        LMMS_COMPARATIVE_CONFIG_DIR=base / "config",
    )
    for name, seed in (("a", 1), ("b", 2)):
        proc = run_cli(
            eval_args("random_choice", ",".join(TASKS), base / name, model_args=f"seed={seed}"),
            env=env,
        )
        read_run(base / name, proc)
        assert proc.returncode == 0, proc.stderr[-3000:]
    shutil.copytree(base / "b", base / "cut")
    _, samples = files(base / "cut")
    write_lines(samples[CUT], lines(samples[CUT])[:1])
    for task in GONE:
        samples[task].unlink()
    return base, env, verify(base / "cut", env)


def _rows(path) -> dict:
    return {r["task"]: r for r in json.loads(path.read_text()) if not r.get("category")}


def _line(stdout: str, task: str) -> str:
    return next(line for line in stdout.splitlines() if line.startswith(task + " "))


def test_verify_names_the_missing_logs_as_missing(runs):
    _base, _env, proc = runs
    assert proc.returncode == 1, proc.stdout[-3000:]
    found = verdicts(proc)
    assert found[CUT].startswith("FAIL"), found
    for task in GONE:
        assert (
            found[task].startswith("UNVERIFIED")
            and "the run logged samples (--log_samples), so this log is missing: the run was interrupted or "
            "the file removed"
            in found[task]
        ), found[task]
        assert "(run with --log_samples)" not in found[task]
    assert all(found[t].startswith("PASS") for t in ("subtlebench_at", "subtlebench_st")), found


def test_compare_leaves_out_what_the_samples_do_not_back_and_exits_1(runs):
    base, env, _ = runs
    proc = run_tool("compare", str(base / "a"), str(base / "cut"), "--unverified", "-o", str(base / "cmp_cut"), env=env)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    cut = _line(proc.stdout, CUT)
    assert "not compared: B's samples log holds 1 of the 8 items its results row counts" in cut, cut
    assert "a difference would rest on 1 of 8 items, and B fails verify" in cut, cut
    assert not re.search(r"\+0\.0|100\.0", cut), cut  # no difference on the one item left
    for task in GONE:
        gone = _line(proc.stdout, task)
        assert (
            "not compared: B has no samples log for it (0 of the 8 items its results row counts), though "
            "the run logged samples (--log_samples): the run was interrupted or the file removed" in gone
        ), gone
        assert gone.endswith("verify cannot re-derive it (UNVERIFIED), and B fails verify"), gone
    assert (
        "left out: subtlebench_qn, subtlebench_sp, subtlebench_vp: the runs' samples do not back their "
        "results rows there (each row says why)" in proc.stdout.splitlines()
    ), proc.stdout
    assert (
        proc.stderr.strip().splitlines()[-1]
        == "lmms-comparative compare: 3 row(s) not compared (subtlebench_qn, subtlebench_sp, subtlebench_vp): "
        "a run's samples do not back its results there; exit 1"
    )
    rows = _rows(base / "cmp_cut" / "compare.json")
    assert (
        rows[CUT]["metric"] is None
        and rows[CUT]["incomplete"] is True
        and rows[CUT]["items_b"] == [1, PER_TASK]
        and rows[CUT]["items_a"] == [PER_TASK, PER_TASK]
    )
    assert all(rows[t]["items_b"] == [None, PER_TASK] and rows[t]["incomplete"] for t in GONE)
    # Without --unverified the run that fails verify is refused, as before.
    proc = run_tool("compare", str(base / "a"), str(base / "cut"), env=env)
    assert proc.returncode == 1 and "FAILS verify" in proc.stderr, proc.stderr[-2000:]
    # The honest twin: every task compared, exit 0; the tasks the cut left alone give the same numbers.
    proc = run_tool("compare", str(base / "a"), str(base / "b"), "-o", str(base / "cmp_full"), env=env)
    assert proc.returncode == 0 and "left out" not in proc.stdout and "not compared" not in proc.stdout, (
        proc.stdout[-3000:] + proc.stderr[-2000:]
    )
    full = _rows(base / "cmp_full" / "compare.json")
    assert all(full[t]["metric"] == "accuracy" and full[t]["n"] == PER_TASK for t in TASKS), full
    for task in ("subtlebench_at", "subtlebench_st"):
        keep = ("a", "b", "delta", "ci95", "p_value", "n", "a_only", "b_only")
        assert {k: rows[task][k] for k in keep} == {k: full[task][k] for k in keep}


def test_compare_of_a_cut_run_not_verified_says_what_verify_makes_of_it(runs, tmp_path):
    base, env, _ = runs
    shutil.copytree(base / "cut", tmp_path / "cut", ignore=shutil.ignore_patterns("*_verify.json"))
    proc = run_tool("compare", str(base / "a"), str(tmp_path / "cut"), env=env)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "a difference would rest on 1 of 8 items, and verify FAILs such a run (B: not verified)" in _line(
        proc.stdout, CUT
    )


@pytest.fixture(scope="module")
def reports(runs):
    base, env, _ = runs
    found = {}
    for name in ("cut", "b"):
        proc = run_tool("report", str(base / "a"), str(base / name), "-o", str(base / f"report_{name}"), env=env)
        found[name] = (base / f"report_{name}", proc)
    return found


def test_the_reports_overview_and_comparison_say_the_same(runs, reports):
    out, proc = reports["cut"]
    # The report is written whole and exits 0: it shows every run as it is, and no difference on part of a task's items.
    assert proc.returncode == 0, proc.stderr[-3000:]
    document = json.loads((out / "report.json").read_text())
    table = next(t for t in document["tables"] if t["key"] == "subtlebench_comparison")
    notes = {r[table["columns"][0]]: r["test"]["text"] for r in table["rows"]}
    assert (
        "B's samples log holds 1 of the 8 items its results row counts" in notes[CUT] and "B fails verify" in notes[CUT]
    ), notes
    assert all(
        "B has no samples log for it (0 of the 8 items its results row counts), though the run logged samples"
        in notes[t]
        for t in GONE
    ), notes
    page = (out / "index.html").read_text()
    overview = page[
        page.index('<section id="overview"') : page.index("</section>", page.index('<section id="overview"'))
    ]
    row = re.search(r'<tr data-task="subtlebench_qn">(.*?)</tr>', overview).group(1)
    assert (
        "samples: 1 of 8 items</span>" in row
        and "not compared: B&#x27;s samples log holds 1 of the 8 items its results row counts" in row
    ), row
    assert "rest on 1 of 8 items, and B fails verify" in row and 'class="delta' not in row, row
    for task in GONE:
        row = re.search(rf'<tr data-task="{task}">(.*?)</tr>', overview).group(1)
        assert (
            "samples: 0 of 8 items</span>" in row and "B has no samples log for it" in row and 'class="delta' not in row
        ), row
    # The honest twin: every row a difference, no note of missing items.
    out, proc = reports["b"]
    assert proc.returncode == 0, proc.stderr[-3000:]
    page = (out / "index.html").read_text()
    for task in TASKS:
        row = re.search(rf'<tr data-task="{task}">(.*?)</tr>', page).group(1)
        assert 'class="delta' in row and "samples:" not in row and "not compared" not in row, row


def test_the_overview_of_the_interrupted_run_in_a_browser(runs, reports, browser, tmp_path):
    out, _ = reports["cut"]
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": 1400, "height": 900, "deviceScaleFactor": 1, "mobile": False}
    )
    try:
        browser.get((out / "index.html").resolve().as_uri())
        text = wait_for(
            browser,
            "var r = document.querySelector(\"#overview tr[data-task='subtlebench_qn']\"); return r && r.innerText",
        )
        assert (
            "samples: 1 of 8 items" in text and "a difference would rest on 1 of 8 items, and B fails verify" in text
        ), text
        browser.save_screenshot(str(tmp_path / "overview_interrupted.png"))
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
