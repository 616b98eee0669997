"""Whether a run's value stands for the release: the items behind it against the release's item
set (each benchmark's ``release.json``, ``Benchmark.release_items``). ``export`` keeps the release's
dataset id for the release; ``report`` marks every value that is not."""

from __future__ import annotations

from lmms_comparative.provenance import KEY


def leaves(task_id: str, record: dict, groups: dict) -> list[str]:
    """The record's tasks an exported value is computed from: a group's tasks, the task itself, or
    the task whose metric it is (``subtlebench_caption_css`` is ``subtlebench_caption``'s CSS)."""
    from lmms_comparative.rescoring.replies import group_leaves

    if groups.get(task_id):
        return group_leaves(task_id, groups)
    tasks = record.get("tasks") or {}
    if task_id in tasks:
        return [task_id]
    owners = [t for t in tasks if task_id.startswith(t + "_")]
    return [max(owners, key=len)] if owners else []


def subset_of(run, benchmark, task_id: str) -> str | None:
    """Why the items behind ``task_id`` are not the release's item set (``N of M items``, a
    ``--limit``, skips, an item set other than the release's), or None where they are."""
    record = run.results.get(KEY) or {}
    release = benchmark.release_items()
    known = release.get("tasks") or {}
    behind = leaves(task_id, record, run.results.get("group_subtasks") or {})
    if not behind:
        return "items not known (no task of the record behind it)"
    scored = expected = 0
    why = []
    for task in behind:
        entry = (record.get("tasks") or {}).get(task) or {}
        items = entry.get("items") or {}
        scored += items.get("count") or 0
        full = known.get(task)
        if full is None:
            why.append(f"{task}: the release's item count is not known here")
            continue
        expected += full["count"]
        if items.get("count") != full["count"] or (full.get("sha256") and items.get("sha256") != full["sha256"]):
            why.append(f"{task}: {items.get('count')} of {full['count']} items")
        if entry.get("skipped"):
            why.append(f"{task}: {len(entry['skipped'])} item(s) skipped")
    limit = (record.get("seeds") or {}).get("limit")
    if limit is not None:
        why.append(f"--limit {limit}")
    if not why:
        return None
    source = (release.get("release") or benchmark.title) if expected else benchmark.title
    return f"subset: {scored} of {expected or '?'} items of {source} ({'; '.join(why[:4])}{'; ...' if len(why) > 4 else ''})"
