"""``lmms-comparative compare RUN_A RUN_B [RUN ...] [-o OUT]``: is B better than A, where, and on which
units? With more runs, every pair once.

Per task, group and category of the two runs (results folders of the same tasks: model runs or
``score`` runs), on the units both runs scored (by item key): A, B and B - A at the paper's scale,
a 95% paired bootstrap interval over the benchmark's scoring unit, a p-value (exact McNemar where a
unit is right or wrong, a paired permutation test otherwise), Holm-adjusted across the categories
of one task or group, the flips both ways, and the smallest difference the unit count can detect
at 80% power (statistics: ``metrics/paired.py``; docs/reports.md cites them).

A benchmark's units: an item by default (its ``correct``); a benchmark's ``report.compare_units``
says otherwise (VLM²-Bench's T/F pairs, CaptionQA's images with their questions); ``None`` there
means the task's metric has no per-unit score (corpus-level caption metrics), and the row says so.
A group's units are its tasks' units, stratified by task: the report part's ``compare_group`` says
whether its metric is the micro mean (SubtleBench's AVG, the default) or the mean of its tasks
(``macro``: CompBench's Avg, VLM²-Bench's Overall). Reading the units, and what is left out and
why: ``report/run_units.py``.
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote

from lmms_comparative.data import untrusted
from lmms_comparative.data.replies import group_leaves
from lmms_comparative.metrics.paired import compare_units, holm
from lmms_comparative.registry import of_task
from lmms_comparative.report.run_folders import folder, load_each, verify_state, write_file
from lmms_comparative.report.run_units import (
    CompareError,
    Units,
    check_comparable,
    items_held,
    leaves,
    left_out,
    listed_tasks,
    nothing_shared,
    shortfall,
    units_of,
)
from lmms_comparative.reportlib.marks import run_letter
from lmms_comparative.reportlib.runs import ReportError


class Pair(NamedTuple):
    """Both runs' units of a task, each run's scored, and the units both scored (sorted): found
    once per task and read by its row, its categories' rows and its group's row."""

    a: Units
    b: Units
    common: list[str]

    def alone(self) -> tuple[int, int]:
        """The units only A scored, and only B."""
        return len(self.a.values) - len(self.common), len(self.b.values) - len(self.common)


def _row(
    task: str,
    metric: str,
    units_a: Units,
    units_b: Units,
    common: list[str],
    category: str | None = None,
) -> dict:
    weights = [units_a.weights.get(u, 1.0) for u in common]
    binary = units_a.binary and units_b.binary
    numbers = compare_units(
        [units_a.values[u] for u in common],
        [units_b.values[u] for u in common],
        binary,
        weights=weights,
        scale=units_a.scale,
    )
    return {"task": task, "metric": metric, "category": category, **numbers}


def compare(a, b) -> list[dict]:
    """Comparison rows of runs ``a`` and ``b`` (report ``Run``s): groups and tasks both ran, each
    with its categories; p-values Holm-adjusted within each group or task. A task whose samples do
    not back a run's results row (no samples log, fewer or other items than the row counts, not
    scored) is a row with ``metric`` None, its ``note`` saying why and ``incomplete`` true, and so is
    a group with such a task: no difference is computed on part of its items."""
    tasks = sorted(t for t in (set(a.samples) & set(b.samples)) | (leaves(a) & leaves(b)) if of_task(t) is not None)
    if not tasks or any(leaves(r) and not any(of_task(t) is not None for t in r.samples) for r in (a, b)):
        raise CompareError(nothing_shared(a, b))
    missing = {t: "; ".join(w for w in (shortfall(a, "A", t), shortfall(b, "B", t)) if w) for t in tasks}
    missing = {t: why for t, why in missing.items() if why}
    check_comparable(a, b, [t for t in tasks if t not in missing])
    units = {task: (units_of(a, task), units_of(b, task)) for task in tasks if task not in missing}
    paired: dict[str, Pair] = {}
    for task, (ua, ub) in list(units.items()):  # per-unit scores in one run only: its side log is missing
        if (ua is None) != (ub is None):
            side = getattr(of_task(task), "side_logs", ())
            missing[task] = f"{'A' if ua is None else 'B'} has no per-unit score for it" + (
                f" (no {' or '.join(side)} log beside its samples)" if side else ""
            )
            del units[task]
        elif ua is not None and ub is not None:
            common = sorted(set(ua.values) & set(ub.values))
            if not common:  # nothing to pair
                missing[task] = (
                    "the two runs share no unit (item) of it: they scored other items, so there is nothing to pair"
                )
                del units[task]
            else:
                paired[task] = Pair(ua, ub, common)
    rows: list[dict] = []
    groups = {**(b.results.get("group_subtasks") or {}), **(a.results.get("group_subtasks") or {})}
    for group in sorted(
        g
        for g in groups
        if of_task(g) is not None and g in (a.results.get("groups") or {}) and g in (b.results.get("groups") or {})
    ):
        rows += _group_rows(group, group_leaves(group, groups), tasks, missing, paired, a, b)
    for task in tasks:
        if any(r["task"] == task for r in rows):
            continue
        if task in missing:
            rows.append(left_out(task, None, missing[task], a, b))
        elif task not in paired:
            rows.append(
                {
                    "task": task,
                    "metric": None,
                    "note": "no per-unit score (corpus-level metrics): not compared unit by unit",
                }
            )
        else:
            row = _task_row(task, paired[task], None)
            row["p_adjusted"] = row["p_value"]
            rows.append(row)
    for task in tasks:  # categories within a task (its items' domains; a benchmark's facets), adjusted within each
        if task in paired:
            rows += _category_rows(task, paired[task])
    return rows


# Every pair of N runs is N(N-1)/2 compares, each on every unit: the pairs are shared among forked
# workers (on Linux), one per core the process may use (``LMMS_COMPARATIVE_JOBS`` sets how many; 1: none).
# Forked, a worker reads the parent's runs without a copy or a pickle; only its rows come back.
# Each compare is seeded, so the rows are the same however the pairs are shared.
_FORKED_RUNS: list = []


def all_pairs(runs: list) -> dict[tuple[int, int], tuple[list[dict] | None, str | None]]:
    """``compare``'s rows for every pair of runs (i < j), or why a pair has none. Each run's units
    and item counts are read first, once (what a pair asks of its runs), so that every worker
    has them."""
    pairs = list(itertools.combinations(range(len(runs)), 2))
    workers = min(_jobs(), len(pairs))
    # Forked on Linux only: macOS's system libraries are not safe to use in a forked child, which is
    # why Python starts its workers afresh there; a fresh worker would have to be sent every run.
    if workers < 2 or len(pairs) < 3 or not sys.platform.startswith("linux"):
        return dict(zip(pairs, (_pair(runs, pair) for pair in pairs)))
    for run in runs:
        for task in run.samples:
            if of_task(task) is not None:
                items_held(run, task)
                units_of(run, task)
    _FORKED_RUNS[:] = runs
    try:
        # A worker that dies (killed, out of memory) breaks the pool with an error, never a wait.
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            found = list(pool.map(_forked_pair, pairs))
    finally:
        _FORKED_RUNS.clear()
    return dict(zip(pairs, found))


def _jobs() -> int:
    asked = os.environ.get("LMMS_COMPARATIVE_JOBS", "").strip()
    if asked.isdigit() and int(asked) > 0:
        return int(asked)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _forked_pair(pair: tuple[int, int]) -> tuple[list[dict] | None, str | None]:
    return _pair(_FORKED_RUNS, pair)


def _pair(runs: list, pair: tuple[int, int]) -> tuple[list[dict] | None, str | None]:
    try:
        return compare(runs[pair[0]], runs[pair[1]]), None
    except CompareError as exc:
        return None, str(exc)


def _group_rows(
    group: str, members: list[str], tasks: list[str], missing: dict[str, str], paired: dict[str, Pair], a, b
) -> list[dict]:
    """A group's row (over its tasks' units, stratified by task) and its tasks' rows, Holm-adjusted
    among them; a group with a task left out is left out too, with its tasks' rows."""
    out = [t for t in members if t in missing or t not in tasks]
    compared = [t for t in members if t in paired]
    if not compared and not out:
        return []
    parts = [_task_row(task, paired[task], group) for task in compared]
    _adjust(parts, holm)
    parts += [left_out(t, group, missing.get(t) or "not in both runs", a, b) for t in out]
    if out:
        note = (
            f"its task(s) {listed_tasks(out)} are not compared (their rows say why): a difference over the other "
            f"{len(compared)} would not be the group's"
        )
        return [left_out(group, None, note, a, b), *parts]
    benchmark = of_task(group)
    assert benchmark is not None  # ``compare`` passes the groups of ours only
    macro = benchmark.report_part().compare_group == "macro"
    values_a: list[float] = []
    values_b: list[float] = []
    weights: list[float] = []
    strata: list[int] = []  # the task's place among ``compared``: strata in the order of the tasks
    binary = True
    for place, (ua, ub, common) in enumerate(paired[task] for task in compared):
        values_a += [ua.values[u] for u in common]
        values_b += [ub.values[u] for u in common]
        weights += [ua.weights.get(u, 1.0) for u in common]
        strata += [place] * len(common)
        binary = binary and ua.binary and ub.binary
    numbers = compare_units(values_a, values_b, binary, strata, macro, weights, paired[compared[-1]].a.scale)
    head = {"task": group, "metric": paired[compared[0]].a.metric, "category": None, **numbers}
    alone = [paired[t].alone() for t in compared]
    head.update(a_alone=sum(a for a, _ in alone), b_alone=sum(b for _, b in alone))
    head["p_adjusted"] = head["p_value"]
    return [head, *parts]


def _category_rows(task: str, pair: Pair) -> list[dict]:
    """A task's rows per category of its units (its items' domains; each of a benchmark's facets
    apart), Holm-adjusted within each; none where the units fall in fewer than two."""
    rows: list[dict] = []
    ua, ub, common = pair
    for facet, categories in [(None, ua.categories), *sorted(ua.facets.items())]:
        found = sorted({categories[u] for u in common if u in categories})
        if len(found) < 2:
            continue
        parts = [
            _row(
                task,
                ua.metric,
                ua,
                ub,
                [u for u in common if categories.get(u) == c],
                category=f"{facet}: {c}" if facet else c,
            )
            for c in found
        ]
        for part in parts if facet else []:
            part["facet"] = facet
        _adjust(parts, holm)
        rows += parts
    return rows


def _task_row(task: str, pair: Pair, group: str | None) -> dict:
    """A task's row, with its flipped units by key and the prefix of the report's link to each: the
    item browser opens ``index.html`` + ``link`` + the encoded key on that unit's card (its items,
    for a unit made of several)."""
    ua, ub, common = pair
    row = _row(task, ua.metric, ua, ub, common)
    a_alone, b_alone = pair.alone()
    row.update(group=group, a_alone=a_alone, b_alone=b_alone)
    benchmark = of_task(task)
    flipped = {
        "a_only": [u for u in common if ua.values[u] > ub.values[u]],
        "b_only": [u for u in common if ub.values[u] > ua.values[u]],
    }
    row["flipped"] = flipped
    # The report's link to a unit: this prefix, then the unit's key percent-encoded
    # (``urllib.parse.quote(key, safe="")``; JavaScript's ``encodeURIComponent``).
    row["link"] = f"#b-{benchmark.name if benchmark else ''}?task={quote(task)}&item="
    return row


def _adjust(rows: list[dict], holm) -> None:
    for row, adjusted in zip(rows, holm([r["p_value"] for r in rows])):
        row["p_adjusted"] = adjusted


def _cell(value, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def table(rows: list[dict], a_name: str, b_name: str) -> str:
    """The printed table: one line per row, the runs' columns headed A and B (the first line printed
    names them in full: two names cut to a column's width can read the same). Task and category
    names come from the folders: each is shown through ``untrusted.printable``, one line, inert."""
    width = max([16] + [len(_shown(r.get("category") or "")) for r in rows if r.get("metric") is not None])
    lines = [
        f"{'task':<34} {'category':<{width}} {'n':>6} {'A':>10} {'B':>10} {'B-A':>7} {'95% CI':>15} "
        f"{'p':>8} {'p_holm':>8} {'A only':>7} {'B only':>7} {'MDD':>6}"
    ]
    for r in rows:
        if r.get("metric") is None:
            lines.append(f"{_shown(r['task']):<34} {_shown(r['note'])}")
            continue
        ci = f"[{r['ci95'][0]:.1f}, {r['ci95'][1]:.1f}]"
        lines.append(
            f"{_shown(r['task']):<34} {_shown(r.get('category') or ''):<{width}} {r['n']:>6} "
            f"{_cell(r['a']):>10} {_cell(r['b']):>10} {r['delta']:>+7.1f} {ci:>15} {r['p_value']:>8.3g} "
            f"{r['p_adjusted']:>8.3g} {r['a_only']:>7} {r['b_only']:>7} {_cell(r['mdd']):>6}"
        )
    return "\n".join(lines)


def _shown(text) -> str:
    """A string of a submitted folder for the terminal: escapes for its controls, on one line."""
    return untrusted.printable(str(text), lines=False)


def main(paths: list[str], output: str | None, unverified: bool = False) -> int:
    """``lmms-comparative compare RUN_A RUN_B [RUN_C ...]``: every pair of runs once (B against A,
    C against A, C against B, ...): print each pair's table, write ``OUT/compare.json`` (every
    pair's rows, each with its runs' names and verify states); 2 on bad input; 1 when a run's
    verdict is FAIL (``verify``'s on this machine, current; a claimed FAIL that came with the folder
    decides nothing), unless ``unverified``; 1 too, after printing and writing every row, when a
    row is left out because a run's samples do not back its results row (an interrupted run): a
    script must not take a part of the comparison for all of it."""
    passed: list[tuple[Path, str]] = []
    try:
        runs = load_each(paths, passed)
    except (CompareError, ReportError) as exc:
        print(f"lmms-comparative compare: error: {_shown(exc)}", file=sys.stderr)
        return 2
    for path, why in passed:  # links, pipes, folders past the depth bound: never read, said once
        print(f"lmms-comparative compare: {_shown(f'{path}: passed over: {why}')}", file=sys.stderr)
    states = [verify_state(r) for r in runs]
    print(
        _shown(
            ", ".join(f"{run_letter(i)} = {r.name} ({paths[i]}; verify: {states[i]})" for i, r in enumerate(runs))
            + "; units both runs of a pair scored"
        )
    )
    failed = [f"{run_letter(i)} ({paths[i]})" for i, state in enumerate(states) if state == "FAIL"]
    if failed and not unverified:
        print(
            f"lmms-comparative compare: {' and '.join(failed)} FAIL{'S' if len(failed) == 1 else ''} verify: "
            "its numbers do not follow from its samples; not compared (--unverified compares anyway)",
            file=sys.stderr,
        )
        return 1
    listed: list[dict] = []
    incomplete: list[str] = []
    for (i, j), (rows, problem) in all_pairs(runs).items():
        a, b = runs[i], runs[j]
        if rows is None:
            print(
                f"lmms-comparative compare: error: {run_letter(j)} against {run_letter(i)}: {_shown(problem)}",
                file=sys.stderr,
            )
            return 2
        if len(runs) > 2:
            print(f"\n{run_letter(j)} against {run_letter(i)} (A = {_shown(a.name)}, B = {_shown(b.name)}):")
        print(table(rows, a.name, b.name))
        only = [
            f"{label} only: {listed_tasks(sorted(mine - theirs))}"
            for label, mine, theirs in (("A", leaves(a), leaves(b)), ("B", leaves(b), leaves(a)))
            if mine - theirs
        ]
        if only:
            print(_shown(f"not in both runs, not compared: {'; '.join(only)}"))
        incomplete += [r["task"] for r in rows if r.get("incomplete")]
        listed += [
            {**row, "run_a": a.name, "run_b": b.name, "verify_a": states[i], "verify_b": states[j]} for row in rows
        ]
    incomplete = sorted(set(incomplete))
    if incomplete:
        print(
            _shown(
                f"left out: {listed_tasks(incomplete)}: the runs' samples do not back their results rows there "
                "(each row says why)"
            )
        )
    if output:
        try:
            write_file(folder(Path(output)) / "compare.json", json.dumps(listed, indent=1) + "\n")
        except ReportError as exc:  # a link where compare.json goes: never written through
            print(f"lmms-comparative compare: error: {_shown(exc)}", file=sys.stderr)
            return 1
        print(f"wrote {_shown(Path(output) / 'compare.json')}")
    # Printed and written in full; the status tells a script that it is not the whole comparison.
    if incomplete:
        print(
            f"lmms-comparative compare: {len(incomplete)} row(s) not compared ({_shown(listed_tasks(incomplete))}): "
            "a run's samples do not back its results there; exit 1",
            file=sys.stderr,
        )
        return 1
    return 0
