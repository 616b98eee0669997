"""``lmms-comparative report``'s files: report.md, report.json, one CSV per table (``tables/``), the
charts and the HTML report, written under the output folder, every one anew and never through a
link (``data/untrusted.py``)."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Sequence
from pathlib import Path

from lmms_comparative.registry import BENCHMARKS
from lmms_comparative.report import html
from lmms_comparative.report.benchmark_parts import charts_of, paper_section, section_of
from lmms_comparative.report.compare import all_pairs
from lmms_comparative.report.leaderboard import csv_text, leaderboard
from lmms_comparative.report.run_folders import folder, load_runs, verify_state, write_file
from lmms_comparative.report.verification import count_only, run_subsets, verification_of, verification_table
from lmms_comparative.reportlib.cells import collecting, parse_cell
from lmms_comparative.reportlib.marks import code
from lmms_comparative.reportlib.paper import PAPER_ROWS, Aliases, paper_rows_shown
from lmms_comparative.reportlib.runs import ReportError, Run, generated_by, overrides

REPORT_JSON_VERSION = 1


def plain_text(cell):
    """A table cell without its Markdown emphasis (``**name**``, ``*x*``, backticks), for the CSV
    files and report.json; anything not a string as it is."""
    if not isinstance(cell, str):
        return cell
    return re.sub(r"(\*\*|__|`)(.+?)\1", r"\2", cell).replace("**", "")


# Spreadsheets evaluate a cell that starts with one of these (CSV injection); a number such as
# -3.2 or +1.5 is left as it is.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


# A value cell of ours: a number, with its ± half-width or its (low–high) interval; or "-", no value.
_VALUE_CELL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?( ±[\d.]+| \(-?[\d.]+–-?[\d.]+\))?|-", re.I)


def csv_cell(value):
    """A CSV cell no spreadsheet evaluates: text that starts like a formula gets a leading ``'``
    (OWASP's advice on CSV injection); numbers, our value cells and other text as they are."""
    if not isinstance(value, str) or not value.startswith(_FORMULA_START) or _VALUE_CELL.fullmatch(value):
        return value
    return "'" + value


def write_report(
    paths: list[str],
    out_dir: str | Path,
    paper_rows: str = "all",
    aliases: Aliases | None = None,
    with_html: bool = True,
    notes: list[str] | None = None,
    data_roots: Sequence[Path] = (),
    verified_only: bool = False,
) -> Path:
    """Write report.md, report.json, one CSV per table (``tables/``), the charts and the HTML
    report (``index.html``, with the item browser) under ``out_dir``; returns the Markdown file.
    ``paper_rows``: the papers' model rows to show (all, matched: only those of models the runs
    matched, none); ``with_html``: also ``index.html``.
    ``notes`` (given): filled with a line per file passed over (unreadable, a link, too large or
    too deep) and per kind of media not shown; the report is made of the other runs. Every file
    is written anew, never through a link (``data/untrusted.py``). ``data_roots``: folders the
    item browser may read media from besides the ``*_ROOT`` variables set (the demo's data).
    ``verified_only``: the ranking leaves out every run without a current PASS made here."""
    if paper_rows not in PAPER_ROWS:
        raise ReportError(f"--paper-rows {paper_rows!r}: choose one of {', '.join(PAPER_ROWS)}")
    aliases = aliases or Aliases()
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ReportError(f"{out}: exists and is not a folder (-o names the folder for report.md and the charts)")
    passed: list[tuple[Path, str]] = []
    links: list[tuple[Path, str]] = []
    # The charts are saved by matplotlib, which would write through a link: none may stand where a
    # file of the report goes.
    if out.is_dir():
        linked = sorted(
            p.name
            for p in out.iterdir()
            if p.is_symlink()
            and (
                p.suffix in (".png", ".md", ".json", ".html")
                or p.name in ("assets", "items", "thumbs", "full", "tables")
            )
        )
        if linked:
            raise ReportError(
                f"{out}: {', '.join(linked)}: a link stands where a file of the report goes: not written through it "
                "(remove the link)"
            )
    runs = load_runs(paths, passed, links)
    notes = notes if notes is not None else []
    notes += [f"passed over: {why}" for _, why in passed] + [f"{path}: {why}" for path, why in links]
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"{out}: cannot create the report folder ({exc.strerror or exc})") from None
    subsets = {r.name: run_subsets(r, BENCHMARKS) for r in runs}
    verification = verification_table(runs, subsets)
    parts = ["# lmms-comparative report", "", "Runs: " + ", ".join(code(r.name) for r in runs), "", *verification]
    # Every pair of runs compared once (report.json's leaderboard and pairs, each benchmark's
    # comparison sections); the Overview shows each later run against the first.
    every_pair = all_pairs(runs)
    pairs = [(j, *every_pair[(0, j)]) for j in range(1, len(runs))]
    board = leaderboard(BENCHMARKS, runs, every_pair, verified_only) if len(runs) > 1 else None
    states = [verify_state(r) for r in runs]
    sections = []
    with collecting() as tables, paper_rows_shown(paper_rows):
        for benchmark in BENCHMARKS:
            with collecting(benchmark.name):
                text = section_of(benchmark, runs)
                extra = paper_section(benchmark, runs, paper_rows, aliases)
                for (i, j), (rows, problem) in every_pair.items() if text or extra else ():
                    extra += html.comparison_section(
                        benchmark, rows, runs[i].name, runs[j].name, problem, (states[i], states[j])
                    )
            if text or extra:
                section = [text or f"## {benchmark.title}", *extra, ""]
                parts += section
                sections.append((benchmark, "\n".join(section)))
    charts = {benchmark.name: charts_of(benchmark, runs, out) for benchmark in BENCHMARKS}
    if any(charts.values()):
        parts += ["## Charts", ""] + [f"![{c.stem}]({c.name})" for found in charts.values() for c in found] + [""]
    report = out / "report.md"
    if with_html:
        notes += html.media_notes(
            html.write_page(out, runs, verification, sections, charts, list(notes), data_roots, pairs, board)
        )
    if notes:
        parts += ["## Notes", "", *[f"- {' '.join(n.split())}" for n in notes], ""]
    write_file(report, "\n".join(parts))
    _write_tables(out, tables)
    if board is not None:  # the standings as lmms-comparative leaderboard writes them
        write_file(folder(out / "tables") / "leaderboard.csv", csv_text(board))
    document = _document(runs, subsets, tables, charts)
    if board is not None:
        document["leaderboard"] = board
        document["comparisons"] = [
            {"run_a": runs[i].name, "run_b": runs[j].name, "rows": rows, "problem": problem}
            for (i, j), (rows, problem) in every_pair.items()
        ]
    write_file(out / "report.json", json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    return report


def _write_tables(out: Path, tables: list[dict]) -> None:
    """One CSV file per collected table under ``out/tables``, each entry given its file name (a
    key made twice gets ``_2``, ...)."""
    tables_folder = folder(out / "tables")
    seen: dict[str, int] = {}
    for entry in tables:
        seen[entry["key"]] = seen.get(entry["key"], 0) + 1
        if seen[entry["key"]] > 1:
            entry["key"] = f"{entry['key']}_{seen[entry['key']]}"
        entry["csv"] = f"tables/{entry['key']}.csv"
        # A table of runs: each row's reason for not being the release ("" for the release and the
        # paper's rows).
        if "subset" in entry:
            entry["columns"] = entry["columns"] + ["subset"]
        handle = io.StringIO(newline="")
        writer = csv.writer(handle)
        writer.writerow([csv_cell(c) for c in entry["columns"]])
        writer.writerows(
            [
                [csv_cell(plain_text(c)) for c in row]
                + ([csv_cell(plain_text(entry["subset"][i] or ""))] if "subset" in entry else [])
                for i, row in enumerate(entry["rows"])
            ]
        )
        write_file(tables_folder / Path(entry["csv"]).name, handle.getvalue())


def _document(runs: list[Run], subsets: dict, tables: list[dict], charts: dict[str, list[Path]]) -> dict:
    """report.json: the runs with their verification, the tables with each cell's number and
    interval (``parse_cell``), and the charts."""
    return {
        "version": REPORT_JSON_VERSION,
        "runs": [
            {
                "name": r.name,
                "model": r.results.get("config", {}).get("model"),
                "model_args": r.results.get("config", {}).get("model_args"),
                "verify": verification_of(r),
                "overrides": overrides(r.results),
                "generated_by": generated_by(r.results),
                "subset": subsets[r.name],
                "release_by_count_only": count_only(r, subsets[r.name]),
            }
            for r in runs
        ],
        "tables": [
            {
                "key": e["key"],
                "benchmark": e["section"],
                "title": e["title"],
                "columns": e["columns"],
                "csv": e["csv"],
                "rows": [
                    {
                        **dict(
                            zip(e["columns"], [plain_text(c) if i == 0 else parse_cell(c) for i, c in enumerate(row)])
                        ),
                        **({"subset": plain_text(e["subset"][n])} if "subset" in e else {}),
                    }
                    for n, row in enumerate(e["rows"])
                ],
            }
            for e in tables
        ],
        "charts": [c.name for found in charts.values() for c in found],
    }
