"""``lmms-comparative report``: lmms-eval results directories as the papers' own tables and charts.

For each benchmark present in the runs it writes the paper's table layout in Markdown, the paper's
reference rows (chance, human) at the paper's precision beside the models, 95% bootstrap intervals
(± half-width; from the samples logs of ``--log_samples`` runs, or the ``ci95`` metric the task
published) for every number that has per-item values, and PNG charts. A run whose values are not
the release's full item set (``subsets.py``) is marked wherever they stand (``marks.py``). Each
benchmark's section, run summary and charts are in its folder (``benchmarks/<name>/report.py``);
this package reads the runs, formats cells and puts the sections together, in the registry's order.
"""

from __future__ import annotations

import re
from pathlib import Path

from lmms_comparative.data.generating import generation_of
from lmms_comparative.data.untrusted import printable
from lmms_comparative.registry import BENCHMARKS, BY_NAME, of_task
from lmms_comparative.report import generic, html
from lmms_comparative.report.overview import comparisons
from lmms_comparative.report.run_folders import folder, load_runs, verify_state, write_file
from lmms_comparative.reportlib.cells import collecting, parse_cell
from lmms_comparative.reportlib.charts import model_colours
from lmms_comparative.reportlib.marks import code, kind
from lmms_comparative.reportlib.paper import PAPER_ROWS, Aliases, paper_block, paper_rows_shown
from lmms_comparative.reportlib.runs import ReportError, Run, claimed_version, generated_by, overrides
from lmms_comparative.subsets import by_count_only, subset_of_tasks


def run_summary(results: dict, output_path: str | None) -> list[str]:
    """A few lines per benchmark of one run, in its paper's layout, for the end of the run log:
    ``results`` maps task and group names to lmms-eval's metric values (``"accuracy,none"``);
    ``output_path`` is the run's ``--output_path`` (None: nothing was saved)."""
    run = Run("this run", {"results": dict(results)})
    scoreless = _predict_only(results, output_path)
    if scoreless:
        return [scoreless]
    if output_path:
        pointer = f"Full tables with 95% intervals, runs side by side: lmms-comparative report {output_path} -o report/"
    else:
        pointer = "Nothing was saved (no --output_path): run with --output_path DIR --log_samples, then lmms-comparative report DIR -o report/ for the full tables."
    blocks = []
    for benchmark in BENCHMARKS:
        lines = summary_of(benchmark, run)
        if lines:
            blocks.append("\n".join(lines + [pointer]))
    return blocks


def _predict_only(results: dict, output_path: str | None) -> str | None:
    """For a ``--predict_only`` run (lmms-eval's ``bypass`` metric in place of every score of our
    tasks), the lines that say how to score it; else None."""
    ours = [(task, row) for task, row in results.items() if isinstance(row, dict) and of_task(task) is not None]
    if not ours or not all(any(str(m).startswith("bypass,") for m in row) for _, row in ours):
        return None
    if not output_path:
        return "A --predict_only run keeps its replies only with --output_path DIR --log_samples: nothing was saved, so there is nothing to score."
    names = [b.name for b in BENCHMARKS if any(b.owns_task(t) for t, _ in ours)]
    scored = [f"  lmms-comparative score {name} {output_path} -o scored/{name}" for name in names]
    return "\n".join(
        [
            "A --predict_only run: replies only, nothing scored, so no table. Score them (docs/scoring.md):",
            *scored,
            "then: lmms-comparative report scored/ -o report/",
        ]
    )


def _paper_section(benchmark, runs: list[Run], mode: str, aliases: Aliases) -> list[str]:
    """The benchmark's paper tables with the runs among the paper's models (``benchmarks/<name>/
    paper.json``, measured by its report part's ``measure``); [] for a benchmark without transcribed rows."""
    paper = benchmark.paper()
    if not paper["tables"]:
        return []
    measure = benchmark.report_part().measure
    out: list[str] = []
    for table_id, spec in paper["tables"].items():
        block = paper_block(benchmark, table_id, spec, runs, measure, paper["aliases"], aliases, mode)
        if block:
            out += ["", *block]
    return out


REPORT_JSON_VERSION = 1


def plain_text(cell):
    """A table cell without its Markdown emphasis (``**name**``, ``*x*``, backticks), for the CSV
    files and report.json; anything not a string as it is."""
    if not isinstance(cell, str):
        return cell
    return re.sub(r"(\*\*|__|`)(.+?)\1", r"\2", cell).replace("**", "")


def verification_of(run: Run) -> str:
    """A run's verification in one phrase: verify's verdict while every file of the run is the one
    it checked, else why there is none; a verdict file not made here is shown as the claim it is."""
    state = verify_state(run)
    if state == "no provenance":
        return "no provenance (not a run of lmms-comparative's tasks, or made before provenance)"
    if state == "not verified":
        return f"not verified (run `lmms-comparative verify` on its folder{_with_variables(run)})"
    if state == "STALE":
        changed = run.verified.get("changed") or []
        since = (
            "`lmms-comparative verify` checked the run"
            if run.verified.get("made_here") is True
            else "the verdict file that came with the run was written (not made here)"
        )
        return f"STALE: {', '.join(changed[:3])}{' ...' if len(changed) > 3 else ''} changed after {since}"
    if run.verified.get("made_here") is not True:  # a verdict that came with the folder: the submitter's word
        return f"{state} (its verdict file was not made by `lmms-comparative verify` on this machine: run it on the folder{_with_variables(run)})"
    tasks = run.verified.get("tasks") or {}
    counts = {s: sum(1 for t in tasks.values() if t.get("status") == s) for s in ("PASS", "FAIL", "UNVERIFIED")}
    detail = ", ".join(f"{n} {s.lower()}" for s, n in counts.items() if n)
    return f"{run.verified.get('verdict')} ({detail})"


def _with_variables(run: Run) -> str:
    """The data variables ``verify`` needs set to re-score the run: those of the local copies it
    read (only the names this package reads: the record is a stranger's text)."""
    known = {b.root_variable for b in BENCHMARKS if b.root_variable}
    tasks = ((run.results.get("lmms_comparative") or {}).get("tasks") or {}).values()
    found = sorted(
        {
            d.get("variable")
            for d in ((t.get("data") or {}) for t in tasks if isinstance(t, dict))
            if d.get("source") == "local"
        }
        & known
    )
    return f", with {', '.join(found)} set to the data the run read" if found else ""


def protocol_of(run: Run, in_table: bool = False) -> str:
    """The run's protocol in a phrase: the tasks' own, or the overrides its command line gave."""
    found = overrides(run.results)
    if not found:
        return "the tasks' own"
    return "overridden: " + ", ".join(code(f"--{k} {v}", in_table=in_table) for k, v in found.items())


def run_subsets(run: Run, benchmarks) -> dict[str, str | None]:
    """Per benchmark the run has tasks of, why its items are not the release's (None: they are)."""
    found = {}
    for benchmark in benchmarks:
        own = _own_tasks(run, benchmark)
        if own:
            found[benchmark.name] = subset_of_tasks(run, benchmark, own)
    return found


def _own_tasks(run: Run, benchmark) -> list[str]:
    """The tasks and groups of the run's results that ``benchmark`` owns."""
    return [t for t in run.results.get("results") or {} if benchmark.owns_task(t)]


def count_only(run: Run, subsets: dict[str, str | None]) -> list[str]:
    """The benchmarks whose items this run holds as the release by item count alone: no reason
    to call them a subset, and no key list here to check them against (``subsets.by_count_only``)."""
    return [
        name
        for name, reason in subsets.items()
        if reason is None and by_count_only(run, BY_NAME[name], _own_tasks(run, BY_NAME[name]))
    ]


def _items(run: Run, subsets: dict[str, str | None]) -> str:
    by_count = count_only(run, subsets)
    shown = []
    for name, reason in subsets.items():
        release = "the release" + (" by item count (keys not checked)" if name in by_count else "")
        shown.append(f"{BY_NAME[name].title}: {kind(reason) or release}")
    return "; ".join(shown) or "-"


def _verification(runs: list[Run], subsets: dict[str, dict]) -> list[str]:
    """The report's verification table: each run's verify verdict, data sources and whether its
    items are the release's (each table's footnotes say why not)."""
    lines = [
        "## Verification",
        "",
        "Runs are named by the model their `--model_args` name (a score of a --predict_only run's replies: the generating run's): the submitter's claim, which `verify` cannot check. Protocol: the decoding and prompts the tasks set (the papers'), or what the run's command line overrode (the generating run's included). Items: \"the release by item count\" where the release's key list is not known here and the run read a local copy, so only the count is checked.",
        "",
        "| run | verify | data | items | protocol |",
        "|---|---|---|---|---|",
    ]
    for run in runs:
        record = run.results.get("lmms_comparative") or {}
        sources = sorted(
            {
                (d.get("repo") and f"{d['repo']}@{str(d.get('commit'))[:8]}")
                or (d.get("variable") and f"{d['variable']} (fingerprint {str(d.get('fingerprint'))[:8]})")
                or "?"
                for d in ((t.get("data") or {}) for t in (record.get("tasks") or {}).values())
            }
        )
        lines.append(
            f"| {code(run.name, in_table=True)} | {verification_of(run)} | {', '.join(sources) or '-'} | {_items(run, subsets[run.name])} | {protocol_of(run, in_table=True)} |"
        )
    variants = [
        f"- {code(run.name)}: {code(task)} is a variant of {code(entry['variant_of'])} (a task of the run's own that builds on ours; its prompts and decoding are its own): `verify` re-scores it as one, the paper's tables do not show it"
        for run in runs
        for task, entry in sorted(((run.results.get("lmms_comparative") or {}).get("tasks") or {}).items())
        if isinstance(entry, dict) and isinstance(entry.get("variant_of"), str)
    ]
    variants += [line for run in runs if (line := _generated_apart(run))]
    variants += [line for run in runs if (line := _cached(run))]
    return lines + ([""] + variants if variants else []) + [""]


def _cached(run: Run) -> str | None:
    """For a run with lmms-eval's ``--use_cache``: how many requests its response cache served (the
    run's claim), and that it serves deterministic requests only; None for any other run."""
    counts = (run.results.get("lmms_comparative") or {}).get("response_cache")
    if not isinstance(counts, dict):
        return None
    number = lambda key: (
        counts.get(key) if isinstance(counts.get(key), int) and not isinstance(counts.get(key), bool) else "?"
    )  # noqa: E731
    return (
        f"- {code(run.name)}: run with lmms-eval's `--use_cache`: {number('hits')} request(s) answered from its response cache, {number('misses')} by the model, "
        f"{number('skipped_non_deterministic')} not cacheable (sampled, temperature above 0: generated anew); the run's claim"
    )


def _generated_apart(run: Run) -> str | None:
    """For a ``score`` of a --predict_only run's replies: what the generating run claims (its
    model, its package version), which ``verify`` cannot check; None for any other run."""
    generation = generation_of(run.results.get("lmms_comparative"))
    if generation is None:
        return None
    claims = generated_by(run.results)
    model = " ".join(printable(str(claims.get("model_args") or claims.get("model") or "?")).split())[:200]
    version = claimed_version(generation)
    return (
        f"- {code(run.name)}: replies generated apart, by a --predict_only run whose results name the model {code(model)} and lmms-comparative {code(version)}:"
        " that run's claims; `verify` checks that its prompts are the installed package's and its items the ones scored, not which model answered"
    )


# A benchmark's report parts, where it has them (``report.section``, ``report.summary``,
# ``reportlib.charts``), else the defaults, which live here with the report that applies them.


def section_of(benchmark, runs: list) -> str | None:
    """The benchmark's Markdown section (``report.section``; default: a table of the runs' tasks, ``generic.section``)."""
    own = benchmark.report_part().section
    return own(runs) if own is not None else generic.section(benchmark, runs)


def summary_of(benchmark, run) -> list[str]:
    """The lines a run's log ends with (``report.summary``; default: the run's tasks, ``generic.summary``)."""
    own = benchmark.report_part().summary
    return own(run) if own is not None else generic.summary(benchmark, run)


def charts_of(benchmark, runs: list, out_dir: Path) -> list[Path]:
    """The benchmark's PNG charts (``reportlib.charts``; default: none), with matplotlib's mathtext and
    TeX off: a model name is the submitter's text (``my$\\model$v2`` would be parsed as math and fail)."""
    own = benchmark.report_part().charts
    if own is None:
        return []
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False, "text.usetex": False}):
        return own(runs, out_dir)


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
    data_roots: list[Path] = (),
) -> Path:
    """Write report.md, report.json, one CSV per table (``tables/``), the charts and the HTML
    report (``index.html``, with the item browser) under ``out_dir``; returns the Markdown file. ``paper_rows``: the papers' model rows to show (all,
    matched: only those of models the runs matched, none); ``with_html``: also ``index.html``.
    ``notes`` (given): filled with a line per file passed over (unreadable, a link, too large or
    too deep) and per kind of media not shown; the report is made of the other runs. Every file
    is written anew, never through a link (``data/untrusted.py``). ``data_roots``: folders the
    item browser may read media from besides the ``*_ROOT`` variables set (the demo's data)."""
    import csv
    import io
    import json

    if paper_rows not in PAPER_ROWS:
        raise ReportError(f"--paper-rows {paper_rows!r}: choose one of {', '.join(PAPER_ROWS)}")
    aliases = aliases or Aliases()
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ReportError(f"{out}: exists and is not a folder (-o names the folder for report.md and the charts)")
    passed: list[tuple[Path, str]] = []
    links: list[tuple[Path, str]] = []
    # The charts are saved by matplotlib, which would write through a link: none may stand where a file of the report goes.
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
                f"{out}: {', '.join(linked)}: a link stands where a file of the report goes: not written through it (remove the link)"
            )
    runs = load_runs(paths, passed, links)
    notes = notes if notes is not None else []
    notes += [f"passed over: {why}" for _, why in passed] + [f"{path}: {why}" for path, why in links]
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"{out}: cannot create the report folder ({exc.strerror or exc})") from None
    subsets = {r.name: run_subsets(r, BENCHMARKS) for r in runs}
    verification = _verification(runs, subsets)
    parts = ["# lmms-comparative report", "", "Runs: " + ", ".join(code(r.name) for r in runs), "", *verification]
    # Each later run against the first (the Overview; the tabs' comparison sections show the first two).
    pairs = comparisons(runs if with_html else runs[:2])
    compared, problem = (pairs[0][1], pairs[0][2]) if pairs else (None, None)
    sections = []
    with collecting() as tables, paper_rows_shown(paper_rows):
        for benchmark in BENCHMARKS:
            with collecting(benchmark.name):
                text = section_of(benchmark, runs)
                extra = _paper_section(benchmark, runs, paper_rows, aliases)
                if len(runs) > 1 and (text or extra):
                    extra += html.comparison_section(
                        benchmark,
                        compared,
                        runs[0].name,
                        runs[1].name,
                        problem,
                        (verify_state(runs[0]), verify_state(runs[1])),
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
            html.write_page(out, runs, verification, sections, charts, list(notes), data_roots, pairs)
        )
    if notes:
        parts += ["## Notes", "", *[f"- {' '.join(n.split())}" for n in notes], ""]
    write_file(report, "\n".join(parts))
    tables_folder = folder(out / "tables")
    seen: dict[str, int] = {}
    for entry in tables:
        seen[entry["key"]] = seen.get(entry["key"], 0) + 1
        if seen[entry["key"]] > 1:
            entry["key"] = f"{entry['key']}_{seen[entry['key']]}"
        entry["csv"] = f"tables/{entry['key']}.csv"
        if (
            "subset" in entry
        ):  # a table of runs: each row's reason for not being the release ("" for the release and the paper's rows)
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
    document = {
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
    write_file(out / "report.json", json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    return report


__all__ = [
    "Aliases",
    "PAPER_ROWS",
    "ReportError",
    "Run",
    "charts_of",
    "load_runs",
    "model_colours",
    "run_summary",
    "section_of",
    "summary_of",
    "write_report",
]
