"""``lmms-comparative compare`` through the CLI on two baselines over fixture data of every benchmark:
the JSON's rows, their flips equal to a count from the two runs' samples logs, each group's A and B
equal to the runs' own headline values, the refusal of runs on other data and the reason of runs
with no task in common; and their HTML report in a real browser: the Overview's numbers equal to
compare.json's, its links to the flipped items, and the page at a desktop's and a phone's width."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from helpers import base_env, build_roots, read_run, run_cli, run_tool
from helpers.browser import requests_made, wait_for
from helpers.fake_openai import FakeOpenAI, message_text
from helpers.hostile import copy, save

pytestmark = pytest.mark.e2e
TASKS = [
    "subtlebench",
    "compbench",
    "vlm2bench_oc_cpr",
    "vlm2bench_oc_cnt",
    "captionqa_simple_natural",
    "vidi_granular",
]
REQUIRED = {"task", "metric", "a", "b", "delta", "ci95", "p_value", "p_adjusted", "n", "a_only", "b_only"}


def _reader(body: dict) -> str:
    text = message_text(body)
    options = re.findall(r"^([A-Z])\. ", text, re.M)
    return options[len(text) % len(options)] if options else "A"


@pytest.fixture(scope="module")
def compared(tmp_path_factory, hf_home):
    base = tmp_path_factory.mktemp("compare")
    roots = build_roots(base / "data", subtlebench={"per_category": 4}, compbench={"per_source": 4})
    env = base_env(hf_home, **roots, LMMS_COMPARATIVE_LLM_CACHE="off")
    with FakeOpenAI(_reader) as server:
        served = {**env, **server.judge_env("CAPTIONQA_READER")}
        for name, seed, tasks in (
            ("a", 1, TASKS),
            ("b", 2, TASKS),
            ("c", 3, ["subtlebench_at", "subtlebench_sp"]),
        ):  # c: one benchmark only
            proc = run_cli(
                [
                    "--model",
                    "random_choice",
                    "--model_args",
                    f"seed={seed}",
                    "--tasks",
                    ",".join(tasks),
                    "--output_path",
                    str(base / name),
                    "--log_samples",
                ],
                env=served,
            )
            read_run(base / name, proc)
    proc = run_tool("compare", str(base / "a"), str(base / "b"), "-o", str(base / "out"), env=env)
    return base, env, roots, proc


def _correct_by_key(samples: list[dict], key: str) -> dict[str, float]:
    found = {}
    for row in samples:
        item = next(v for v in row.values() if isinstance(v, dict) and "correct" in v)
        found[item[key]] = float(item["correct"])
    return found


def test_compare_writes_every_row_and_its_flips_match_the_samples(compared):
    base, _env, _roots, proc = compared
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = json.loads((base / "out" / "compare.json").read_text())
    assert isinstance(rows, list) and rows
    compared_rows = [r for r in rows if r.get("metric")]
    assert all(REQUIRED <= set(r) for r in compared_rows)
    by_task = {r["task"]: r for r in compared_rows if not r.get("category")}
    results_a, samples_a = read_run(base / "a")
    results_b, samples_b = read_run(base / "b")
    # Flips of a plain item task, counted from the samples logs directly.
    for task in ("subtlebench_sp", "compbench_attribute_cub"):
        key = "item_id" if task.startswith("subtlebench") else "uid"
        ca, cb = _correct_by_key(samples_a[task], key), _correct_by_key(samples_b[task], key)
        assert by_task[task]["a_only"] == sum(ca[k] > cb[k] for k in ca) and by_task[task]["b_only"] == sum(
            cb[k] > ca[k] for k in ca
        )
        assert by_task[task]["n"] == len(ca)
    # VLM2's T/F task compares pairs: a pair is right when both halves are; a pair with one half
    # in the run is dropped, as the task's own score drops it (OC), so A and B are the runs' scores.
    pairs_a, pairs_b = {}, {}
    for pairs, samples in ((pairs_a, samples_a), (pairs_b, samples_b)):
        halves = {}
        for row in samples["vlm2bench_oc_cpr"]:
            item = next(v for v in row.values() if isinstance(v, dict) and "pair_id" in v)
            halves.setdefault(item["pair_id"], {})[item["half"]] = bool(item["correct"])
        pairs.update({p: h["p"] and h["n"] for p, h in halves.items() if len(h) == 2})
    assert len(pairs_a) < len({r["score"]["pair_id"] for r in samples_a["vlm2bench_oc_cpr"]})  # the fixture cuts a pair
    assert by_task["vlm2bench_oc_cpr"]["n"] == len(pairs_a)
    assert by_task["vlm2bench_oc_cpr"]["b_only"] == sum(pairs_b[p] and not pairs_a[p] for p in pairs_a)
    for task, metric in (("vlm2bench_oc_cpr", "score,none"), ("vlm2bench_oc_cnt", "score,none")):
        assert by_task[task]["a"] == pytest.approx(100 * results_a["results"][task][metric]) and by_task[task][
            "b"
        ] == pytest.approx(100 * results_b["results"][task][metric])
    # A group's A and B are the runs' own headline values, at the paper's scale.
    for group in ("subtlebench", "compbench"):
        assert by_task[group]["a"] == pytest.approx(100 * results_a["groups"][group]["accuracy,none"])
        assert by_task[group]["b"] == pytest.approx(100 * results_b["groups"][group]["accuracy,none"])
        assert by_task[group]["ci95"][0] <= by_task[group]["delta"] <= by_task[group]["ci95"][1]
    assert by_task["captionqa_simple_natural"]["a"] == pytest.approx(
        100 * results_a["results"]["captionqa_simple_natural"]["score,none"]
    )
    assert (
        by_task["vlm2bench_oc_cnt"]["test"] == "paired permutation"
        and by_task["subtlebench_sp"]["test"] == "exact McNemar"
    )
    # Holm within the group: adjusted p-values are at least the raw ones.
    parts = [r for r in compared_rows if r.get("group") == "subtlebench"]
    assert len(parts) == 10 and all(r["p_adjusted"] >= r["p_value"] for r in parts)
    assert any(r["task"] == "vidi_granular" and "not compared" in r.get("note", "") for r in rows)
    assert "B-A" in proc.stdout and "subtlebench_sp" in proc.stdout
    # Two runs of one model are named by what differs, in full; the table heads their columns A and B.
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("A = random_choice (seed=1) (") and ", B = random_choice (seed=2) (" in lines[0], lines[
        0
    ]
    assert lines[1].split()[:5] == ["task", "category", "n", "A", "B"] and {r["run_a"] for r in rows} == {
        "random_choice (seed=1)"
    }


def test_runs_on_other_data_are_refused_in_one_line(compared, tmp_path):
    base, _env, _roots, _proc = compared
    other = tmp_path / "b"
    shutil.copytree(base / "b", other)
    results_file = next(other.glob("**/*_results.json"))
    results = json.loads(results_file.read_text())
    results["lmms_comparative"]["tasks"]["subtlebench_sp"]["data"]["fingerprint"] = "0" * 64
    results_file.write_text(json.dumps(results))
    proc = run_tool("compare", str(base / "a"), str(other), env=_env)
    assert proc.returncode == 2 and proc.stderr.strip().splitlines() == [proc.stderr.strip().splitlines()[-1]]
    assert "subtlebench_sp: the runs read different data" in proc.stderr


def test_runs_without_a_task_in_common_are_told_so_and_a_score_run_is_named_by_its_files(compared, tmp_path):
    base, env, _roots, _proc = compared
    # B without SubtleBench, A (c) with SubtleBench alone: both have samples, no task in common.
    results_file, results, samples = copy(base / "b", tmp_path / "b")
    for task in [t for t in samples if t.startswith("subtlebench")]:
        samples[task].unlink()
    for table in ("results", "groups", "group_subtasks"):
        results[table] = {k: v for k, v in results.get(table, {}).items() if not k.startswith("subtlebench")}
    save(results_file, results)
    proc = run_tool("compare", str(base / "c"), str(tmp_path / "b"), env=env)
    assert proc.returncode == 2 and "--log_samples" not in proc.stderr, proc.stderr
    assert (
        "the runs share no task: A (random_choice (seed=3)) ran subtlebench_at, subtlebench_sp; B (random_choice (seed=2)) ran captionqa_simple_natural, "
        in proc.stderr
    ), proc.stderr
    # A run without samples logs is told to log them.
    for path in (tmp_path / "b").glob("*_samples_*.jsonl"):
        path.unlink()
    proc = run_tool("compare", str(base / "c"), str(tmp_path / "b"), env=env)
    assert (
        proc.returncode == 2
        and "B (random_choice (seed=2)) has no samples log of our tasks beside its results: run it with --log_samples"
        in proc.stderr
    ), proc.stderr
    # A score run given no --model-name (lmms-eval's model: replay) is named by the file it scored.
    results_file, results, _samples = copy(base / "a", tmp_path / "scored")
    results["config"].update(
        model="replay", model_args=f"predictions={tmp_path / 'scored' / 'replay' / 'subtlebench_predictions.json'}"
    )
    results["lmms_comparative"]["predictions"] = {
        "benchmark": "subtlebench",
        "files": [{"path": "/elsewhere/replies.json", "format": "samples"}],
    }
    save(results_file, results)
    proc = run_tool("compare", str(tmp_path / "scored"), str(base / "b"), env=env)
    assert proc.returncode == 0 and proc.stdout.startswith("A = scored: replies.json ("), (
        proc.stdout[:300] + proc.stderr[-2000:]
    )
    assert "replay" not in proc.stdout.splitlines()[0].split("(", 1)[0]


# ---- the HTML report, in a real browser ---------------------------------------------------------


def _choose(driver, benchmark: str, name: str, value: str) -> None:
    driver.execute_script(
        "var s = document.querySelector(`.browser[data-benchmark='${arguments[0]}'] select[name='${arguments[1]}']`); s.value = arguments[2]; s.dispatchEvent(new Event('change', {bubbles: true}));",
        benchmark,
        name,
        value,
    )


@pytest.fixture(scope="module")
def pair_report(compared):
    """``lmms-comparative report A B``: the folder and the finished process."""
    base, env, _roots, _proc = compared
    out = base / "report"
    proc = run_tool("report", str(base / "a"), str(base / "b"), "-o", str(out), env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc


def test_the_html_report_in_a_real_browser(compared, pair_report, browser, tmp_path):
    base, env, _roots, _proc = compared
    out, _ = pair_report
    page = (out / "index.html").resolve()
    _, samples_a = read_run(base / "a")
    _, samples_b = read_run(base / "b")
    for benchmark in ("subtlebench", "compbench", "vlm2bench", "captionqa"):
        browser.get(page.as_uri() + f"#b-{benchmark}")
        shown = wait_for(
            browser,
            f"var c = document.querySelector(\".browser[data-benchmark='{benchmark}'] .count\"); return c && c.textContent",
        )
        assert " of " in shown
        # Every thumbnail of the first page decodes.
        wait_for(
            browser,
            f"var t = Array.from(document.querySelectorAll(\".browser[data-benchmark='{benchmark}'] img.thumb\")); return t.length > 0 && t.every(i => i.complete)",
        )
        widths = browser.execute_script(
            f"return Array.from(document.querySelectorAll(\".browser[data-benchmark='{benchmark}'] img.thumb\")).map(i => i.naturalWidth)"
        )
        assert widths and all(w > 0 for w in widths), (benchmark, widths)
        browser.execute_script(f"document.querySelector(\".browser[data-benchmark='{benchmark}']\").scrollIntoView()")
        browser.save_screenshot(str(tmp_path / f"{benchmark}.png"))
    # "B right, A wrong" shows exactly the items B got right and A wrong (SubtleBench: one unit an item).
    browser.get(page.as_uri() + "#b-subtlebench")
    wait_for(browser, "return document.querySelector(\".browser[data-benchmark='subtlebench'] .count\")")
    for name, value in (("flipA", "0"), ("flipB", "1"), ("flip", "b_only")):
        _choose(browser, "subtlebench", name, value)
    expected = 0
    for task in (t for t in samples_a if t.startswith("subtlebench_")):
        a, b = _correct_by_key(samples_a[task], "item_id"), _correct_by_key(samples_b[task], "item_id")
        expected += sum(b[k] > a[k] for k in a)
    total = sum(len(v) for t, v in samples_a.items() if t.startswith("subtlebench_"))
    assert (
        browser.execute_script(
            "return document.querySelector(\".browser[data-benchmark='subtlebench'] .count\").textContent"
        )
        == f"{expected} of {total} items"
    )
    cards = browser.execute_script(
        "return document.querySelectorAll(\".browser[data-benchmark='subtlebench'] article.item\").length"
    )
    assert cards == min(expected, 50)
    # Clicking an item shows its images and both runs' replies.
    browser.execute_script(
        "document.querySelector(\".browser[data-benchmark='subtlebench'] article.item .head\").click()"
    )
    wait_for(
        browser,
        "var b = document.querySelector(\".browser[data-benchmark='subtlebench'] article.item .body\"); return b && !b.hidden && b.querySelectorAll('img.full').length === 2 && Array.from(b.querySelectorAll('img.full')).every(i => i.complete && i.naturalWidth > 0)",
    )
    replies = browser.execute_script(
        "return Array.from(document.querySelector(\".browser[data-benchmark='subtlebench'] article.item .body\").querySelectorAll('pre.reply')).map(p => p.textContent)"
    )
    assert len(replies) == 2 and all(r.strip() for r in replies)
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors
    outside = {
        u
        for u in requests_made(browser)
        if not u.startswith(out.resolve().as_uri() + "/") and not u.startswith("data:")
    }
    assert outside == set(), outside


# ---- the Overview: what the page answers first ---------------------------------------------------

OVERVIEW_ROWS = """return Array.from(document.querySelectorAll('#overview tr[data-task]')).map(tr => ({
  benchmark: tr.closest('[data-benchmark]').dataset.benchmark, task: tr.dataset.task,
  values: Array.from(tr.querySelectorAll('td[data-run] .value')).map(v => v.textContent),
  delta: (tr.querySelector('td.difference .delta') || {}).textContent, ci: (tr.querySelector('td.difference .ci') || {}).textContent,
  p: (tr.querySelector('td.difference .p') || {}).textContent, flips: (tr.querySelector('td.difference .flips') || {}).textContent,
  difference: tr.querySelector('td.difference').textContent}))"""


def _viewport(driver, width: int, height: int) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )


def _tab(driver, name: str) -> None:
    driver.execute_script("document.querySelector(`nav a[data-tab='${arguments[0]}']`).click()", name)


def test_the_overview_answers_with_compares_numbers_and_links_to_the_flips(compared, pair_report, browser, tmp_path):
    base, _env, _roots, _proc = compared
    out, proc = pair_report
    assert proc.stdout.splitlines()[0] == f"report: {out / 'index.html'} (open it in a browser)", proc.stdout
    rows = {r["task"]: r for r in json.loads((base / "out" / "compare.json").read_text()) if not r.get("category")}
    _viewport(browser, 1400, 900)
    try:
        browser.get((out / "index.html").resolve().as_uri())
        shown = wait_for(browser, OVERVIEW_ROWS)
        assert {r["benchmark"] for r in shown} == {"subtlebench", "compbench", "vlm2bench", "captionqa", "vidi"}
        assert {r["task"] for r in shown} == {
            "subtlebench",
            "compbench",
            "vlm2bench_oc_cpr",
            "vlm2bench_oc_cnt",
            "captionqa_simple_natural",
            "vidi_granular",
        }
        for cell in shown:  # each at the paper's precision: compare.json's numbers, as printed
            row = rows[cell["task"]]
            if row.get("metric") is None:
                assert row["note"] in cell["difference"], cell
                continue
            digits = len(cell["values"][0].split(".")[1])
            assert cell["values"] == [f"{row['a']:.{digits}f}", f"{row['b']:.{digits}f}"], (cell, row)
            assert (
                cell["delta"] == f"{row['delta']:+.{digits}f}"
                and cell["ci"] == f"[{row['ci95'][0]:.{digits}f}, {row['ci95'][1]:.{digits}f}]"
            ), (cell, row)
            assert (
                cell["p"] == f"p = {row['p_value']:.3g} ({row['test']}, {row['n']} units)"
                and cell["flips"] == f"flips A / B: {row['a_only']} / {row['b_only']}"
            ), (cell, row)
        browser.save_screenshot(str(tmp_path / "overview_1400.png"))
        # "B only" of SubtleBench's AVG opens the tab on those items, the group's tasks only.
        browser.execute_script(
            "document.querySelector(`#overview tr[data-task='subtlebench'] .flips a[href*='flip=b_only']`).click()"
        )
        count = wait_for(
            browser,
            "return !document.getElementById('b-subtlebench').hidden && document.querySelector(\".browser[data-benchmark='subtlebench'] .count\").textContent",
        )
        assert count == f"{rows['subtlebench']['b_only']} of 40 items"
        # Switching tabs lands at the top of the tab, not at the offset of the one left.
        browser.execute_script("window.scrollTo(0, document.body.scrollHeight)")
        assert browser.execute_script("return window.scrollY") > 500
        _tab(browser, "b-vlm2bench")
        assert browser.execute_script("return window.scrollY") == 0
        # No page scrolls sideways, at a desktop's width or a phone's (CompBench's 17 columns scroll in their box).
        for width, height in ((1400, 900), (390, 844)):
            _viewport(browser, width, height)
            for tab in ("overview", "b-subtlebench", "b-compbench", "b-vlm2bench", "b-captionqa", "b-vidi"):
                _tab(browser, tab)
                wide = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
                assert wide[0] <= wide[1], (width, tab, wide)
        _tab(browser, "overview")
        browser.save_screenshot(str(tmp_path / "overview_390.png"))
        # An item opened from under the sticky header shows its title below it; gold is shown with its option's text.
        _viewport(browser, 1400, 900)
        _tab(browser, "b-subtlebench")
        head = "document.querySelector(\".browser[data-benchmark='subtlebench'] article.item .head\")"
        browser.execute_script(
            f"var h = {head}; window.scrollTo(0, h.getBoundingClientRect().top + window.scrollY - 40); h.click()"
        )
        wait_for(browser, f"return !{head}.nextSibling.hidden && {head}.parentNode.querySelector('.gold')")
        top, bottom = browser.execute_script(
            f"return [{head}.getBoundingClientRect().top, document.querySelector('header').getBoundingClientRect().bottom]"
        )
        assert top >= bottom - 1, (top, bottom)
        key = browser.execute_script(f"return {head}.querySelector('.what code').textContent").split(" · ")
        _, samples = read_run(base / "a")
        item = next(r["accuracy"] for r in samples[key[0]] if r["accuracy"]["item_id"] == key[1])
        assert (
            browser.execute_script(f"return {head}.parentNode.querySelector('.gold').textContent")
            == f"gold: {item['answer']}. {item['answer_text']}"
        )
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_a_run_without_a_benchmark_gets_no_chip_or_flips_pick_there(compared, browser, tmp_path):
    base, env, _roots, _proc = compared
    out = tmp_path / "report"
    proc = run_tool(
        "report", str(base / "c"), str(base / "a"), str(base / "b"), "-o", str(out), env=env
    )  # c: SubtleBench only
    assert proc.returncode == 0, proc.stderr[-3000:]
    browser.get((out / "index.html").resolve().as_uri() + "#b-compbench")
    chips = wait_for(
        browser,
        "var s = document.querySelector(\".browser[data-benchmark='compbench'] article.item .states\"); return s && Array.from(s.children).map(c => c.title)",
    )
    assert chips == ["random_choice (seed=1)", "random_choice (seed=2)"]
    picks = browser.execute_script(
        "var b = document.querySelector(\".browser[data-benchmark='compbench']\"); return [b.querySelector('select[name=flipA]').value, b.querySelector('select[name=flipB]').value, !!b.querySelector('select[name=outcome0]')]"
    )
    assert picks == ["1", "2", False]
    _tab(browser, "b-subtlebench")
    picks = browser.execute_script(
        "var b = document.querySelector(\".browser[data-benchmark='subtlebench']\"); return [b.querySelector('select[name=flipA]').value, b.querySelector('select[name=flipB]').value, b.querySelector('article.item .states').children.length]"
    )
    assert picks == ["0", "1", 3]
    # The report says what verify needs to re-score a run: its data variables.
    runs = json.loads((out / "report.json").read_text())["runs"]
    assert (
        runs[0]["verify"]
        == "not verified (run `lmms-comparative verify` on its folder, with SUBTLEBENCH_ROOT set to the data the run read)"
    )
