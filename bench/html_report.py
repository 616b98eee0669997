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

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers import eval_args  # noqa: E402 - the tests' lmms-eval arguments
from helpers.browser import CHROMEDRIVER, CHROMIUM, CHROMIUM_FLAGS  # noqa: E402 - the tests' headless Chromium


def _lmms_eval(root: Path, out: Path, seed: int) -> None:
    env = dict(os.environ, COMPBENCH_ROOT=str(root), HF_HUB_OFFLINE="1", LMMS_COMPARATIVE_OUR_TASKS_ONLY="1")
    cmd = [sys.executable, "-m", "lmms_eval", *eval_args("random_choice", "compbench", out, model_args=f"seed={seed}")]
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


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


def _cell(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-source", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workdir", default=None, help="keep the data and runs here (reused when present)")
    args = parser.parse_args()
    from lmms_comparative.benchmarks.compbench.fixture import build
    from lmms_comparative.report import write_report

    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench_html_"))
    root = work / "compbench"
    if not root.exists():
        build(root, per_source=args.per_source)
    for name, seed in (("a", 1), ("b", 2)):
        if not list((work / name).glob("**/*_results.json")):
            _lmms_eval(root, work / name, seed)
    runs = [str(work / "a"), str(work / "b")]
    items = sum(1 for f in (work / "a").glob("**/*_samples_*.jsonl") for line in f.open() if line.strip())
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
    print(f"{items} items a run, two runs; report folder {size:.0f} MB; cores: {os.cpu_count()}")
    print("| variant | seconds (min / median / max) | x markdown |")
    print("|---|---|---|")
    print(f"| markdown report (today's) | {_cell(markdown)} | 1.00 |")
    print(
        f"| with index.html, cold thumbnails | {_cell(cold)} | "
        f"{statistics.median(cold) / statistics.median(markdown):.2f} |"
    )
    print(
        f"| with index.html, thumbnails reused | {_cell(warm)} | "
        f"{statistics.median(warm) / statistics.median(markdown):.2f} |"
    )
    print(f"| page: first page drawn, thumbnails decoded | {_cell(first)} | |")
    print(f"| page: 'B right, A wrong' over all items | {_cell(flips)} | |")


if __name__ == "__main__":
    main()
