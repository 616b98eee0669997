"""The item-key hashes of a release, taken from a run on the release itself, for ``release.json``.

    python -m lmms_comparative.release_keys RESULTS_DIR           # print what it found
    python -m lmms_comparative.release_keys RESULTS_DIR --write   # and add it to release.json

VLM-SubtleBench's, VLM2-Bench's and DiffSpot's releases are known to this package by their item
counts alone: their files are on the Hugging Face hub, which could not be read where the package
was written. Until their key hashes are in ``release.json``, a run of a local copy with the
release's count is shown as the release "by item count" only (``subsets.by_count_only``).

A run of their tasks on the release, with any model (``--model random_choice --predict_only``
decodes nothing), logs every item it read. This reads every results JSON under RESULTS_DIR whose
data came from the benchmark's own hub repository at a pinned commit, with no ``--limit`` and no
item skipped, and re-derives each task's item count and the sha256 of its sorted item keys from
the task's samples log (each line's key by the benchmark's ``item_key`` rule, as ``verify`` does):
the record's own ``items`` is only a claim, and a task whose claim differs from what its samples
give is passed over in one line, as is a record or entry of the wrong shape. It checks each count
against ``release.json`` (a different count, a task the file leaves out, or a hash it already has
that differs is printed, never written) and that two runs agree, then prints the entries, or with
``--write`` adds each hash and a source naming the repository and commit. A developer's tool, for
a machine that can reach the hub; the folder may still be a stranger's, so every string of it is
printed escaped (``untrusted.printable``) and release.json is written through no link.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from lmms_comparative.data import gate, untrusted
from lmms_comparative.data.replies import logged_keys, sample_key
from lmms_comparative.provenance import KEY, item_set
from lmms_comparative.record import FOLDER, Benchmark
from lmms_comparative.registry import BY_NAME

# A pinned commit of a hub repository: 40 hex digits (a branch name or a short hash pins nothing).
_COMMIT = re.compile(r"[0-9a-f]{40}")


def _say(text: str, out) -> None:
    """One line to ``out``, its submitted strings escaped (a file or task name may hold ESC)."""
    print(untrusted.printable(text), file=out)


def _claim(task, entry) -> tuple[Benchmark, dict, dict] | str:
    """The benchmark, data and claimed items of a record entry, or why it is passed over (a
    wrong type anywhere: the record is the submitter's text)."""
    if not isinstance(task, str) or not isinstance(entry, dict):
        return "not a record entry (a task name and an object)"
    name = entry.get("benchmark")
    benchmark = BY_NAME.get(name) if isinstance(name, str) else None
    if benchmark is None or not benchmark.has_task(task):
        return f"the record names benchmark {str(entry.get('benchmark'))[:60]!r}, which does not own it"
    data, items = entry.get("data"), entry.get("items")
    if not isinstance(data, dict) or not isinstance(items, dict):
        return "its record entry has no data and items objects"
    if entry.get("skipped"):
        return "items were skipped"
    if (
        data.get("source") != "hub"
        or data.get("repo") != benchmark.hub_repo
        or not isinstance(data.get("commit"), str)
        or not _COMMIT.fullmatch(data["commit"])
    ):
        return f"its data is not the release's hub repository {benchmark.hub_repo} at a pinned commit (40 hex digits)"
    count = items.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or not isinstance(items.get("sha256"), str):
        return "its record's items hold no count and sha256"
    return benchmark, data, items


def _derived(benchmark, samples: gate.Entry) -> dict | str:
    """The item set a task's samples log gives (``provenance.item_set`` of each line's item key), or
    why it gives none: a line without the key's columns, an item twice, an unreadable log. Each
    line is reduced to its key as it is read."""
    lines = [
        key for _, key in gate.json_lines(samples, lambda row: sample_key(row, benchmark.item_key) or "")
    ]  # "": no key (None would drop the line)
    keys, keyless, twice = logged_keys([k or None for k in lines])
    if not lines or keyless:
        return f"{keyless} of its {len(lines)} samples line(s) carry no {benchmark.item_key.columns[0]!r}"
    if twice:
        return f"{len(twice)} item(s) appear more than once in its samples log"
    return item_set(keys)


def _results(run: gate.Run, out) -> dict | None:
    """A results file's provenance record, or None (passed over, said in one line)."""
    path = run.path
    try:
        results = gate.results_json(run.results)
    except untrusted.Unsafe as exc:  # a link, too large, too deep, not JSON, not the schema
        _say(f"{path}: passed over: not read ({exc})", out)
        return None
    record = results.get(KEY) if isinstance(results, dict) else None
    seeds = record.get("seeds") if isinstance(record, dict) else None
    if (
        not isinstance(record, dict)
        or not isinstance(record.get("tasks"), dict)
        or (isinstance(seeds, dict) and (seeds.get("limit") is not None or seeds.get("offset")))
    ):
        _say(f"{path}: passed over (no {KEY} record, or a --limit or --offset run)", out)
        return None
    return record


def found_keys(results_dir: Path, out=None) -> dict[str, dict[str, dict]]:
    """{benchmark: {task: {count, sha256, repo, commit}}} of every task run on its release's own
    hub repository, in full, its count and hash re-derived from its samples log; a task two runs
    give different item sets for stops with ``ValueError``."""
    out = out or sys.stderr
    found: dict[str, dict[str, dict]] = {}
    listed = gate.scan(results_dir)
    for link, why in listed.passed:
        _say(f"{link}: passed over: {why}", out)
    for run in listed.runs:
        path = run.path
        record = _results(run, out)
        if record is None:
            continue
        logs = run.samples  # by the name the listing gives: no path is built from the record's task names
        for task, entry in sorted(record["tasks"].items()):
            claim = _claim(task, entry)
            if isinstance(claim, str):
                _say(f"{path.name}: {task} passed over: {claim}", out)
                continue
            benchmark, data, items = claim
            if task not in logs:
                _say(
                    f"{path.name}: {task} passed over: no samples log (run with --log_samples): its item keys cannot "
                    "be re-derived",
                    out,
                )
                continue
            try:
                derived = _derived(benchmark, logs[task])
            except ValueError as exc:
                derived = f"its samples log is not read ({exc})"
            if isinstance(derived, str):
                _say(f"{path.name}: {task} passed over: {derived}", out)
                continue
            if (derived["count"], derived["sha256"]) != (items["count"], items["sha256"]):
                _say(
                    f"{path.name}: {task} passed over: the record claims {items['count']} items (sha256 "
                    f"{items['sha256'][:12]}...), its samples log gives {derived['count']} (sha256 "
                    f"{derived['sha256'][:12]}...)",
                    out,
                )
                continue
            new = {**derived, "repo": data["repo"], "commit": data["commit"]}
            old = found.setdefault(benchmark.name, {}).setdefault(task, new)
            if (old["count"], old["sha256"]) != (new["count"], new["sha256"]):
                raise ValueError(
                    f"{task}: two runs give different item sets ({old['count']} items at {old['commit'][:12]}, "
                    f"{new['count']} at {new['commit'][:12]})"
                )
    return found


def merged(release: dict, tasks: dict[str, dict], out=None) -> dict:
    """``release`` (a ``release.json``) with the hashes of ``tasks`` added, each with a source
    naming the run's repository and commit. A task the file leaves out, one whose count is not
    the recorded one, and one whose recorded hash differs are left as they were, and said."""
    out = out or sys.stderr
    release = json.loads(json.dumps(release))
    known = release.setdefault("tasks", {})
    for task, seen in sorted(tasks.items()):
        entry = known.get(task)
        if entry is None:  # left out on purpose (release.json's "unknown" says why): a run's count does not settle it
            _say(f"{task}: not in release.json (its count is not established; see its 'unknown'): not written", out)
            continue
        if entry.get("count") != seen["count"]:
            _say(
                f"{task}: the run has {seen['count']} items, release.json {entry.get('count')} "
                f"({entry.get('source')}): not written; check which is the release",
                out,
            )
            continue
        if entry.get("sha256") and entry["sha256"] != seen["sha256"]:
            _say(
                f"{task}: release.json already has another key hash ({entry['sha256'][:12]}..., the run "
                f"{seen['sha256'][:12]}...): not written",
                out,
            )
            continue
        source = f"K_{seen['commit'][:8]}"
        release.setdefault("sources", {})[source] = (
            "Item keys counted and hashed (provenance.item_set) by a run of this package on the hub repository "
            f"{seen['repo']} at commit {seen['commit']}, read by release_keys."
        )
        known[task] = {**entry, "sha256": seen["sha256"], "keys_source": source}
    return release


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lmms_comparative.release_keys", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("results_dir", type=Path)
    parser.add_argument("--write", action="store_true", help="add the hashes to each benchmark's release.json")
    args = parser.parse_args(argv)
    try:
        found = found_keys(args.results_dir)
    except (ValueError, OSError) as exc:  # two runs that disagree, a folder that cannot be listed
        _say(f"release_keys: {exc}", sys.stderr)
        return 1
    if not found:
        print("release_keys: no task run in full on its release's hub repository under that folder", file=sys.stderr)
        return 1
    for name, tasks in found.items():
        path = FOLDER / name / "release.json"
        release = merged(json.loads(path.read_text(encoding="utf-8")), tasks)
        print(json.dumps({name: {t: release["tasks"][t] for t in tasks if t in release["tasks"]}}, indent=1))
        if args.write:
            try:
                untrusted.write_file(path, json.dumps(release, indent=2, ensure_ascii=False) + "\n")
            except (OSError, untrusted.Unsafe) as exc:  # a read-only install; a link there, never written through
                _say(f"release_keys: {path}: not written ({exc})", sys.stderr)
                return 1
            _say(f"written: {path}", sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
