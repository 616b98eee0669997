"""Whether a run's value stands for the release: the items behind it against the release's item
set (each benchmark's ``release.json``, ``Benchmark.release_items``). ``export`` keeps the release's
dataset id for the release; ``report`` marks every value that is not. One rule (``_why``), asked of
one exported value (``subset_of``) or of the values of several tasks a report table shows
(``subset_of_tasks``)."""

from __future__ import annotations

from lmms_comparative.data.generated import maker
from lmms_comparative.data.replies import group_leaves
from lmms_comparative.provenance import KEY

# How a reason begins, by what it found: fewer or other items of the release; items this package
# generated (a fixture, synthetic pairs); a release whose item count is not known here; no record.
SUBSET, GENERATED, UNCONFIRMED, UNKNOWN = "subset:", "not the release:", "release not confirmed:", "items not known"


def leaves(task_id: str, record: dict, groups: dict) -> list[str]:
    """The record's tasks an exported value is computed from: a group's tasks, the task itself, or
    the task whose metric it is (``subtlebench_caption_css`` is ``subtlebench_caption``'s CSS)."""
    if groups.get(task_id):
        return group_leaves(task_id, groups)
    tasks = record.get("tasks") or {}
    if task_id in tasks:
        return [task_id]
    owners = [t for t in tasks if task_id.startswith(t + "_")]
    return [max(owners, key=len)] if owners else []


def subset_of(run, benchmark, task_id: str) -> str | None:
    """Why the items behind ``task_id`` are not the release's item set (``N of M items``, a
    ``--limit``, skips, an item set other than the release's, generated data), or None where they are."""
    record = run.results.get(KEY) or {}
    return _why(record, benchmark, leaves(task_id, record, run.results.get("group_subtasks") or {}))


def subset_of_tasks(run, benchmark, task_ids) -> str | None:
    """``subset_of`` for the values of several tasks or groups at once (a report row): why the
    items behind those of ``task_ids`` the run has are not the release's, or None where they are.
    A run that has none of them (or no record) gets the reason of a value with no task behind it."""
    record = run.results.get(KEY) or {}
    return _why(record, benchmark, _behind(run, record, task_ids))


def _behind(run, record: dict, task_ids) -> list[str]:
    """The record's tasks behind any of ``task_ids`` (``leaves``), each once, in order."""
    groups = run.results.get("group_subtasks") or {}
    return list(dict.fromkeys(leaf for task in task_ids for leaf in leaves(task, record, groups)))


def by_count_only(run, benchmark, task_ids) -> list[str]:
    """Of the tasks behind ``task_ids`` that stand for the release, those matched to it by their
    item count alone: the release's key list is not known here (no ``sha256`` in its
    ``release.json``) and the run read a local copy, not the release's own hub repository. Their
    items are the release's by the submitter's word; a hub run's are by where they came from."""
    record = run.results.get(KEY) or {}
    known = benchmark.release_items().get("tasks") or {}
    found = []
    for task in _behind(run, record, task_ids):
        entry = (record.get("tasks") or {}).get(task) or {}
        data = entry.get("data") or {}
        full = known.get(task)
        if (
            full
            and not full.get("sha256")
            and not (benchmark.hub_repo and data.get("source") == "hub" and data.get("repo") == benchmark.hub_repo)
        ):
            found.append(task)
    return found


def _why(record: dict, benchmark, behind: list[str]) -> str | None:
    if not behind:
        return (
            f"{UNKNOWN} (no task of the record behind it)"
            if record
            else f"{UNKNOWN} (the results carry no {KEY} record of the items scored)"
        )
    release = benchmark.release_items()
    known = release.get("tasks") or {}
    scored = expected = 0
    why, short, made = (
        [],
        [],
        None,
    )  # short: the reasons other than a count (a generated set has no release count to compare)
    for task in behind:
        entry = (record.get("tasks") or {}).get(task) or {}
        items = entry.get("items") or {}
        scored += items.get("count") or 0
        made = made or (entry.get("data") or {}).get("generated")
        full = known.get(task)
        if full is None:
            why.append(f"{task}: the release's item count is not known here")
            continue
        expected += full["count"]
        if items.get("count") != full["count"] or (full.get("sha256") and items.get("sha256") != full["sha256"]):
            why.append(f"{task}: {items.get('count')} of {full['count']} items")
        if entry.get("skipped"):
            why.append(f"{task}: {len(entry['skipped'])} item(s) skipped")
            short.append(why[-1])
    limit = (record.get("seeds") or {}).get("limit")
    if limit is not None:
        why.append(f"--limit {limit}")
        short.append(why[-1])
    if not why and not made:
        return None
    source = (release.get("release") or benchmark.title) if expected else benchmark.title
    if made:  # items this package made up: none of them is the release's, whatever their count
        extra = f" ({'; '.join(short[:4])}{'; ...' if len(short) > 4 else ''})" if short else ""
        return f"{GENERATED} {scored} items made by {maker(made)}, none of them an item of {source}{extra}"
    detail = f"{'; '.join(why[:4])}{'; ...' if len(why) > 4 else ''}"
    if not expected:
        return f"{UNCONFIRMED} {scored} items; {detail}"
    return f"{SUBSET} {scored} of {expected} items of {source} ({detail})"
