"""The release's item-key hashes, read from a run on the release's own hub repository
(``release_keys.py``): what a maintainer with the hub at hand runs once to turn
"the release by item count" into a checked item set. Results files as our provenance writes them."""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace

from lmms_comparative import release_keys
from lmms_comparative.provenance import item_set
from lmms_comparative.registry import BY_NAME
from lmms_comparative.subsets import by_count_only, subset_of

SUBTLEBENCH = BY_NAME["subtlebench"]
COUNT = SUBTLEBENCH.release_items()["tasks"]["subtlebench_at"]["count"]
KEYS = item_set(f"attribute_coco_{i}" for i in range(COUNT))
HUB = {"source": "hub", "repo": SUBTLEBENCH.hub_repo, "commit": "9aac30b" + "0" * 33}


def _write(folder, tasks: dict, limit=None, offset=0) -> None:
    folder.mkdir(parents=True)
    record = {"tasks": tasks, "seeds": {**({"limit": limit} if limit else {}), **({"offset": offset} if offset else {})}}
    (folder / "20261128_000000_results.json").write_text(json.dumps({"results": {}, "lmms_comparative": record}))


def test_hashes_come_only_from_full_runs_on_the_release_hub_repository_and_a_wrong_count_is_not_written(tmp_path, capsys):
    _write(tmp_path / "hub", {"subtlebench_at": {"benchmark": "subtlebench", "data": HUB, "items": KEYS}, "subtlebench_st": {"benchmark": "subtlebench", "data": HUB, "items": item_set(["a", "b"])}})
    _write(tmp_path / "local", {"subtlebench_ac": {"benchmark": "subtlebench", "data": {"source": "local", "variable": "SUBTLEBENCH_ROOT"}, "items": item_set(["x"])}})
    _write(tmp_path / "limited", {"subtlebench_qn": {"benchmark": "subtlebench", "data": HUB, "items": item_set(["y"])}}, limit=1)
    _write(tmp_path / "offset", {"subtlebench_ql": {"benchmark": "subtlebench", "data": HUB, "items": item_set(["z"])}}, offset=3)
    _write(tmp_path / "left_out", {"subtlebench_caption": {"benchmark": "subtlebench", "data": HUB, "items": item_set(["c"])}})
    _write(tmp_path / "hostile", {"subtlebench_vp": "not an entry", "subtlebench_em": {"benchmark": "subtlebench", "data": [], "items": "x"}})
    found = release_keys.found_keys(tmp_path)
    # The local copy, the --limit and --offset runs and the malformed entries are passed over.
    assert set(found["subtlebench"]) == {"subtlebench_at", "subtlebench_st", "subtlebench_caption"}
    release = release_keys.merged(SUBTLEBENCH.release_items(), found["subtlebench"])
    said = capsys.readouterr().err
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
    assert entry["sha256"] == KEYS["sha256"] and entry["count"] == COUNT and entry["source"] == "S1" and HUB["commit"] in release["sources"][entry["keys_source"]]
    assert release_keys.main([str(tmp_path)]) == 0  # prints, writes nothing without --write
    assert "sha256" not in SUBTLEBENCH.release_items()["tasks"]["subtlebench_at"]

    # With the hash in release.json, a local copy's items are checked, not claimed.
    checked = dataclasses.replace(SUBTLEBENCH)
    object.__setattr__(checked, "release_items", lambda: release)
    local = {"source": "local", "variable": "SUBTLEBENCH_ROOT"}
    same = SimpleNamespace(results={"lmms_comparative": {"tasks": {"subtlebench_at": {"items": KEYS, "data": local}}, "seeds": {}}})
    other = SimpleNamespace(results={"lmms_comparative": {"tasks": {"subtlebench_at": {"items": item_set(f"k{i}" for i in range(COUNT)), "data": local}}, "seeds": {}}})
    assert subset_of(same, checked, "subtlebench_at") is None and by_count_only(same, checked, ["subtlebench_at"]) == []
    assert by_count_only(same, SUBTLEBENCH, ["subtlebench_at"]) == ["subtlebench_at"]  # before: the count alone
    assert subset_of(other, checked, "subtlebench_at").startswith(f"subset: {COUNT} of {COUNT} items")  # the same count, other keys


def test_two_runs_that_disagree_stop_the_tool(tmp_path):
    for name, keys in (("a", KEYS), ("b", item_set(["z"] * 1))):
        _write(tmp_path / name, {"subtlebench_at": {"benchmark": "subtlebench", "data": HUB, "items": {**keys, "count": COUNT}}})
    assert release_keys.main([str(tmp_path)]) == 1
