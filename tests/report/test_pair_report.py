"""The HTML report of two baselines (the session's ``compared`` runs, tests/report/conftest.py) in a
real browser: the Overview's numbers equal to compare.json's, its links to the flipped items, the
item browsers, and the page at a desktop's and a phone's width. compare's own output is tested in
test_compare_runs.py."""

from __future__ import annotations

import json

import pytest
from helpers import COMPARED_TASKS, correct_by_key, read_run, run_tool
from helpers.browser import requests_made, wait_for

pytestmark = pytest.mark.e2e


# ---- the HTML report, in a real browser ---------------------------------------------------------


def _choose(driver, benchmark: str, name: str, value: str) -> None:
    driver.execute_script(
        "var s = document.querySelector(`.browser[data-benchmark='${arguments[0]}'] "
        "select[name='${arguments[1]}']`); s.value = arguments[2]; s.dispatchEvent(new Event('change', "
        "{bubbles: true}));",
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
            f"var c = document.querySelector(\".browser[data-benchmark='{benchmark}'] .count\"); return c "
            "&& c.textContent",
        )
        assert " of " in shown
        # Every thumbnail of the first page decodes.
        wait_for(
            browser,
            f"var t = Array.from(document.querySelectorAll(\".browser[data-benchmark='{benchmark}'] "
            'img.thumb")); return t.length > 0 && t.every(i => i.complete)',
        )
        widths = browser.execute_script(
            f"return Array.from(document.querySelectorAll(\".browser[data-benchmark='{benchmark}'] "
            'img.thumb")).map(i => i.naturalWidth)'
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
        a, b = correct_by_key(samples_a[task], "item_id"), correct_by_key(samples_b[task], "item_id")
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
        "var b = document.querySelector(\".browser[data-benchmark='subtlebench'] article.item .body\"); "
        "return b && !b.hidden && b.querySelectorAll('img.full').length === 2 && "
        "Array.from(b.querySelectorAll('img.full')).every(i => i.complete && i.naturalWidth > 0)",
    )
    replies = browser.execute_script(
        "return Array.from(document.querySelector(\".browser[data-benchmark='subtlebench'] article.item "
        ".body\").querySelectorAll('pre.reply')).map(p => p.textContent)"
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

OVERVIEW_ROWS = (
    "return Array.from(document.querySelectorAll('#overview tr[data-task]')).map(tr => ({\n"
    "  benchmark: tr.closest('[data-benchmark]').dataset.benchmark, task: tr.dataset.task,\n"
    "  values: Array.from(tr.querySelectorAll('td[data-run] .value')).map(v => v.textContent),\n"
    "  delta: (tr.querySelector('td.difference .delta') || {}).textContent, "
    "ci: (tr.querySelector('td.difference .ci') || {}).textContent,\n"
    "  p: (tr.querySelector('td.difference .p') || {}).textContent, "
    "flips: (tr.querySelector('td.difference .flips') || {}).textContent,\n"
    "  difference: tr.querySelector('td.difference').textContent}))"
)


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
        assert {r["task"] for r in shown} == set(COMPARED_TASKS)
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
            "return !document.getElementById('b-subtlebench').hidden && "
            "document.querySelector(\".browser[data-benchmark='subtlebench'] .count\").textContent",
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
            f"return [{head}.getBoundingClientRect().top, "
            "document.querySelector('header').getBoundingClientRect().bottom]"
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
        "var s = document.querySelector(\".browser[data-benchmark='compbench'] article.item .states\"); "
        "return s && Array.from(s.children).map(c => c.title)",
    )
    assert chips == ["random_choice (seed=1)", "random_choice (seed=2)"]
    picks = browser.execute_script(
        "var b = document.querySelector(\".browser[data-benchmark='compbench']\"); return "
        "[b.querySelector('select[name=flipA]').value, b.querySelector('select[name=flipB]').value, "
        "!!b.querySelector('select[name=outcome0]')]"
    )
    assert picks == ["1", "2", False]
    _tab(browser, "b-subtlebench")
    picks = browser.execute_script(
        "var b = document.querySelector(\".browser[data-benchmark='subtlebench']\"); return "
        "[b.querySelector('select[name=flipA]').value, b.querySelector('select[name=flipB]').value, "
        "b.querySelector('article.item .states').children.length]"
    )
    assert picks == ["0", "1", 3]
    # The report says what verify needs to re-score a run: its data variables.
    runs = json.loads((out / "report.json").read_text())["runs"]
    assert (
        runs[0]["verify"]
        == "not verified (run `lmms-comparative verify` on its folder, with SUBTLEBENCH_ROOT set to the data "
        "the run read)"
    )
