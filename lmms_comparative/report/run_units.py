"""What ``compare`` pairs in each run, and what it leaves out: a task's scoring units in a run (an
item by default, a benchmark's own ``report.compare_units`` otherwise), whether two runs read the
same data and prompts, and whether a run's samples back its results row (the items its samples log
holds against the items its results count), with why not in words."""

from __future__ import annotations

from dataclasses import dataclass, field

from lmms_comparative.data.generating import logged_samples
from lmms_comparative.data.replies import ItemKey, sample_key
from lmms_comparative.provenance import KEY
from lmms_comparative.registry import of_task
from lmms_comparative.report.run_folders import verify_state
from lmms_comparative.reportlib.runs import remembered


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
    units = Units({})
    for row, unit in zip(rows, _keys(run, task, benchmark.item_key)):
        item = next((v for v in row.values() if isinstance(v, dict) and "correct" in v), None)
        if unit is None or item is None:
            return None
        units.values[unit] = float(item.get("correct") or 0)
        if item.get("domain"):
            units.categories[unit] = str(item["domain"])
    return units


def _keys(run, task: str, key: ItemKey) -> list[str | None]:
    """The item key of each line of a task's samples log (None where a line has none), found once
    per run and task for its units and its item count."""
    return remembered(run, ("keys", task), lambda: [sample_key(row, key) for row in run.samples[task]])


def units_of(run, task: str) -> Units | None:
    """The benchmark's own units for ``task`` (``report.compare_units``: a dict of ``Units``'s
    fields, or None), else the default; read once per run and task (every pair the run is in asks;
    callers read them, never change them)."""
    return remembered(run, ("units", task), lambda: _units_of(run, task))


def _units_of(run, task: str) -> Units | None:
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


def check_comparable(a, b, tasks: list[str]) -> None:
    """``CompareError`` where the runs read other data, or other prompts, for one of ``tasks``."""
    for task in tasks:
        pa, pb = _protocol(a, task), _protocol(b, task)
        if pa[:4] != pb[:4]:
            raise CompareError(
                f"{task}: the runs read different data ({pa[0]} {pa[1] or ''}{(pa[2] or pa[3] or '')[:12]} vs "
                f"{pb[0]} {pb[1] or ''}{(pb[2] or pb[3] or '')[:12]}): not comparable item by item"
            )
        if pa[4] != pb[4]:
            raise CompareError(
                f"{task}: the runs used different prompts or protocol files (prompt sha256 {str(pa[4])[:12]} vs "
                f"{str(pb[4])[:12]}): not comparable"
            )


def leaves(run) -> set[str]:
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
    results row counts: the record's item count, else lmms-eval's ``n-samples``, None where neither
    says). Counted once per run and task."""
    return remembered(run, ("held", task), lambda: _items_held(run, task))


def _items_held(run, task: str) -> tuple[int | None, int | None]:
    benchmark = of_task(task)
    rows = run.samples.get(task)
    logged = (
        None
        if rows is None or benchmark is None
        else len({k for k in _keys(run, task, benchmark.item_key) if k is not None})
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


def shortfall(run, label: str, task: str) -> str | None:
    """Why ``run``'s samples do not back its results row of ``task`` (None: they do), with what
    ``verify`` makes of that."""
    logged, counted = items_held(run, task)
    state = verify_state(run)
    verdict = f"{label} fails verify" if state == "FAIL" else f"verify FAILs such a run ({label}: {state})"
    if task not in leaves(run):
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
        return (
            f"{label} has no samples log for it{of}, {why}; verify cannot re-derive it (UNVERIFIED)"
            f"{', and ' + label + ' fails verify' if state == 'FAIL' else ''}"
        )
    if counted is not None and logged != counted:
        held = (
            f"{logged} of the {counted} items its results row counts (the run stopped early, or the log was cut)"
            if logged < counted
            else f"{logged} items, not the {counted} its results row counts (items added)"
        )
        return (
            f"{label}'s samples log holds {held}: a difference would rest on {min(logged, counted)} of {counted} "
            f"items, and {verdict}"
        )
    return None


def left_out(task: str, group: str | None, note: str, a, b, incomplete: bool = True) -> dict:
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


def listed_tasks(tasks: list[str]) -> str:
    """Up to four task names, and how many more."""
    return ", ".join(tasks[:4]) + (f" and {len(tasks) - 4} more" if len(tasks) > 4 else "") if tasks else "none"


def nothing_shared(a, b) -> str:
    """Why two runs have no task to compare: a run without samples logs of our tasks, tasks both
    ran with samples in one only, or no task in common."""
    runs = {"A": a, "B": b}
    logged = {k: sorted(t for t in r.samples if of_task(t) is not None) for k, r in runs.items()}
    ran = {k: sorted(t for t in (r.results.get("results") or {}) if of_task(t) is not None) for k, r in runs.items()}
    bare = [f"{k} ({runs[k].name})" for k in runs if ran[k] and not logged[k]]
    if bare:
        asked = [k for k in runs if ran[k] and not logged[k] and asked_for_samples(runs[k])]
        said = (
            f" ({' and '.join(asked)}: its results say it was, so its logs were removed, or the run was "
            "interrupted before writing them)"
            if asked
            else ""
        )
        return (
            f"{' and '.join(bare)} has no samples log of our tasks beside its results: run "
            f"{'it' if len(bare) == 1 else 'them'} with --log_samples{said}"
        )
    both = sorted(set(ran["A"]) & set(ran["B"]))
    if both:
        return (
            f"the tasks both runs ran ({listed_tasks(both)}) have samples logs in one run only (A has them for "
            f"{listed_tasks(logged['A'])}; B for {listed_tasks(logged['B'])}): run both with --log_samples"
        )
    return (
        f"the runs share no task: A ({a.name}) ran {listed_tasks(ran['A'])}; B ({b.name}) ran "
        f"{listed_tasks(ran['B'])}: compare two runs of the same tasks"
    )
