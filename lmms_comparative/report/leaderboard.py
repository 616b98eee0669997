"""The leaderboard: per benchmark and headline, the runs ordered by their score, each with its 95%
interval, its ``verify`` state and a rank range that says which ranks the data can tell apart.

Every pair of runs is compared once (``compare.compare``: the paired test on the units both scored,
exact McNemar where a unit is right or wrong, else a paired permutation test), and the p-values of
all pairs of one headline are Holm-adjusted together. A run's best rank is 1 + the runs
significantly better than it; its worst rank is the number of runs not significantly worse than it
(itself included): Chatbot Arena's rank bounds (Chiang et al., 2024, "Chatbot Arena", section 5),
with exact paired tests instead of Elo intervals. Runs whose ranges overlap are tied: the data does
not order them. A pair that cannot be tested (other items, no per-unit score) orders nothing: both
runs' ranges stay open towards each other.

A run whose verdict (on this machine, current) is FAIL is marked; with ``verified_only`` every run
without a PASS made here is left out before the ranks are computed, and said so.
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass, field

from lmms_comparative.metrics.paired import holm
from lmms_comparative.report.compare import all_pairs
from lmms_comparative.report.headlines import entries, headline_row
from lmms_comparative.report.run_folders import verify_state

ALPHA = 0.05  # the family-wise error rate of one headline's pairwise tests


@dataclass
class Standing:
    """One run's place on one headline of one benchmark."""

    benchmark: str
    headline: str  # the headline's label ("Avg.")
    table: str  # the paper table and column it stands in
    column: str
    run: str
    task: str  # the task or group the value is of
    value: float | None  # at the paper's scale (%)
    ci95: list[float] | None
    verify: str
    rank: int | None = None  # 1 + the runs with a higher value (ties share the best)
    rank_best: int | None = None
    rank_worst: int | None = None
    tied_with: list[str] = field(default_factory=list)  # the runs whose range overlaps this one's
    excluded: str = ""  # why the run is left out of the ranks ("" when ranked)


@dataclass
class PairTest:
    """One pair's test on one headline: run ``a`` against run ``b`` (``delta`` = b - a)."""

    a: str
    b: str
    delta: float | None
    ci95: list[float] | None
    p_value: float | None
    p_holm: float | None = None
    test: str = ""
    note: str = ""  # why there is no test


def _test(rows: list[dict] | None, problem: str | None, task_a: str, task_b: str, a: str, b: str) -> PairTest:
    row, why = headline_row(rows, problem, task_a, task_b, a, b)
    if why or row is None:
        return PairTest(a, b, None, None, None, note=why)
    return PairTest(a, b, row["delta"], list(row["ci95"]), row["p_value"], test=row.get("test", ""))


def standings(benchmark, runs: list, pairs: dict, verified_only: bool = False) -> tuple[list[Standing], list[PairTest]]:
    """The benchmark's standings on each of its headlines (its overview entries) and the pairwise
    tests behind them, Holm-adjusted per headline."""
    out: list[Standing] = []
    tests: list[PairTest] = []
    part = benchmark.report_part()
    if part.measure is None:
        return out, tests
    for entry in entries(benchmark, runs):
        rows: list[Standing] = []
        for run, task in zip(runs, entry.tasks):
            value, ci = part.measure(run, entry.table, entry.column) if run.row(task) else (None, None)
            state = verify_state(run)
            excluded = ""
            if value is None:
                excluded = "no value"
            elif verified_only and state != "PASS":
                excluded = f"verify: {state}"
            rows.append(
                Standing(
                    benchmark.name,
                    entry.label,
                    entry.table,
                    entry.column,
                    run.name,
                    task,
                    value,
                    list(ci) if ci else None,
                    state,
                    excluded=excluded,
                )
            )
        ranked = [i for i, s in enumerate(rows) if not s.excluded]
        headline_tests: dict[tuple[int, int], PairTest] = {}
        for n, i in enumerate(ranked):
            for j in ranked[n + 1 :]:
                rows_ij, problem = pairs.get((i, j), (None, "not compared"))
                headline_tests[(i, j)] = _test(rows_ij, problem, rows[i].task, rows[j].task, runs[i].name, runs[j].name)
        testable = [key for key, t in headline_tests.items() if t.p_value is not None]
        for key, adjusted in zip(testable, holm([headline_tests[k].p_value for k in testable])):  # type: ignore[misc]
            headline_tests[key].p_holm = adjusted
        _rank(rows, ranked, headline_tests)
        out += rows
        tests += list(headline_tests.values())
    return out, tests


def _rank(rows: list[Standing], ranked: list[int], tests: dict[tuple[int, int], PairTest]) -> None:
    """Each ranked run's rank by value and its rank range from the significant pairs."""

    def better(i: int, j: int) -> bool:  # j significantly better than i
        key = (min(i, j), max(i, j))
        t = tests.get(key)
        if t is None or t.p_holm is None or t.p_holm >= ALPHA or t.delta is None:
            return False
        return t.delta > 0 if key == (i, j) else t.delta < 0  # delta = later run - earlier run

    for i in ranked:
        value = rows[i].value or 0.0
        rows[i].rank = 1 + sum(1 for j in ranked if (rows[j].value or 0.0) > value)
        rows[i].rank_best = 1 + sum(1 for j in ranked if j != i and better(i, j))
        rows[i].rank_worst = len(ranked) - sum(1 for j in ranked if j != i and better(j, i))
    for i in ranked:
        rows[i].tied_with = [
            rows[j].run
            for j in ranked
            if j != i
            and (rows[i].rank_best or 0) <= (rows[j].rank_worst or 0)
            and (rows[j].rank_best or 0) <= (rows[i].rank_worst or 0)
        ]


def leaderboard(benchmarks, runs: list, pairs: dict | None = None, verified_only: bool = False) -> dict:
    """Every benchmark's standings and pairwise tests, as report.json and ``leaderboard.json`` hold
    them: ``{"standings": [...], "pairs": [...]}``, the standings in ranking order per headline."""
    pairs = all_pairs(runs) if pairs is None else pairs
    standing_rows: list[dict] = []
    pair_rows: list[dict] = []
    for benchmark in benchmarks:
        found, tests = standings(benchmark, runs, pairs, verified_only)
        order = sorted(
            range(len(found)),
            key=lambda k: (found[k].headline, found[k].rank is None, found[k].rank or 0, found[k].run),
        )
        standing_rows += [asdict(found[k]) for k in order]
        pair_rows += [{"benchmark": benchmark.name, **asdict(t)} for t in tests]
    return {
        "alpha": ALPHA,
        "adjustment": "Holm, over all pairs of one headline",
        "standings": standing_rows,
        "pairs": pair_rows,
    }


def rank_text(row: dict) -> str:
    """``3``, or ``2-4`` where the data cannot place it closer; ``-`` when not ranked."""
    if row.get("rank_best") is None:
        return "-"
    best, worst = row["rank_best"], row["rank_worst"]
    return str(best) if best == worst else f"{best}-{worst}"


CSV_COLUMNS = (
    "benchmark",
    "headline",
    "run",
    "task",
    "value",
    "ci_low",
    "ci_high",
    "rank",
    "rank_best",
    "rank_worst",
    "tied_with",
    "verify",
    "excluded",
)


def csv_text(board: dict) -> str:
    handle = io.StringIO(newline="")
    writer = csv.writer(handle)
    writer.writerow(CSV_COLUMNS)
    for row in board["standings"]:
        ci = row.get("ci95") or [None, None]
        values = {**row, "ci_low": ci[0], "ci_high": ci[1], "tied_with": ";".join(row.get("tied_with") or [])}
        writer.writerow(["" if values.get(c) is None else _plain(values[c]) for c in CSV_COLUMNS])
    return handle.getvalue()


def _plain(value) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    """``text`` as LaTeX prints it: every special character escaped, controls dropped."""
    return "".join(_LATEX.get(ch, ch) for ch in str(text) if ch.isprintable())


def latex_text(board: dict) -> str:
    """A booktabs ``tabular`` per benchmark headline: run, value ± the half-width of its 95%
    interval, the rank range; a tied run's range carries a dagger, explained under the table."""
    blocks = []
    headlines: dict[tuple[str, str], list[dict]] = {}
    for row in board["standings"]:
        headlines.setdefault((row["benchmark"], row["headline"]), []).append(row)
    for (benchmark, headline), rows in headlines.items():
        lines = [
            f"% {latex_escape(benchmark)}: {latex_escape(headline)}",
            r"\begin{tabular}{lrl}",
            r"\toprule",
            f"Model & {latex_escape(headline)} & Rank \\\\",
            r"\midrule",
        ]
        for row in rows:
            if row.get("rank_best") is None:
                continue
            value = "--" if row["value"] is None else f"{row['value']:.1f}"
            if row.get("ci95"):
                value += f" $\\pm$ {(row['ci95'][1] - row['ci95'][0]) / 2:.1f}"
            mark = "$^\\dagger$" if row.get("tied_with") else ""
            lines.append(f"{latex_escape(row['run'])} & {value} & {rank_text(row).replace('-', '--')}{mark} \\\\")
        lines += [
            r"\bottomrule",
            r"\end{tabular}",
            f"% $\\dagger$: tied (rank ranges overlap: Holm-adjusted paired tests at {board['alpha']}).",
            "",
        ]
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def table(board: dict) -> str:
    """The printed leaderboard: per benchmark headline, the runs in order."""
    lines = []
    current = None
    for row in board["standings"]:
        head = (row["benchmark"], row["headline"])
        if head != current:
            current = head
            lines += ["", f"{row['benchmark']}: {row['headline']}", f"{'rank':>6} {'value':>8} {'95% CI':>15}  run"]
        ci = f"[{row['ci95'][0]:.1f}, {row['ci95'][1]:.1f}]" if row.get("ci95") else "-"
        value = "-" if row["value"] is None else f"{row['value']:.1f}"
        state = f"verify: {row['verify']}" + (f"; left out: {row['excluded']}" if row["excluded"] else "")
        tie = " (tied)" if row.get("tied_with") else ""
        lines.append(f"{rank_text(row):>6} {value:>8} {ci:>15}  {_shown(row['run'])}{tie}  [{_shown(state)}]")
    return "\n".join(lines).lstrip("\n")


def _shown(text) -> str:
    from lmms_comparative.data import untrusted

    return untrusted.printable(str(text), lines=False)


def main(paths: list[str], output: str | None, verified_only: bool = False) -> int:
    """``lmms-comparative leaderboard RUN ... [-o OUT] [--verified-only]``: print the standings, write
    ``OUT/leaderboard.json`` (the standings and every pair's test), ``leaderboard.csv`` and
    ``leaderboard.tex``; 2 on bad input."""
    import sys
    from pathlib import Path

    from lmms_comparative.registry import BENCHMARKS
    from lmms_comparative.report.run_folders import folder, load_runs, write_file
    from lmms_comparative.reportlib.runs import ReportError

    passed: list = []
    try:
        runs = load_runs(paths, passed)
    except ReportError as exc:
        print(f"lmms-comparative leaderboard: error: {_shown(exc)}", file=sys.stderr)
        return 2
    for path, why in passed:
        print(f"lmms-comparative leaderboard: {_shown(f'{path}: passed over: {why}')}", file=sys.stderr)
    if len(runs) < 2:
        print(f"lmms-comparative leaderboard: error: {len(runs)} run(s) found: a ranking needs two", file=sys.stderr)
        return 2
    board = leaderboard(BENCHMARKS, runs, verified_only=verified_only)
    if not board["standings"]:
        print("lmms-comparative leaderboard: error: no headline of any benchmark in these runs", file=sys.stderr)
        return 2
    print(table(board))
    if output:
        import json

        try:
            out = folder(Path(output))
            write_file(out / "leaderboard.json", json.dumps(board, indent=1, ensure_ascii=False) + "\n")
            write_file(out / "leaderboard.csv", csv_text(board))
            write_file(out / "leaderboard.tex", latex_text(board))
        except ReportError as exc:  # a link where a file goes: never written through
            print(f"lmms-comparative leaderboard: error: {_shown(exc)}", file=sys.stderr)
            return 1
        print(f"wrote {_shown(Path(output))}/leaderboard.json, .csv, .tex")
    return 0


def ranking_html(benchmark, board: dict) -> str:
    """The Overview's ranking of one benchmark (three runs or more): per headline, the runs in
    order with value, interval, rank range (``data-rank-best``/``-worst``) and verify state."""
    import html

    rows = [r for r in board["standings"] if r["benchmark"] == benchmark.name]
    if not rows:
        return ""
    esc = lambda text: html.escape(str(text), quote=True)  # noqa: E731
    tables = []
    for headline in dict.fromkeys(r["headline"] for r in rows):
        body = []
        for r in (r for r in rows if r["headline"] == headline):
            ci = f" [{r['ci95'][0]:.1f}, {r['ci95'][1]:.1f}]" if r.get("ci95") else ""
            value = "-" if r["value"] is None else f"{r['value']:.1f}"
            tie = ' <span class="tied">tied</span>' if r.get("tied_with") else ""
            left_out = f' <span class="none">left out: {esc(r["excluded"])}</span>' if r["excluded"] else ""
            body.append(
                f'<tr data-run-name="{esc(r["run"])}" data-rank-best="{r["rank_best"] or ""}" '
                f'data-rank-worst="{r["rank_worst"] or ""}"><td class="rank">{esc(rank_text(r))}{tie}</td>'
                f"<td><code>{esc(r['run'])}</code>{left_out}</td><td>{value}{ci}</td>"
                f'<td class="verify-state">{esc(r["verify"])}</td></tr>'
            )
        tables.append(
            f'<table class="ranking" data-headline="{esc(headline)}"><caption>Ranking: {esc(headline)}</caption>'
            '<thead><tr><th scope="col">rank</th><th scope="col">run</th><th scope="col">value [95% CI]</th>'
            f'<th scope="col">verify</th></tr></thead><tbody>{"".join(body)}</tbody></table>'
        )
    note = (
        "Ranks: a run's best rank is 1 + the runs significantly better than it, its worst the runs not significantly "
        f"worse; paired tests of every pair (exact McNemar or permutation), Holm-adjusted at {board['alpha']}. "
        "Runs whose ranges overlap are tied."
    )
    return f'<div class="wide ranking-block">{"".join(tables)}<p class="note">{esc(note)}</p></div>'
