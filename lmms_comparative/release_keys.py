"""The item-key hashes of a release, taken from a run on the release itself, for ``release.json``.

    python -m lmms_comparative.release_keys RESULTS_DIR           # print what it found
    python -m lmms_comparative.release_keys RESULTS_DIR --write   # and add it to release.json

VLM-SubtleBench's, VLM2-Bench's and DiffSpot's releases are known to this package by their item
counts alone: their files are on the Hugging Face hub, which could not be read where the package
was written. Until their key hashes are in ``release.json``, a run of a local copy with the
release's count is shown as the release "by item count" only (``subsets.by_count_only``).

A run of their tasks on the release, with any model (``--model random_choice --predict_only``
decodes nothing), records each task's item count and the sha256 of its sorted item keys. This
reads them from every results JSON under RESULTS_DIR whose data came from the benchmark's own hub
repository at a pinned commit, with no ``--limit`` and no item skipped; it checks each count
against ``release.json`` (a different count, a task the file leaves out, or a hash it already has
that differs is printed, never written) and that two runs agree, then prints the entries, or with ``--write``
adds each hash and a source naming the repository and commit. A developer's tool, for a machine
that can reach the hub.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from lmms_comparative.data import untrusted
from lmms_comparative.provenance import KEY
from lmms_comparative.record import FOLDER
from lmms_comparative.registry import BY_NAME


def found_keys(results_dir: Path, out=None) -> dict[str, dict[str, dict]]:
    """{benchmark: {task: {count, sha256, repo, commit}}} of every task run on its release's own
    hub repository, in full; a task two runs give different hashes for stops with ``ValueError``."""
    out = out or sys.stderr
    found: dict[str, dict[str, dict]] = {}
    files, _links = untrusted.results_files(results_dir)
    for path in files:
        results = untrusted.loads(untrusted.read_text(path, untrusted.MAX_JSON_BYTES))
        record = results.get(KEY) if isinstance(results, dict) else None
        seeds = record.get("seeds") if isinstance(record, dict) else None
        if not isinstance(record, dict) or not isinstance(record.get("tasks"), dict) or (isinstance(seeds, dict) and (seeds.get("limit") is not None or seeds.get("offset"))):
            print(f"{path}: passed over (no {KEY} record, or a --limit or --offset run)", file=out)
            continue
        for task, entry in sorted(record["tasks"].items()):
            entry = entry if isinstance(entry, dict) else {}
            benchmark = BY_NAME.get(str(entry.get("benchmark")))
            data = entry.get("data") if isinstance(entry.get("data"), dict) else {}
            items = entry.get("items") if isinstance(entry.get("items"), dict) else {}
            if benchmark is None or not benchmark.owns_task(task) or entry.get("skipped") or not isinstance(items.get("sha256"), str) or not isinstance(items.get("count"), int):
                continue
            if data.get("source") != "hub" or data.get("repo") != benchmark.hub_repo or not data.get("commit"):
                print(f"{path.name}: {task} passed over: its data is not the release's hub repository {benchmark.hub_repo} at a pinned commit", file=out)
                continue
            new = {"count": items["count"], "sha256": items["sha256"], "repo": data["repo"], "commit": data["commit"]}
            old = found.setdefault(benchmark.name, {}).setdefault(task, new)
            if (old["count"], old["sha256"]) != (new["count"], new["sha256"]):
                raise ValueError(f"{task}: two runs give different item sets ({old['count']} items at {old['commit'][:12]}, {new['count']} at {new['commit'][:12]})")
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
            print(f"{task}: not in release.json (its count is not established; see its 'unknown'): not written", file=out)
            continue
        if entry.get("count") != seen["count"]:
            print(f"{task}: the run has {seen['count']} items, release.json {entry.get('count')} ({entry.get('source')}): not written; check which is the release", file=out)
            continue
        if entry.get("sha256") and entry["sha256"] != seen["sha256"]:
            print(f"{task}: release.json already has another key hash ({entry['sha256'][:12]}..., the run {seen['sha256'][:12]}...): not written", file=out)
            continue
        source = f"K_{seen['commit'][:8]}"
        release.setdefault("sources", {})[source] = f"Item keys counted and hashed (provenance.item_set) by a run of this package on the hub repository {seen['repo']} at commit {seen['commit']}, read by release_keys."
        known[task] = {**entry, "sha256": seen["sha256"], "keys_source": source}
    return release


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lmms_comparative.release_keys", description=__doc__.split("\n\n")[0])
    parser.add_argument("results_dir", type=Path)
    parser.add_argument("--write", action="store_true", help="add the hashes to each benchmark's release.json")
    args = parser.parse_args(argv)
    try:
        found = found_keys(args.results_dir)
    except (ValueError, OSError, untrusted.Unsafe) as exc:
        print(f"release_keys: {exc}", file=sys.stderr)
        return 1
    if not found:
        print("release_keys: no task run in full on its release's hub repository under that folder", file=sys.stderr)
        return 1
    for name, tasks in found.items():
        path = FOLDER / name / "release.json"
        release = merged(json.loads(path.read_text(encoding="utf-8")), tasks)
        print(json.dumps({name: {t: release["tasks"][t] for t in tasks if t in release["tasks"]}}, indent=1))
        if args.write:
            path.write_text(json.dumps(release, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"written: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
