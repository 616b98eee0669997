"""The HTML report (``index.html``): the Markdown report's own sections rendered (the same tables,
not a second implementation of them), its charts, and an item browser over every run's items with
their image pairs (``report/items.py``). A static folder: it opens from disk, needs no server, loads
nothing from outside it (no CDN: the script and the style are this package's files, copied in).

Markdown is rendered with markdown-it-py (CommonMark with GitHub's tables), already installed with
lmms-eval's dependencies; the browser is plain JavaScript (``static/browser.js``), no framework:
the page's job is a table, filters and a pager, and a framework would be a second thing to vendor.
"""

from __future__ import annotations

import html
import shutil
from pathlib import Path

from lmms_comparative.report import items
from lmms_comparative.report.cells import table

STATIC = Path(__file__).resolve().parent / "static"


def _markdown(text: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


def comparison_section(benchmark, rows: list[dict] | None, a_name: str, b_name: str, problem: str | None) -> list[str]:
    """The Markdown comparison of the first two runs for one benchmark (``compare.compare`` rows)."""
    title = f"### Comparison: `{b_name}` (B) against `{a_name}` (A)"
    if problem:
        return [title, "", f"Not compared: {problem}", ""]
    mine = [r for r in rows or [] if benchmark.owns_task(r["task"])]
    if not mine:
        return []
    groups = {r.get("group") for r in mine}  # the names of the groups whose tasks have rows here
    body = []
    for r in mine:
        if r.get("metric") is None:
            body.append([f"`{r['task']}`", "", "-", "-", "-", "-", "-", "-", "-", "-", r.get("note", "")])
            continue
        what = f"`{r['task']}`" + (f" ({r['category']})" if r.get("category") else " *(group)*" if r["task"] in groups else "")
        body.append(
            [
                what,
                str(r["n"]),
                f"{r['a']:.1f}",
                f"{r['b']:.1f}",
                f"{r['delta']:+.1f}",
                f"[{r['ci95'][0]:.1f}, {r['ci95'][1]:.1f}]",
                f"{r['p_value']:.3g}",
                f"{r['p_adjusted']:.3g}",
                f"{r['a_only']} / {r['b_only']}",
                f"{r['mdd']:.1f}" if r["mdd"] == r["mdd"] else "-",
                r["test"],
            ]
        )
    header = ["task (category)", "units", "A", "B", "B − A", "95% CI", "p", "p (Holm)", "flips A / B", "min. detectable", "test"]
    note = "Units both runs scored; paired bootstrap interval, exact McNemar or permutation p-value, Holm within a group or task (docs/reports.md). Flips: units better under A / under B."
    return [title, "", note, "", table(header, body, key=f"{benchmark.name}_comparison", title=f"{benchmark.title}: {b_name} against {a_name}"), ""]


def write_page(out: Path, runs: list, verification: list[str], sections: list[tuple], charts: dict[str, list[Path]]) -> dict:
    """``index.html`` with its assets and the item browser's data under ``out``; ``sections``:
    (benchmark, its Markdown) in report order; ``charts``: PNGs by benchmark name. Returns the
    browser's counts."""
    assets = out / "assets"
    assets.mkdir(parents=True, exist_ok=True)
    for name in ("browser.js", "report.css"):
        shutil.copyfile(STATIC / name, assets / name)
    benchmarks = [b for b, _ in sections]
    records = items.collect(runs, benchmarks)
    counts = items.write(records, runs, out)
    present = {r["benchmark"] for r in records}
    tabs = ['<a href="#overview" data-tab="overview">Overview</a>'] + [f'<a href="#b-{b.name}" data-tab="b-{b.name}">{html.escape(b.title)}</a>' for b in benchmarks]
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8"><title>lmms-comparative report</title>',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<link rel="stylesheet" href="assets/report.css"></head><body>',
        f"<header><h1>lmms-comparative report</h1><p>Runs: {', '.join(f'<code>{html.escape(r.name)}</code>' for r in runs)}</p><nav>{''.join(tabs)}</nav></header>",
        f'<section id="overview" class="tab">{_markdown(chr(10).join(verification))}</section>',
    ]
    for benchmark, markdown in sections:
        pictures = "".join(f'<figure><img src="{html.escape(p.name)}" alt="{html.escape(p.stem)}"></figure>' for p in charts.get(benchmark.name, []))
        browser = f'<div class="browser" data-benchmark="{benchmark.name}"></div>' if benchmark.name in present else "<p>No item of this benchmark in the runs' samples logs (run with --log_samples).</p>"
        parts.append(f'<section id="b-{benchmark.name}" class="tab"><div class="tables">{_markdown(markdown)}{pictures}</div><h2>Items</h2>{browser}</section>')
    parts += [
        '<div id="overlay" hidden><button type="button" class="close">close</button><div class="content"></div></div>',
        '<script src="items/index.js"></script><script src="assets/browser.js"></script>',
        "</body></html>",
    ]
    (out / "index.html").write_text("\n".join(parts) + "\n", encoding="utf-8")
    return counts
