"""The HTML report (``index.html``): an Overview that answers first (each run's headline scores and
B against A, ``report/overview.py``), the Markdown report's own sections rendered (the same tables,
not a second implementation of them), its charts, and an item browser over every run's items with
their image pairs (``report/item_browser.py``). A static folder: it opens from disk, needs no server, loads
nothing from outside it (no CDN: the script and the style are this package's files, copied in).

Markdown is rendered with markdown-it-py (CommonMark with GitHub's tables), already installed with
lmms-eval's dependencies; the browser is plain JavaScript (``static/browser.js``), no framework:
the page's job is a table, filters and a pager, and a framework would be a second thing to vendor.

Every string of the page that came from a results folder (model names and args, variables, task
and category names, replies, notes) is a stranger's text (docs/security.md): the Markdown renderer
makes no links, images or raw HTML at all (none of our own tables needs one), the browser sets
text only as text (``textContent``), and the page's Content Security Policy (``CSP``) lets it load
nothing but its own folder's files, so that a string that slipped through would still fetch nothing.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from lmms_comparative.data import untrusted
from lmms_comparative.report import item_browser, item_records
from lmms_comparative.report.overview import overview_html
from lmms_comparative.report.run_folders import folder, write_file
from lmms_comparative.reportlib.cells import table
from lmms_comparative.reportlib.marks import code

STATIC = Path(__file__).resolve().parent / "static"

# The page's Content Security Policy: nothing is loaded but the folder's own scripts, styles and
# images (``'self'``: the report's folder, opened from disk or served); no connection, no frame,
# no form, no <base>, no plugin; nothing inline. (frame-ancestors is ignored in a <meta> policy, so it is not set.)
CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'"

# markdown-it rules that would turn a string into active markup: links and images (inline and by
# reference), autolinks and raw HTML. Our own Markdown uses none of them in the sections it renders.
_ACTIVE_RULES = ["link", "image", "autolink", "reference", "html_inline", "html_block", "linkify"]


def _markdown(text: str) -> str:
    """Markdown as HTML with no link, image or raw HTML: such syntax in a submitted string stays text."""
    from markdown_it import MarkdownIt

    renderer = MarkdownIt("commonmark", {"html": False}).enable("table")
    renderer.disable(_ACTIVE_RULES, ignoreInvalid=True)  # linkify is not in the commonmark preset
    return _scrolling(renderer.render(text))


def _scrolling(rendered: str) -> str:
    """Each table in a box of its own that scrolls sideways (CompBench's 17 columns), so that the
    page itself never does. Raw HTML is off, so every ``<table>`` in the output is the renderer's."""
    return rendered.replace("<table>", '<div class="wide"><table>').replace("</table>", "</table></div>")


def media_notes(counts: dict) -> list[str]:
    """The report's notes on media it did not show: named outside the data roots, or images past the pixel budget."""
    found = []
    if counts.get("media_withheld"):
        found.append(
            f"{counts['media_withheld']} media file(s) that the samples logs name lie outside the data roots set "
            f"here ({item_browser.roots_phrase()}): not read, not shown (the item browser says which; set the "
            "run's *_ROOT variable or pass --data-root to show a local copy's)"
        )
    if counts.get("images_past_budget"):
        found.append(
            f"{counts['images_past_budget']} image(s) past the {item_browser.MAX_REPORT_PIXELS:,} pixels one "
            "report decodes: not shown"
        )
    if counts.get("images_too_large"):
        found.append(
            f"{counts['images_too_large']} image(s) declare more than {untrusted.MAX_IMAGE_PIXELS:,} pixels: "
            "not decoded, not shown"
        )
    return found


def comparison_section(
    benchmark,
    rows: list[dict] | None,
    a_name: str,
    b_name: str,
    problem: str | None,
    states: tuple[str, str] | None = None,
) -> list[str]:
    """The Markdown comparison of two runs for one benchmark (``compare.compare`` rows), one such
    section per pair of runs; ``states``: what ``verify`` said of A and of B (``runs.verify_state``)."""
    title = f"### Comparison: {code(b_name)} (B) against {code(a_name)} (A)"
    if states:
        title += f" (verify: A {states[0]}, B {states[1]})"
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
        what = f"`{r['task']}`" + (
            f" ({r['category']})" if r.get("category") else " *(group)*" if r["task"] in groups else ""
        )
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
    header = [
        "task (category)",
        "units",
        "A",
        "B",
        "B − A",
        "95% CI",
        "p",
        "p (Holm)",
        "flips A / B",
        "min. detectable",
        "test",
    ]
    note = (
        "Units both runs scored; paired bootstrap interval, exact McNemar or permutation p-value, Holm within a "
        "group or task (docs/reports.md). Flips: units better under A / under B."
    )
    return [
        title,
        "",
        note,
        "",
        table(header, body, key=f"{benchmark.name}_comparison", title=f"{benchmark.title}: {b_name} against {a_name}"),
        "",
    ]


def write_page(
    out: Path,
    runs: list,
    verification: list[str],
    sections: list[tuple],
    charts: dict[str, list[Path]],
    notes: list[str] | None = None,
    data_roots: Sequence[Path] = (),
    compared: list | None = None,
    board: dict | None = None,
) -> dict:
    """``index.html`` with its assets and the item browser's data under ``out``; ``sections``:
    (benchmark, its Markdown) in report order; ``charts``: PNGs by benchmark name; ``notes``:
    lines for the Overview (files passed over); ``compared``: each later run against the first
    (``overview.comparisons``); ``board``: the leaderboard (``leaderboard.leaderboard``), ranked
    on the Overview for three runs or more. Returns the browser's counts."""
    assets = folder(out / "assets")
    for name in ("browser.js", "report.css"):
        write_file(assets / name, (STATIC / name).read_bytes())
    benchmarks = [b for b, _ in sections]
    records = item_records.collect(runs, benchmarks)
    counts = item_browser.write(records, runs, out, roots=item_browser.media_roots(runs) + list(data_roots))
    notes = list(notes or []) + media_notes(counts)
    overview = verification + (["## Notes", "", *[f"- {' '.join(n.split())}" for n in notes], ""] if notes else [])
    present = {r["benchmark"] for r in records}
    tabs = ['<a href="#overview" data-tab="overview">Overview</a>'] + [
        f'<a href="#b-{b.name}" data-tab="b-{b.name}">{html.escape(b.title)}</a>' for b in benchmarks
    ]
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}"><title>lmms-comparative report</title>',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<link rel="stylesheet" href="assets/report.css"></head><body>',
        "<header><h1>lmms-comparative report</h1>"
        f"<p>Runs: {', '.join(f'<code>{html.escape(r.name)}</code>' for r in runs)}</p>"
        f"<nav>{''.join(tabs)}</nav></header>",
        f'<section id="overview" class="tab">{overview_html(benchmarks, runs, compared or [], board)}'
        f"{_markdown(chr(10).join(overview))}</section>",
    ]
    for benchmark, markdown in sections:
        pictures = "".join(
            f'<figure><img src="{html.escape(p.name)}" alt="{html.escape(p.stem)}"></figure>'
            for p in charts.get(benchmark.name, [])
        )
        browser = (
            f'<div class="browser" data-benchmark="{benchmark.name}"></div>'
            if benchmark.name in present
            else "<p>No item of this benchmark in the runs' samples logs (run with --log_samples).</p>"
        )
        parts.append(
            f'<section id="b-{benchmark.name}" class="tab"><div class="tables">{_markdown(markdown)}{pictures}</div>'
            f"<h2>Items</h2>{browser}</section>"
        )
    parts += [
        '<div id="overlay" hidden><button type="button" class="close">close</button><div class="content"></div></div>',
        '<script src="items/index.js"></script><script src="assets/browser.js"></script>',
        "</body></html>",
    ]
    write_file(out / "index.html", "\n".join(parts) + "\n")
    return counts
