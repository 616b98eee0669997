"""The release's item-key hashes, read from a run on the release's own hub repository
(``release_keys.py``): what a maintainer with the hub at hand runs once to turn
"the release by item count" into a checked item set. Results files as our provenance writes them,
with samples logs whose lines carry the item keys: the hash written is the one the samples give,
never the record's claim, and a record of the wrong shape is one line, not a traceback."""

from __future__ import annotations

import dataclasses
import json
import shutil
from types import SimpleNamespace

import pytest

from lmms_comparative import release_keys
from lmms_comparative.provenance import item_set
from lmms_comparative.registry import BY_NAME
from lmms_comparative.subsets import by_count_only, subset_of

SUBTLEBENCH = BY_NAME["subtlebench"]
COUNT = SUBTLEBENCH.release_items()["tasks"]["subtlebench_at"]["count"]
NAMES = [f"attribute_coco_{i}" for i in range(COUNT)]
KEYS = item_set(NAMES)
HUB = {"source": "hub", "repo": SUBTLEBENCH.hub_repo, "commit": "9aac30b" + "0" * 33}
LOCAL = {"source": "local", "variable": "SUBTLEBENCH_ROOT"}


def _task(keys: list[str], data: dict = HUB, claimed: dict | None = None) -> tuple[dict, list[str]]:
    """A record entry of a SubtleBench task whose samples log holds ``keys``; its ``items`` are
    what those keys give, or ``claimed``."""
    return {"benchmark": "subtlebench", "data": data, "items": claimed or item_set(keys)}, keys


def _write(folder, tasks: dict, limit=None, offset=0) -> None:
    """A results file whose record holds ``tasks`` ({task: an entry, or ``_task``'s entry and the
    keys its samples log holds}), with a samples log for each task given its keys."""
    folder.mkdir(parents=True)
    entries = {t: v[0] if isinstance(v, tuple) else v for t, v in tasks.items()}
    record = {
        "tasks": entries,
        "seeds": {**({"limit": limit} if limit else {}), **({"offset": offset} if offset else {})},
    }
    (folder / "20261128_000000_results.json").write_text(json.dumps({"results": {}, "lmms_comparative": record}))
    for task, value in tasks.items():
        if isinstance(value, tuple):
            lines = (
                json.dumps({"doc_id": i, "accuracy": {"item_id": key, "correct": 0}}) for i, key in enumerate(value[1])
            )
            (folder / f"20261128_000000_samples_{task}.jsonl").write_text("".join(line + "\n" for line in lines))


def test_hashes_come_only_from_full_runs_on_the_release_hub_repository_and_a_wrong_count_is_not_written(
    tmp_path, capsys
):
    _write(tmp_path / "hub", {"subtlebench_at": _task(NAMES), "subtlebench_st": _task(["a", "b"])})
    _write(tmp_path / "local", {"subtlebench_ac": _task(["x"], LOCAL)})
    _write(tmp_path / "limited", {"subtlebench_qn": _task(["y"])}, limit=1)
    _write(tmp_path / "offset", {"subtlebench_ql": _task(["z"])}, offset=3)
    _write(tmp_path / "left_out", {"subtlebench_caption": _task(["c"])})
    _write(
        tmp_path / "hostile",
        {"subtlebench_vp": "not an entry", "subtlebench_em": {"benchmark": "subtlebench", "data": [], "items": "x"}},
    )
    found = release_keys.found_keys(tmp_path)
    # The local copy, the --limit and --offset runs and the malformed entries are passed over.
    assert set(found["subtlebench"]) == {"subtlebench_at", "subtlebench_st", "subtlebench_caption"}
    release = release_keys.merged(SUBTLEBENCH.release_items(), found["subtlebench"])
    said = capsys.readouterr().err
    # Entries of the wrong type are caught at the gate: the whole file is one line, naming where.
    assert (
        "hostile/20261128_000000_results.json: passed over: not read (not an lmms-eval results JSON: "
        "lmms_comparative.tasks.subtlebench_vp: input should be a valid dictionary)" in said
    ), said
    assert "subtlebench_st: the run has 2 items, release.json" in said and "not written" in said
    assert "sha256" not in release["tasks"]["subtlebench_st"]
    # A task release.json leaves out on purpose (its "unknown" says why) gets no count from a run.
    assert "subtlebench_caption: not in release.json" in said and "subtlebench_caption" not in release["tasks"]
    # A hash release.json already has is never replaced.
    held = {**SUBTLEBENCH.release_items()}
    held["tasks"] = {**held["tasks"], "subtlebench_at": {**held["tasks"]["subtlebench_at"], "sha256": "0" * 64}}
    assert release_keys.merged(held, found["subtlebench"])["tasks"]["subtlebench_at"]["sha256"] == "0" * 64
    assert "release.json already has another key hash" in capsys.readouterr().err
    entry = release["tasks"]["subtlebench_at"]
    assert (
        entry["sha256"] == KEYS["sha256"]
        and entry["count"] == COUNT
        and entry["source"] == "S1"
        and HUB["commit"] in release["sources"][entry["keys_source"]]
    )
    assert release_keys.main([str(tmp_path)]) == 0  # prints, writes nothing without --write
    assert "sha256" not in SUBTLEBENCH.release_items()["tasks"]["subtlebench_at"]

    # With the hash in release.json, a local copy's items are checked, not claimed.
    checked = dataclasses.replace(SUBTLEBENCH)
    object.__setattr__(checked, "release_items", lambda: release)
    same = SimpleNamespace(
        results={"lmms_comparative": {"tasks": {"subtlebench_at": {"items": KEYS, "data": LOCAL}}, "seeds": {}}}
    )
    other = SimpleNamespace(
        results={
            "lmms_comparative": {
                "tasks": {"subtlebench_at": {"items": item_set(f"k{i}" for i in range(COUNT)), "data": LOCAL}},
                "seeds": {},
            }
        }
    )
    assert subset_of(same, checked, "subtlebench_at") is None and by_count_only(same, checked, ["subtlebench_at"]) == []
    assert by_count_only(same, SUBTLEBENCH, ["subtlebench_at"]) == ["subtlebench_at"]  # before: the count alone
    assert subset_of(other, checked, "subtlebench_at").startswith(
        f"subset: {COUNT} of {COUNT} items"
    )  # the same count, other keys


def test_a_claimed_hash_its_samples_do_not_give_is_not_the_releases(tmp_path, capsys):
    """A record claiming the release's count and a hash of keys its samples log does not hold (the
    forger's hash, to be written as the release's) is passed over; its honest twin, whose claim is
    what its samples give, is found with the re-derived hash."""
    forged = item_set(f"forged_{i}" for i in range(COUNT))
    _write(tmp_path / "forged", {"subtlebench_at": _task(NAMES, claimed=forged)})
    assert release_keys.found_keys(tmp_path / "forged") == {}
    said = capsys.readouterr().err
    assert (
        f"subtlebench_at passed over: the record claims {COUNT} items (sha256 {forged['sha256'][:12]}...), "
        f"its samples log gives {COUNT} (sha256 {KEYS['sha256'][:12]}...)" in said
    )
    assert release_keys.main([str(tmp_path / "forged")]) == 1
    # A samples log with an item twice, one with a line without the key's column, and none at all give no hash either.
    _write(tmp_path / "bad" / "twice", {"subtlebench_at": _task(NAMES[:-1] + NAMES[:1])})
    _write(tmp_path / "bad" / "keyless", {"subtlebench_at": _task(NAMES)})
    samples = next((tmp_path / "bad" / "keyless").glob("*_samples_*.jsonl"))
    samples.write_text(samples.read_text().replace('"item_id"', '"id"', 1))
    _write(tmp_path / "bad" / "unlogged", {"subtlebench_at": _task(NAMES)[0]})
    assert release_keys.found_keys(tmp_path / "bad") == {}
    said = capsys.readouterr().err
    assert (
        "1 item(s) appear more than once" in said
        and f"1 of its {COUNT} samples line(s) carry no 'item_id'" in said
        and "no samples log (run with --log_samples)" in said
    )

    _write(tmp_path / "honest", {"subtlebench_at": _task(NAMES)})
    assert release_keys.found_keys(tmp_path / "honest") == {
        "subtlebench": {"subtlebench_at": {**KEYS, "repo": HUB["repo"], "commit": HUB["commit"]}}
    }


@pytest.mark.parametrize(
    "data",
    [
        {**HUB, "commit": 12345},
        {**HUB, "commit": ["9aac30b"]},
        {**HUB, "commit": "main"},
        {**HUB, "repo": {"x": 1}},
        {**HUB, "source": None},
    ],
    ids=["integer commit", "list commit", "branch", "object repo", "no source"],
)
def test_a_record_of_the_wrong_shape_is_one_line_not_a_traceback(tmp_path, capsys, data):
    _write(tmp_path / "run", {"subtlebench_at": _task(NAMES, data)})
    _write(
        tmp_path / "typed",
        {"subtlebench_sp": ({"benchmark": 7, "data": HUB, "items": {"count": True, "sha256": 1}}, ["a"])},
    )
    assert release_keys.main([str(tmp_path)]) == 1
    said = capsys.readouterr().err.splitlines()
    assert (
        "20261128_000000_results.json: subtlebench_at passed over: its data is not the release's hub "
        f"repository {HUB['repo']} at a pinned commit (40 hex digits)" in said
    )
    # A record of other types is refused by the gate's schema: one line naming the file and the place.
    assert any(
        line.endswith(
            "typed/20261128_000000_results.json: passed over: not read (not an lmms-eval results JSON: "
            "lmms_comparative.tasks.subtlebench_sp.benchmark: input should be a valid string)"
        )
        for line in said
    ), said
    assert not any("Traceback" in line for line in said)


def test_names_from_the_folder_are_printed_escaped(tmp_path, capsys):
    """A task name with a terminal escape is printed as ``\\x1b``, never as the escape itself."""
    _write(tmp_path / "run", {"subtlebench_\x1b]0;owned\x07": _task(["a"], LOCAL)})
    assert release_keys.main([str(tmp_path)]) == 1
    said = capsys.readouterr().err
    assert "\x1b" not in said and "\x07" not in said and "subtlebench_\\x1b]0;owned\\x07 passed over" in said


def test_two_runs_that_disagree_stop_the_tool(tmp_path):
    others = [f"k{i}" for i in range(COUNT)]
    for name, keys in (("a", NAMES), ("b", others)):
        _write(tmp_path / name, {"subtlebench_at": _task(keys)})
    assert release_keys.main([str(tmp_path)]) == 1


def test_write_goes_through_no_link(tmp_path, monkeypatch, capsys):
    """``--write`` writes release.json anew beside a link's place, never through it: the link's
    target is left alone (the package folder copied to a scratch folder, so the real one is untouched)."""
    folder = tmp_path / "records"
    shutil.copytree(release_keys.FOLDER / "subtlebench", folder / "subtlebench")
    target = tmp_path / "elsewhere.json"
    target.write_text((folder / "subtlebench" / "release.json").read_text())
    (folder / "subtlebench" / "release.json").unlink()
    (folder / "subtlebench" / "release.json").symlink_to(target)
    monkeypatch.setattr(release_keys, "FOLDER", folder)
    _write(tmp_path / "run", {"subtlebench_at": _task(NAMES)})
    before = target.read_text()
    assert release_keys.main([str(tmp_path / "run"), "--write"]) == 1
    assert "a link stands where this file goes" in capsys.readouterr().err and target.read_text() == before
    # The honest twin: a regular file is written with the re-derived hash.
    (folder / "subtlebench" / "release.json").unlink()
    (folder / "subtlebench" / "release.json").write_text(before)
    assert release_keys.main([str(tmp_path / "run"), "--write"]) == 0
    assert (
        json.loads((folder / "subtlebench" / "release.json").read_text())["tasks"]["subtlebench_at"]["sha256"]
        == KEYS["sha256"]
    )
