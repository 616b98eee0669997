"""``lmms-comparative compare RUN_A RUN_B [-o OUT]``: is B better than A, where, and on which units?

Per task, group and category of the two runs (results folders of the same tasks: model runs or
``score`` runs), on the units both runs scored (by item key): A, B and B - A at the paper's scale,
a 95% paired bootstrap interval over the benchmark's scoring unit, a p-value (exact McNemar where a
unit is right or wrong, a paired permutation test otherwise), Holm-adjusted across the categories
of one task or group, the flips both ways, and the smallest difference the unit count can detect
at 80% power (statistics: ``metrics/paired.py``; docs/reports.md cites them).

A benchmark's units: an item by default (its ``correct``); a benchmark's ``report.compare_units``
says otherwise (VLM²-Bench's T/F pairs, CaptionQA's images with their questions); ``None`` there
means the task's metric has no per-unit score (corpus-level caption metrics), and the row says so.
A group's units are its tasks' units, stratified by task: the report part's ``compare_group`` says whether
its metric is the micro mean (SubtleBench's AVG, the default) or the mean of its tasks (``macro``:
CompBench's Avg, VLM²-Bench's Overall).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from lmms_comparative.data import untrusted
from lmms_comparative.data.replies import group_leaves, sample_key
from lmms_comparative.metrics.paired import compare_units, holm
from lmms_comparative.provenance import KEY
from lmms_comparative.registry import of_task
from lmms_comparative.report.runs import folder, load_pair, verify_state, write_file
from lmms_comparative.reportlib.runs import ReportError


class CompareError(ValueError):
    """Runs that cannot be compared: one line."""


@dataclass
class Units:
    """A task's scoring units in one run: unit key -> score, each unit's weight, whether a score is
    right or wrong, the metric the row stands for, its scale, and each unit's category."""

    values: dict[str, float]
    binary: bool = True
    metric: str = "accuracy"
    scale: float = 100.0
    weights: dict[str, float] = field(default_factory=dict)
    categories: dict[str, str] = field(default_factory=dict)


def item_units(run, task: str) -> Units | None:
    """The default: an item per unit, scored by its ``correct``, categorised by its ``domain``
    where it has one (the per-item dict our ``process_results`` logs under every metric)."""
    benchmark = of_task(task)
    rows = run.samples.get(task)
    if benchmark is None or not rows:
        return None
    key = benchmark.item_key
    units = Units({})
    for row in rows:
        unit = sample_key(row, key)
        item = next((v for v in row.values() if isinstance(v, dict) and "correct" in v), None)
        if unit is None or item is None:
            return None
        units.values[unit] = float(item.get("correct") or 0)
        if item.get("domain"):
            units.categories[unit] = str(item["domain"])
    return units


def units_of(run, task: str) -> Units | None:
    """The benchmark's own units for ``task`` (``report.compare_units``: a dict of ``Units``'s
    fields, or None), else the default."""
    benchmark = of_task(task)
    own = benchmark.report_part().compare_units if benchmark else None
    if own is None:
        return item_units(run, task)
    found = own(run, task)
    return Units(**found) if found is not None else None


def _protocol(run, task: str) -> tuple:
    entry = ((run.results.get(KEY) or {}).get("tasks") or {}).get(task) or {}
    data = entry.get("data") or {}
    return (data.get("source"), data.get("repo"), data.get("commit"), data.get("fingerprint"), entry.get("prompts"))


def _check_comparable(a, b, tasks: list[str]) -> None:
    for task in tasks:
        pa, pb = _protocol(a, task), _protocol(b, task)
        if pa[:4] != pb[:4]:
            raise CompareError(f"{task}: the runs read different data ({pa[0]} {pa[1] or ''}{(pa[2] or pa[3] or '')[:12]} vs {pb[0]} {pb[1] or ''}{(pb[2] or pb[3] or '')[:12]}): not comparable item by item")
        if pa[4] != pb[4]:
            raise CompareError(f"{task}: the runs used different prompts or protocol files (prompt sha256 {str(pa[4])[:12]} vs {str(pb[4])[:12]}): not comparable")


def _row(task: str, metric: str, units_a: Units, units_b: Units, common: list[str], strata: list[str] | None = None, macro: bool = False, category: str | None = None) -> dict:
    weights = [units_a.weights.get(u, 1.0) for u in common]
    binary = units_a.binary and units_b.binary
    numbers = compare_units([units_a.values[u] for u in common], [units_b.values[u] for u in common], binary, strata, macro, weights, units_a.scale)
    return {"task": task, "metric": metric, "category": category, **numbers}


def compare(a, b) -> list[dict]:
    """Comparison rows of runs ``a`` and ``b`` (report ``Run``s): groups and tasks both ran, each
    with its categories; p-values Holm-adjusted within each group or task."""
    tasks = sorted(t for t in set(a.samples) & set(b.samples) if of_task(t) is not None)
    if not tasks:
        raise CompareError(_nothing_shared(a, b))
    _check_comparable(a, b, tasks)
    units = {task: (units_of(a, task), units_of(b, task)) for task in tasks}
    rows: list[dict] = []
    groups = {**(b.results.get("group_subtasks") or {}), **(a.results.get("group_subtasks") or {})}
    for group in sorted(g for g in groups if of_task(g) is not None and g in (a.results.get("groups") or {}) and g in (b.results.get("groups") or {})):
        leaves = [t for t in group_leaves(group, groups) if t in units and None not in units[t]]
        if not leaves:
            continue
        macro = of_task(group).report_part().compare_group == "macro"
        merged_a, merged_b, strata, common = Units({}), Units({}), [], []
        for task in leaves:
            ua, ub = units[task]
            for unit in sorted(set(ua.values) & set(ub.values)):
                key = f"{task}/{unit}"
                merged_a.values[key], merged_b.values[key] = ua.values[unit], ub.values[unit]
                merged_a.weights[key] = ua.weights.get(unit, 1.0)
                strata.append(task)
                common.append(key)
            merged_a.binary &= ua.binary and ub.binary
            merged_a.scale = ua.scale
        merged_b.binary = merged_a.binary
        head = _row(group, units[leaves[0]][0].metric, merged_a, merged_b, common, strata, macro)
        head.update(a_alone=sum(len(set(units[t][0].values) - set(units[t][1].values)) for t in leaves), b_alone=sum(len(set(units[t][1].values) - set(units[t][0].values)) for t in leaves))
        parts = [_task_row(task, units[task], group) for task in leaves]
        _adjust(parts, holm)
        head["p_adjusted"] = head["p_value"]
        rows += [head, *parts]
    for task in tasks:
        if any(r["task"] == task for r in rows):
            continue
        if None in units[task]:
            rows.append({"task": task, "metric": None, "note": "no per-unit score (corpus-level metrics): not compared unit by unit"})
            continue
        row = _task_row(task, units[task], None)
        row["p_adjusted"] = row["p_value"]
        rows.append(row)
    for task in tasks:  # categories within a task (its items' domains), adjusted within the task
        pair = units[task]
        if None in pair or not pair[0].categories:
            continue
        common = sorted(set(pair[0].values) & set(pair[1].values))
        found = sorted({pair[0].categories[u] for u in common if u in pair[0].categories})
        if len(found) < 2:
            continue
        parts = [_row(task, pair[0].metric, pair[0], pair[1], [u for u in common if pair[0].categories.get(u) == c], category=c) for c in found]
        _adjust(parts, holm)
        rows += parts
    return rows


def _listed(tasks: list[str]) -> str:
    return ", ".join(tasks[:4]) + (f" and {len(tasks) - 4} more" if len(tasks) > 4 else "") if tasks else "none"


def _nothing_shared(a, b) -> str:
    """Why two runs have no task to compare: a run without samples logs of our tasks, tasks both
    ran with samples in one only, or no task in common."""
    runs = {"A": a, "B": b}
    logged = {k: sorted(t for t in r.samples if of_task(t) is not None) for k, r in runs.items()}
    ran = {k: sorted(t for t in (r.results.get("results") or {}) if of_task(t) is not None) for k, r in runs.items()}
    bare = [f"{k} ({runs[k].name})" for k in runs if ran[k] and not logged[k]]
    if bare:
        return f"{' and '.join(bare)} has no samples log of our tasks beside its results: run {'it' if len(bare) == 1 else 'them'} with --log_samples"
    both = sorted(set(ran["A"]) & set(ran["B"]))
    if both:
        return f"the tasks both runs ran ({_listed(both)}) have samples logs in one run only (A has them for {_listed(logged['A'])}; B for {_listed(logged['B'])}): run both with --log_samples"
    return f"the runs share no task: A ({a.name}) ran {_listed(ran['A'])}; B ({b.name}) ran {_listed(ran['B'])}: compare two runs of the same tasks"


def _task_row(task: str, pair: tuple, group: str | None) -> dict:
    ua, ub = pair
    common = sorted(set(ua.values) & set(ub.values))
    row = _row(task, ua.metric, ua, ub, common)
    row.update(group=group, a_alone=len(set(ua.values) - set(ub.values)), b_alone=len(set(ub.values) - set(ua.values)))
    return row


def _adjust(rows: list[dict], holm) -> None:
    for row, adjusted in zip(rows, holm([r["p_value"] for r in rows])):
        row["p_adjusted"] = adjusted


def flips(a, b, task: str) -> dict[str, list[str]]:
    """The units of ``task`` right under A only (``a_only``) and under B only (``b_only``)."""
    ua, ub = units_of(a, task), units_of(b, task)
    if ua is None or ub is None:
        return {"a_only": [], "b_only": []}
    common = sorted(set(ua.values) & set(ub.values))
    return {"a_only": [u for u in common if ua.values[u] > ub.values[u]], "b_only": [u for u in common if ub.values[u] > ua.values[u]]}


def _cell(value, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def table(rows: list[dict], a_name: str, b_name: str) -> str:
    """The printed table: one line per row, the runs' columns headed A and B (the first line printed
    names them in full: two names cut to a column's width can read the same). Task and category
    names come from the folders: each is shown through ``untrusted.printable``, one line, inert."""
    lines = [f"{'task':<34} {'category':<16} {'n':>6} {'A':>10} {'B':>10} {'B-A':>7} {'95% CI':>15} {'p':>8} {'p_holm':>8} {'A only':>7} {'B only':>7} {'MDD':>6}"]
    for r in rows:
        if r.get("metric") is None:
            lines.append(f"{_shown(r['task']):<34} {_shown(r['note'])}")
            continue
        ci = f"[{r['ci95'][0]:.1f}, {r['ci95'][1]:.1f}]"
        lines.append(
            f"{_shown(r['task']):<34} {_shown(r.get('category') or ''):<16} {r['n']:>6} {_cell(r['a']):>10} {_cell(r['b']):>10} {r['delta']:>+7.1f} {ci:>15} {r['p_value']:>8.3g} {r['p_adjusted']:>8.3g} {r['a_only']:>7} {r['b_only']:>7} {_cell(r['mdd']):>6}"
        )
    return "\n".join(lines)


def _shown(text) -> str:
    """A string of a submitted folder for the terminal: escapes for its controls, on one line."""
    return untrusted.printable(str(text), lines=False)


def main(run_a: str, run_b: str, output: str | None, unverified: bool = False) -> int:
    """``lmms-comparative compare``: print the table, write ``OUT/compare.json``; 2 on bad input;
    1 when a run's verdict is FAIL (``verify``'s on this machine, current; a claimed FAIL that came
    with the folder decides nothing), unless ``unverified``."""
    try:
        a, b = load_pair(run_a, run_b)
    except (CompareError, ReportError) as exc:
        print(f"lmms-comparative compare: error: {_shown(exc)}", file=sys.stderr)
        return 2
    states = {"a": verify_state(a), "b": verify_state(b)}
    print(_shown(f"A = {a.name} ({run_a}; verify: {states['a']}), B = {b.name} ({run_b}; verify: {states['b']}); units both runs scored"))
    failed = [f"{label.upper()} ({path})" for label, path in (("a", run_a), ("b", run_b)) if states[label] == "FAIL"]
    if failed and not unverified:
        print(f"lmms-comparative compare: {' and '.join(failed)} FAIL{'S' if len(failed) == 1 else ''} verify: its numbers do not follow from its samples; not compared (--unverified compares anyway)", file=sys.stderr)
        return 1
    try:
        rows = compare(a, b)
    except CompareError as exc:
        print(f"lmms-comparative compare: error: {_shown(exc)}", file=sys.stderr)
        return 2
    print(table(rows, a.name, b.name))
    if output:
        listed = [{**row, "run_a": a.name, "run_b": b.name, "verify_a": states["a"], "verify_b": states["b"]} for row in rows]
        try:
            write_file(folder(Path(output)) / "compare.json", json.dumps(listed, indent=1) + "\n")
        except ReportError as exc:  # a link where compare.json goes: never written through
            print(f"lmms-comparative compare: error: {_shown(exc)}", file=sys.stderr)
            return 1
        print(f"wrote {_shown(Path(output) / 'compare.json')}")
    return 0
