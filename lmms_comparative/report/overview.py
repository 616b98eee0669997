"""The HTML report's first page: the model team's question answered before any table.

Per benchmark, its headline values (its report part's ``headlines``: the paper's own, SubtleBench's
AVG, CompBench's Avg, VLM²-Bench's Overall, ...) for every run, with its 95% interval (the report
part's ``measure``, as the paper tables print it), the run's
``verify`` state and, where its items are not the release's, the dagger; the paper's best model and
its chance row beside them; and for two runs or more, each later run B against the first, A: the
paired difference B − A with its interval, p-value and flips, which are ``compare.compare``'s rows
(the numbers ``lmms-comparative compare`` prints and writes to compare.json, not computed again),
each linking to the benchmark's tab and to the flipped items in its browser.

A benchmark none of whose runs has the headline group (the demo runs five SubtleBench types, not
the group) shows the headline table's columns that the runs do have, one row each.

Every string from a results folder is escaped here (``html.escape``; ``urllib.parse.quote`` in a
link's fragment): this part of the page is HTML written by this module, not rendered Markdown.
"""

from __future__ import annotations

import html
import re
from urllib.parse import quote

from lmms_comparative.data.replies import group_leaves
from lmms_comparative.report.headlines import entries, headline_row
from lmms_comparative.report.leaderboard import ranking_html
from lmms_comparative.report.run_folders import verify_state
from lmms_comparative.reportlib.marks import DAGGER, kind, run_letter
from lmms_comparative.subsets import subset_of_tasks

# A reference row that is a chance level: "Random Guess", "Chance level", "Chance-Level", and a
# trivial baseline that answers the same every time (DiffSpot's "Always no-diff (trivial baseline)").
CHANCE_ROW = re.compile(r"chance|random|baseline", re.I)


def reference(spec: dict, column: str) -> tuple[tuple[str, float] | None, tuple[str, float] | None]:
    """The paper's best model in a table's column (name, value) and its chance row (name, value),
    each None where the table has none; human rows are neither."""
    at = spec["columns"].index(column)
    references = set(spec.get("reference", ()))
    models = [
        (name, values[at]) for name, values in spec["rows"].items() if name not in references and values[at] is not None
    ]
    chance = [
        (name, values[at])
        for name, values in spec["rows"].items()
        if name in references and CHANCE_ROW.search(name) and values[at] is not None
    ]
    return (max(models, key=lambda m: m[1]) if models else None), (chance[0] if chance else None)


def _fmt(value, digits: int) -> str:
    return "-" if value is None or value != value else f"{value:.{digits}f}"


def _esc(text) -> str:
    return html.escape(str(text), quote=True)


def _flip_link(benchmark, a: int, b: int, which: str, tasks: list[str], count: int) -> str:
    if not count:
        return "0"
    target = f"b-{benchmark.name}?flip={which}&a={a}&b={b}&tasks={quote(','.join(tasks), safe=',')}"
    title = f"the {count} unit(s) better under {'A' if which == 'a_only' else run_letter(b)}"
    return f'<a href="#{_esc(target)}" title="{_esc(title)}">{count}</a>'


def _difference(
    benchmark, rows: list[dict] | None, problem: str | None, task_a: str, task_b: str, index: int, digits: int
) -> str:
    """The cell of B − A for one entry: compare's row (delta, interval, p, test, flips), or why none."""
    row, why = headline_row(rows, problem, task_a, task_b)
    if row is None:
        return f'<span class="none">not compared: {_esc(why)}</span>'
    if why:  # a row that compares nothing: its own note
        return f'<span class="none">{_esc(why)}</span>'
    leaves = [r["task"] for r in rows or [] if r.get("group") == task_a and not r.get("category")] or [task_a]
    low, high = row["ci95"]
    sign = "ahead" if low > 0 else "behind" if high < 0 else "tied"
    flips = (
        f"{_flip_link(benchmark, 0, index, 'a_only', leaves, row['a_only'])} / "
        f"{_flip_link(benchmark, 0, index, 'b_only', leaves, row['b_only'])}"
    )
    return (
        f'<span class="delta {sign}">{row["delta"]:+.{digits}f}</span> '
        f'<span class="ci">[{low:.{digits}f}, {high:.{digits}f}]</span>'
        f'<span class="p">p = {row["p_value"]:.3g} ({_esc(row["test"])}, {row["n"]} units)</span>'
        f'<span class="flips">flips A / {run_letter(index)}: {flips}</span>'
    )


def _held(run, task: str) -> str:
    """The note "samples: 1 of 8 items" where the run's samples logs of ``task`` (a group's: its tasks') do
    not hold the items its results count, for a run that logged samples; else ""."""
    from lmms_comparative.report.run_units import asked_for_samples, items_held

    groups = run.results.get("group_subtasks") or {}
    held = [items_held(run, t) for t in (group_leaves(task, groups) if groups.get(task) else [task])]
    if any(counted is None for _, counted in held) or (
        any(logged is None for logged, _ in held) and not asked_for_samples(run)
    ):
        return ""
    logged, counted = sum(n or 0 for n, _ in held), sum(c or 0 for _, c in held)
    if logged == counted:
        return ""
    title = (
        "its samples logs do not hold the items its results count (an interrupted run, or files removed): the "
        "value is its results JSON's, which its samples do not back"
    )
    return f'<span class="partial itemset" title="{_esc(title)}">samples: {logged} of {counted} items</span>'


def _own_chance(run, task: str, digits: int) -> str:
    """The chance level of the run's own items where its task reports one (SubtleBench, CompBench)."""
    value = run.value(task, "chance")
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value != value:
        return ""
    return f'<span class="chance model">chance on these items: {value * 100:.{digits}f}</span>'


def benchmark_block(benchmark, runs: list, compared: list) -> str:
    """The overview of one benchmark: a table of its entries (rows) by run, reference and difference (columns)."""
    found = entries(benchmark, runs)
    if not found:
        return ""
    paper = benchmark.paper()["tables"]
    measure = benchmark.report_part().measure
    have = [i for i, r in enumerate(runs) if any(r.row(e.tasks[i]) for e in found)]
    subsets = {i: subset_of_tasks(runs[i], benchmark, [e.tasks[i] for e in found]) for i in have}
    head = []
    for i in have:
        mark = f" {DAGGER}" if subsets[i] else ""
        letter = run_letter(i)
        items = f'<span class="itemset">{_esc(kind(subsets[i]))}</span>' if subsets[i] else ""
        head.append(
            f'<th scope="col"><span class="letter">{letter}</span> <code>{_esc(runs[i].name)}</code>{mark}'
            f'<span class="verify">verify: {_esc(verify_state(runs[i]))}</span>{items}</th>'
        )
    head += [
        '<th scope="col">paper\'s best</th>',
        '<th scope="col">paper\'s chance <span class="source">on the paper\'s items</span></th>',
    ]
    pairs = [(index, rows, problem) for index, rows, problem in compared if 0 in have and index in have]
    head += [f'<th scope="col">{run_letter(index)} − A</th>' for index, _, _ in pairs]
    body = []
    for entry in found:
        spec = paper[entry.table]
        digits = (spec.get("column_digits") or [spec.get("digits", 1)] * len(spec["columns"]))[
            spec["columns"].index(entry.column)
        ]
        best, chance = reference(spec, entry.column)
        where = spec["source"].split(", ", 1)[-1]
        cells = [f'<th scope="row">{_esc(entry.label)}<span class="source">{_esc(where)}</span></th>']
        for i in have:
            value, ci = measure(runs[i], entry.table, entry.column) if runs[i].row(entry.tasks[i]) else (None, None)
            interval = f' <span class="ci">[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]</span>' if ci else ""
            label = (
                f"{run_letter(i)} {runs[i].name}{f' {DAGGER}' if subsets[i] else ''} (verify: {verify_state(runs[i])})"
            )
            extra = (
                (_held(runs[i], entry.tasks[i]) + _own_chance(runs[i], entry.tasks[i], digits))
                if runs[i].row(entry.tasks[i])
                else ""
            )
            cells.append(
                f'<td data-label="{_esc(label)}" data-run="{i}"><span class="value">{_fmt(value, digits)}</span>'
                f"{interval}{extra}</td>"
            )
        cells.append(
            f'<td data-label="paper\'s best">{_fmt(best[1], digits) if best else "-"}'
            + (f'<span class="model">{_esc(best[0])}</span>' if best else "")
            + "</td>"
        )
        named = f'<span class="model">{_esc(chance[0])}, the paper\'s items</span>' if chance else ""
        cells.append(f'<td data-label="paper\'s chance">{_fmt(chance[1], digits) if chance else "-"}{named}</td>')
        for index, rows, problem in pairs:
            cells.append(
                f'<td data-label="{run_letter(index)} − A" data-pair="{index}" class="difference">'
                f"{_difference(benchmark, rows, problem, entry.tasks[0], entry.tasks[index], index, digits)}</td>"
            )
        body.append(f'<tr data-task="{_esc(entry.tasks[0])}">{"".join(cells)}</tr>')
    notes = []
    missing = [runs[i].name for i in range(len(runs)) if i not in have]
    if missing:
        notes.append("Not in this benchmark: " + ", ".join(missing) + ".")
    return (
        f'<section class="overview-benchmark" data-benchmark="{_esc(benchmark.name)}">'
        f'<h3><a href="#b-{_esc(benchmark.name)}">{_esc(benchmark.title)}</a></h3>'
        '<div class="wide"><table class="overview"><thead><tr><th scope="col">headline, paper table</th>'
        f"{''.join(head)}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
        + "".join(f'<p class="note">{_esc(n)}</p>' for n in notes)
        + "</section>"
    )


def overview_html(benchmarks, runs: list, compared: list, board: dict | None = None) -> str:
    """The Overview's answer part: a block per benchmark present, in report order; with three runs
    or more, each block ends with the ranking (``leaderboard``)."""
    blocks = [
        b + (ranking_html(benchmark, board) if b and board and len(runs) >= 3 else "")
        for b, benchmark in ((benchmark_block(benchmark, runs, compared), benchmark) for benchmark in benchmarks)
    ]
    blocks = [b for b in blocks if b]
    if not blocks:
        return ""
    lead = (
        "Each run's headline score per benchmark, as its paper reports it, with its 95% interval"
        + (
            "; each later run against the first (A), unit by unit, as <code>lmms-comparative compare</code> computes it"
            if len(runs) > 1
            else ""
        )
        + "."
    )
    how = (
        "The paper's best model and its chance level (its chance row, on the paper's items) are for reference; a "
        "run's own chance level, on the items it ran, is under its value where its tasks report one"
    )
    if len(runs) > 1:
        how += (
            "; B − A is the paired difference on the units both runs scored, with its 95% paired bootstrap "
            "interval, its p-value and test, and the flips (units better under A / under B), each count a link "
            "to those items"
        )
    how += (
        f". {DAGGER}: not the release's items, not comparable with the paper's numbers. A benchmark's name opens "
        "its tab: the paper's tables and charts, every task and category, and the items."
    )
    return f'<h2>Overview</h2><p class="lead">{lead}</p>' + "".join(blocks) + f'<p class="note">{how}</p>'
