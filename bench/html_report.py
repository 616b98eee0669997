"""The HTML report at MLLM-CompBench's size, side by side with the Markdown report alone.

Builds a CompBench copy in the release's layout with ``--per-source`` items per source (2,000 gives
about 32,000 items over the sixteen columns, the size of the authors' published replies replayed
through ``score``: 31.8K), runs ``random_choice`` on it twice (two seeds, ``--log_samples``), then
times, in this process:

- ``markdown``: ``write_report(..., with_html=False)``, today's report (report.md, report.json,
  CSVs, charts);
- ``html, cold``: the whole report with ``index.html`` and an empty thumbnail folder (every image's
  thumbnail and full view made, in parallel);
- ``html, warm``: again into the same folder (thumbnails reused);

and, in headless Chromium (Selenium), the page's first render: from ``driver.get`` to the
CompBench browser's first page of items drawn with every thumbnail decoded, and a filter applied
over all items (the "B right, A wrong" flips).

    python bench/html_report.py [--per-source 2000] [--runs 3] [--workdir DIR]
"""

from __future__ import annotations

import os
import shutil
import statistics
import time
from pathlib import Path

from compbench_runs import arguments, cell, compbench_copy, items, random_run, work_folder
from helpers.browser import CHROMEDRIVER, CHROMIUM, CHROMIUM_FLAGS  # the tests' headless Chromium (tests/ on the path)


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _first_render(page: Path) -> tuple[float, float]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        start = time.perf_counter()
        driver.get(page.as_uri() + "#b-compbench")
        ready = (
            "var t = Array.from(document.querySelectorAll(\".browser[data-benchmark='compbench'] "
            "img.thumb\")); return document.querySelectorAll(\".browser[data-benchmark='compbench'] "
            'article.item").length > 0 && t.length > 0 && t.every(i => i.complete && i.naturalWidth > 0)'
        )
        while not driver.execute_script(ready):
            time.sleep(0.01)
        first = time.perf_counter() - start
        start = time.perf_counter()
        driver.execute_script(
            "var b = document.querySelector(\".browser[data-benchmark='compbench']\"); var s = "
            "b.querySelector('select[name=flip]'); s.value = 'b_only'; s.dispatchEvent(new Event('change', "
            "{bubbles: true})); return b.querySelector('.count').textContent"
        )
        flips = time.perf_counter() - start
    finally:
        driver.quit()
    return first, flips


def main() -> None:
    args = arguments(__doc__, per_source=2000).parse_args()
    from lmms_comparative.report import write_report

    work = work_folder(args.workdir, "bench_html_")
    root = compbench_copy(work / "compbench", args.per_source)
    runs = [str(random_run(root, work / name, seed)) for name, seed in (("a", 1), ("b", 2))]
    markdown, cold, warm, first, flips = [], [], [], [], []
    for _ in range(args.runs):
        shutil.rmtree(work / "report_md", ignore_errors=True)
        shutil.rmtree(work / "report_html", ignore_errors=True)
        markdown.append(_timed(lambda: write_report(runs, work / "report_md", with_html=False)))
        cold.append(
            _timed(lambda: write_report(runs, work / "report_html", data_roots=[root]))
        )  # the copy's images are shown
        warm.append(_timed(lambda: write_report(runs, work / "report_html", data_roots=[root])))
        render, flip = _first_render(work / "report_html" / "index.html")
        first.append(render)
        flips.append(flip)
    size = sum(p.stat().st_size for p in (work / "report_html").rglob("*") if p.is_file()) / 1e6
    print(f"{items(work / 'a')} items a run, two runs; report folder {size:.0f} MB; cores: {os.cpu_count()}")
    print("| variant | seconds (min / median / max) | x markdown |")
    print("|---|---|---|")
    print(f"| markdown report (today's) | {cell(markdown, 2)} | 1.00 |")
    print(
        f"| with index.html, cold thumbnails | {cell(cold, 2)} | "
        f"{statistics.median(cold) / statistics.median(markdown):.2f} |"
    )
    print(
        f"| with index.html, thumbnails reused | {cell(warm, 2)} | "
        f"{statistics.median(warm) / statistics.median(markdown):.2f} |"
    )
    print(f"| page: first page drawn, thumbnails decoded | {cell(first, 2)} | |")
    print(f"| page: 'B right, A wrong' over all items | {cell(flips, 2)} | |")


if __name__ == "__main__":
    main()
