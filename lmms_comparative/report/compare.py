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
from lmms_comparative.data.generating import logged_samples
from lmms_comparative.data.replies import group_leaves, sample_key
from lmms_comparative.metrics.paired import compare_units, holm
from lmms_comparative.provenance import KEY
from lmms_comparative.registry import of_task
from lmms_comparative.report.run_folders import folder, load_pair, verify_state, write_file
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
    # Further ways the benchmark's items are grouped, each compared apart (Holm within each):
    # {facet: {unit key: category}}, e.g. DiffSpot's tier, operator and domain.
    facets: dict[str, dict[str, str]] = field(default_factory=dict)


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
            raise CompareError(
                f"{task}: the runs read different data ({pa[0]} {pa[1] or ''}{(pa[2] or pa[3] or '')[:12]} vs {pb[0]} {pb[1] or ''}{(pb[2] or pb[3] or '')[:12]}): not comparable item by item"
            )
        if pa[4] != pb[4]:
            raise CompareError(
                f"{task}: the runs used different prompts or protocol files (prompt sha256 {str(pa[4])[:12]} vs {str(pb[4])[:12]}): not comparable"
            )


def _row(
    task: str,
    metric: str,
    units_a: Units,
    units_b: Units,
    common: list[str],
    strata: list[str] | None = None,
    macro: bool = False,
    category: str | None = None,
) -> dict:
    weights = [units_a.weights.get(u, 1.0) for u in common]
    binary = units_a.binary and units_b.binary
    numbers = compare_units(
        [units_a.values[u] for u in common],
        [units_b.values[u] for u in common],
        binary,
        strata,
        macro,
        weights,
        units_a.scale,
    )
    return {"task": task, "metric": metric, "category": category, **numbers}


def _leaves(run) -> set[str]:
    """The tasks of ours a run has a results row for (its groups aside)."""
    groups = run.results.get("group_subtasks") or {}
    return {
        t
        for t in run.results.get("results") or {}
        if of_task(t) is not None and t not in (run.results.get("groups") or {}) and not groups.get(t)
    }


def asked_for_samples(run) -> bool | None:
    """Whether the run's command line asked for samples logs (``data.generating.logged_samples``)."""
    return logged_samples(run.results)


def items_held(run, task: str) -> tuple[int | None, int | None]:
    """(the distinct items of ``task`` in the run's samples log, None without one; the items its
    results row counts: the record's item count, else lmms-eval's ``n-samples``, None where neither says)."""
    benchmark = of_task(task)
    rows = run.samples.get(task)
    logged = (
        None
        if rows is None or benchmark is None
        else len({k for r in rows if (k := sample_key(r, benchmark.item_key)) is not None})
    )
    entry = ((run.results.get(KEY) or {}).get("tasks") or {}).get(task)
    count = (
        (entry.get("items") or {}).get("count")
        if isinstance(entry, dict) and isinstance(entry.get("items"), dict)
        else None
    )
    if not isinstance(count, int) or isinstance(count, bool):
        n = (run.results.get("n-samples") or {}).get(task)
        count = n.get("effective") if isinstance(n, dict) else None
    return logged, count if isinstance(count, int) and not isinstance(count, bool) and count >= 0 else None


def _short(run, label: str, task: str) -> str | None:
    """Why ``run``'s samples do not back its results row of ``task`` (None: they do), with what
    ``verify`` makes of that."""
    logged, counted = items_held(run, task)
    state = verify_state(run)
    verdict = f"{label} fails verify" if state == "FAIL" else f"verify FAILs such a run ({label}: {state})"
    if task not in _leaves(run):
        return f"{label} has its samples log but no results row for it ({verdict})"
    reason = run.mapping(task, "counts").get("failure") or run.mapping(task, "counts").get("judge_failure")
    if reason:
        return f"{label} did not score it ({' '.join(str(reason).split())[:200]})"
    if logged is None:
        if asked_for_samples(run) is False:
            return f"{label} was run without --log_samples: no per-item results to pair"
        why = (
            "though the run logged samples (--log_samples): the run was interrupted or the file removed"
            if asked_for_samples(run)
            else "(the run was interrupted, the file removed, or it was run without --log_samples)"
        )
        of = f" (0 of the {counted} items its results row counts)" if counted else ""
        return f"{label} has no samples log for it{of}, {why}; verify cannot re-derive it (UNVERIFIED){', and ' + label + ' fails verify' if state == 'FAIL' else ''}"
    if counted is not None and logged != counted:
        held = (
            f"{logged} of the {counted} items its results row counts (the run stopped early, or the log was cut)"
            if logged < counted
            else f"{logged} items, not the {counted} its results row counts (items added)"
        )
        return f"{label}'s samples log holds {held}: a difference would rest on {min(logged, counted)} of {counted} items, and {verdict}"
    return None


def _left_out(task: str, group: str | None, note: str, a, b, incomplete: bool = True) -> dict:
    """A row compare leaves out, with why; ``incomplete``: the runs' files do not back their results rows."""
    return {
        "task": task,
        "metric": None,
        "category": None,
        "group": group,
        "note": f"not compared: {note}",
        "incomplete": incomplete,
        "items_a": list(items_held(a, task)),
        "items_b": list(items_held(b, task)),
    }


def compare(a, b) -> list[dict]:
    """Comparison rows of runs ``a`` and ``b`` (report ``Run``s): groups and tasks both ran, each
    with its categories; p-values Holm-adjusted within each group or task. A task whose samples do
    not back a run's results row (no samples log, fewer or other items than the row counts, not
    scored) is a row with ``metric`` None, its ``note`` saying why and ``incomplete`` true, and so is
    a group with such a task: no difference is computed on part of its items."""
    tasks = sorted(t for t in (set(a.samples) & set(b.samples)) | (_leaves(a) & _leaves(b)) if of_task(t) is not None)
    if not tasks or any(_leaves(r) and not any(of_task(t) is not None for t in r.samples) for r in (a, b)):
        raise CompareError(_nothing_shared(a, b))
    missing = {t: "; ".join(w for w in (_short(a, "A", t), _short(b, "B", t)) if w) for t in tasks}
    missing = {t: why for t, why in missing.items() if why}
    _check_comparable(a, b, [t for t in tasks if t not in missing])
    units = {task: (units_of(a, task), units_of(b, task)) for task in tasks if task not in missing}
    for task, pair in list(units.items()):  # per-unit scores in one run only: its side log is missing
        if (pair[0] is None) != (pair[1] is None):
            side = getattr(of_task(task), "side_logs", ())
            missing[task] = f"{'A' if pair[0] is None else 'B'} has no per-unit score for it" + (
                f" (no {' or '.join(side)} log beside its samples)" if side else ""
            )
            del units[task]
        elif None not in pair and not set(pair[0].values) & set(pair[1].values):  # nothing to pair
            missing[task] = (
                "the two runs share no unit (item) of it: they scored other items, so there is nothing to pair"
            )
            del units[task]
    rows: list[dict] = []
    groups = {**(b.results.get("group_subtasks") or {}), **(a.results.get("group_subtasks") or {})}
    for group in sorted(
        g
        for g in groups
        if of_task(g) is not None and g in (a.results.get("groups") or {}) and g in (b.results.get("groups") or {})
    ):
        members = group_leaves(group, groups)
        out = [t for t in members if t in missing or t not in tasks]
        leaves = [t for t in members if t in units and None not in units[t]]
        if not leaves and not out:
            continue
        parts = [_task_row(task, units[task], group) for task in leaves]
        _adjust(parts, holm)
        parts += [_left_out(t, group, missing.get(t) or "not in both runs", a, b) for t in out]
        if out:
            rows += [
                _left_out(
                    group,
                    None,
                    f"its task(s) {_listed(out)} are not compared (their rows say why): a difference over the other {len(leaves)} would not be the group's",
                    a,
                    b,
                ),
                *parts,
            ]
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
        head.update(
            a_alone=sum(len(set(units[t][0].values) - set(units[t][1].values)) for t in leaves),
            b_alone=sum(len(set(units[t][1].values) - set(units[t][0].values)) for t in leaves),
        )
        head["p_adjusted"] = head["p_value"]
        rows += [head, *parts]
    for task in tasks:
        if any(r["task"] == task for r in rows):
            continue
        if task in missing:
            rows.append(_left_out(task, None, missing[task], a, b))
        elif None in units[task]:
            rows.append(
                {
                    "task": task,
                    "metric": None,
                    "note": "no per-unit score (corpus-level metrics): not compared unit by unit",
                }
            )
        else:
            row = _task_row(task, units[task], None)
            row["p_adjusted"] = row["p_value"]
            rows.append(row)
    for task in tasks:  # categories within a task (its items' domains; a benchmark's facets), adjusted within each
        ua, ub = units.get(task, (None, None))
        if ua is None or ub is None:
            continue
        common = sorted(set(ua.values) & set(ub.values))
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
        asked = [k for k in runs if ran[k] and not logged[k] and asked_for_samples(runs[k])]
        said = (
            f" ({' and '.join(asked)}: its results say it was, so its logs were removed, or the run was interrupted before writing them)"
            if asked
            else ""
        )
        return f"{' and '.join(bare)} has no samples log of our tasks beside its results: run {'it' if len(bare) == 1 else 'them'} with --log_samples{said}"
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
    return {
        "a_only": [u for u in common if ua.values[u] > ub.values[u]],
        "b_only": [u for u in common if ub.values[u] > ua.values[u]],
    }


def _cell(value, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def table(rows: list[dict], a_name: str, b_name: str) -> str:
    """The printed table: one line per row, the runs' columns headed A and B (the first line printed
    names them in full: two names cut to a column's width can read the same). Task and category
    names come from the folders: each is shown through ``untrusted.printable``, one line, inert."""
    width = max([16] + [len(_shown(r.get("category") or "")) for r in rows if r.get("metric") is not None])
    lines = [
        f"{'task':<34} {'category':<{width}} {'n':>6} {'A':>10} {'B':>10} {'B-A':>7} {'95% CI':>15} {'p':>8} {'p_holm':>8} {'A only':>7} {'B only':>7} {'MDD':>6}"
    ]
    for r in rows:
        if r.get("metric") is None:
            lines.append(f"{_shown(r['task']):<34} {_shown(r['note'])}")
            continue
        ci = f"[{r['ci95'][0]:.1f}, {r['ci95'][1]:.1f}]"
        lines.append(
            f"{_shown(r['task']):<34} {_shown(r.get('category') or ''):<{width}} {r['n']:>6} {_cell(r['a']):>10} {_cell(r['b']):>10} {r['delta']:>+7.1f} {ci:>15} {r['p_value']:>8.3g} {r['p_adjusted']:>8.3g} {r['a_only']:>7} {r['b_only']:>7} {_cell(r['mdd']):>6}"
        )
    return "\n".join(lines)


def _shown(text) -> str:
    """A string of a submitted folder for the terminal: escapes for its controls, on one line."""
    return untrusted.printable(str(text), lines=False)


def main(run_a: str, run_b: str, output: str | None, unverified: bool = False) -> int:
    """``lmms-comparative compare``: print the table, write ``OUT/compare.json``; 2 on bad input;
    1 when a run's verdict is FAIL (``verify``'s on this machine, current; a claimed FAIL that came
    with the folder decides nothing), unless ``unverified``; 1 too, after printing and writing every
    row, when a row is left out because a run's samples do not back its results row (an
    interrupted run): a script must not take a part of the comparison for all of it."""
    passed: list[tuple[Path, str]] = []
    try:
        a, b = load_pair(run_a, run_b, passed)
    except (CompareError, ReportError) as exc:
        print(f"lmms-comparative compare: error: {_shown(exc)}", file=sys.stderr)
        return 2
    for path, why in passed:  # links, pipes, folders past the depth bound: never read, said once
        print(f"lmms-comparative compare: {_shown(f'{path}: passed over: {why}')}", file=sys.stderr)
    states = {"a": verify_state(a), "b": verify_state(b)}
    print(
        _shown(
            f"A = {a.name} ({run_a}; verify: {states['a']}), B = {b.name} ({run_b}; verify: {states['b']}); units both runs scored"
        )
    )
    failed = [f"{label.upper()} ({path})" for label, path in (("a", run_a), ("b", run_b)) if states[label] == "FAIL"]
    if failed and not unverified:
        print(
            f"lmms-comparative compare: {' and '.join(failed)} FAIL{'S' if len(failed) == 1 else ''} verify: its numbers do not follow from its samples; not compared (--unverified compares anyway)",
            file=sys.stderr,
        )
        return 1
    try:
        rows = compare(a, b)
    except CompareError as exc:
        print(f"lmms-comparative compare: error: {_shown(exc)}", file=sys.stderr)
        return 2
    print(table(rows, a.name, b.name))
    only = [
        f"{label} only: {_listed(sorted(mine - theirs))}"
        for label, mine, theirs in (("A", _leaves(a), _leaves(b)), ("B", _leaves(b), _leaves(a)))
        if mine - theirs
    ]
    if only:
        print(_shown(f"not in both runs, not compared: {'; '.join(only)}"))
    incomplete = [r["task"] for r in rows if r.get("incomplete")]
    if incomplete:
        print(
            _shown(
                f"left out: {_listed(incomplete)}: the runs' samples do not back their results rows there (each row says why)"
            )
        )
    if output:
        listed = [
            {**row, "run_a": a.name, "run_b": b.name, "verify_a": states["a"], "verify_b": states["b"]} for row in rows
        ]
        try:
            write_file(folder(Path(output)) / "compare.json", json.dumps(listed, indent=1) + "\n")
        except ReportError as exc:  # a link where compare.json goes: never written through
            print(f"lmms-comparative compare: error: {_shown(exc)}", file=sys.stderr)
            return 1
        print(f"wrote {_shown(Path(output) / 'compare.json')}")
    if incomplete:  # printed and written in full; the status tells a script that it is not the whole comparison
        print(
            f"lmms-comparative compare: {len(incomplete)} row(s) not compared ({_shown(_listed(incomplete))}): a run's samples do not back its results there; exit 1",
            file=sys.stderr,
        )
        return 1
    return 0
