"""Which values stand for the release (lmms_comparative/subsets.py), and the exported date, on
results dicts as lmms-eval and our provenance write them; no process is started."""

from __future__ import annotations

import dataclasses
import datetime
import inspect
from types import SimpleNamespace

from lmms_comparative.provenance import item_set
from lmms_comparative.registry import BY_NAME
from lmms_comparative.subsets import subset_of

KEYS = [f"sp_{i}" for i in range(4)]


def _run(tasks: dict, groups: dict | None = None, limit=None) -> SimpleNamespace:
    record = {"tasks": tasks, "seeds": {} if limit is None else {"limit": limit}}
    return SimpleNamespace(results={"lmms_comparative": record, "group_subtasks": groups or {}})


def _benchmark(release_tasks: dict):
    """SubtleBench's record with a release of ``release_tasks`` (the real one is counted from the paper)."""
    real = BY_NAME["subtlebench"]
    fake = dataclasses.replace(real)
    object.__setattr__(fake, "release_items", lambda: {"release": "the release", "tasks": release_tasks})
    return fake


def test_the_full_item_set_is_the_release_and_anything_less_says_how_much_less():
    full = item_set(KEYS)
    benchmark = _benchmark({"subtlebench_sp": {"count": 4, "sha256": full["sha256"]}, "subtlebench_at": {"count": 3}})
    run = _run(
        {"subtlebench_sp": {"items": full}, "subtlebench_at": {"items": {"count": 3, "sha256": "x"}}},
        {"subtlebench": ["subtlebench_sp", "subtlebench_at"]},
    )
    assert subset_of(run, benchmark, "subtlebench_sp") is None
    assert subset_of(run, benchmark, "subtlebench") is None  # a group: its tasks
    assert subset_of(run, benchmark, "subtlebench_sp_css") is None  # a metric of a task: that task
    other = _run({"subtlebench_sp": {"items": item_set(["a", "b", "c", "d"])}})
    assert "4 of 4 items" in subset_of(other, benchmark, "subtlebench_sp")  # the same count, other items
    fewer = _run({"subtlebench_sp": {"items": item_set(KEYS[:2])}})
    assert subset_of(fewer, benchmark, "subtlebench_sp").startswith("subset: 2 of 4 items of the release")
    limited = _run({"subtlebench_sp": {"items": full}}, limit=2)
    assert "--limit 2" in subset_of(limited, benchmark, "subtlebench_sp")
    skipped = _run({"subtlebench_sp": {"items": full, "skipped": {"sp_1": "truncated image"}}})
    assert "1 item(s) skipped" in subset_of(skipped, benchmark, "subtlebench_sp")
    unknown = _benchmark({})
    assert "not known here" in subset_of(_run({"subtlebench_sp": {"items": full}}), unknown, "subtlebench_sp")
    assert "items not known" in subset_of(_run({}), benchmark, "subtlebench_sp")


def test_every_release_file_cites_a_source_for_each_count():
    from lmms_comparative.registry import BENCHMARKS

    for benchmark in BENCHMARKS:
        release = benchmark.release_items()
        for task, entry in release["tasks"].items():
            assert benchmark.owns_task(task) and isinstance(entry["count"], int) and entry["count"] > 0, (
                benchmark.name,
                task,
            )
            assert entry["source"] in release["sources"], (benchmark.name, task)
        assert release["tasks"] or release.get("unknown"), benchmark.name  # none known: it says why


def test_the_exported_date_is_lmms_evals_zone_turned_to_utc():
    """lmms-eval writes ``date`` in its ``--timezone`` (Asia/Singapore by default) whatever the
    machine's zone; a new lmms-eval that changes the default fails here, not in a wrong date on
    the hub."""
    import lmms_eval.__main__ as cli
    from lmms_eval.utils import get_datetime_str

    from lmms_comparative.export import _iso_date
    from lmms_comparative.harness.stamp_results import DEFAULT_DATE_TIMEZONE

    assert inspect.signature(get_datetime_str).parameters["timezone"].default == DEFAULT_DATE_TIMEZONE
    assert f'default="{DEFAULT_DATE_TIMEZONE}"' in inspect.getsource(cli)  # the CLI's --timezone
    assert _iso_date({"date": "20261127_034900"}) == "2026-11-26T19:49:00Z"  # UTC+8
    assert (
        _iso_date({"date": "20260701_120000", "lmms_comparative": {"date_timezone": "America/New_York"}})
        == "2026-07-01T16:00:00Z"
    )  # summer time
    assert _iso_date({"date": "not a date"}) is None
    assert _iso_date({"date": "20261127_034900", "lmms_comparative": {"date_timezone": "Nowhere/Else"}}) is None
    assert datetime.datetime.fromisoformat("2026-11-26T19:49:00Z").utcoffset() == datetime.timedelta(0)


def test_a_local_reader_path_never_reaches_the_notes():
    from lmms_comparative.export import _model_name

    assert _model_name({"model": "gpt-4o"}) == "gpt-4o"
    assert "/home" not in _model_name({"model": "/home/me/models/smol", "gguf_file": "/home/me/models/smol/m.gguf"})


def test_a_forged_package_version_is_shown_as_the_runs_claim_in_one_line():
    """The notes' package version comes from the run's record: a forger's text is named as the
    record's, control characters shown escaped, cut to 40 characters; a record without a
    package dict says '?'."""
    from types import SimpleNamespace

    from lmms_comparative.export import _notes
    from lmms_comparative.provenance import KEY
    from lmms_comparative.registry import BY_NAME

    def notes(package) -> str:
        run = SimpleNamespace(results={KEY: {"package": package}})
        return _notes(run, BY_NAME["compbench"], "", {}, None)

    honest = notes({"version": "0.1.0"})
    assert honest.startswith("lmms-comparative 0.1.0 (as the run's record names it), MLLM-CompBench protocol")
    forged = notes({"version": "9.9\nverified by the maintainers" + "x" * 80})
    assert "\n" not in forged and "(as the run's record names it)" in forged and "x" * 41 not in forged
    assert notes("not a dict").startswith("lmms-comparative ? (as the run's record names it)")


def test_a_release_known_by_its_count_alone_is_the_release_by_count_on_a_local_copy_and_by_source_from_its_hub_repo():
    """SubtleBench's, VLM2-Bench's and DiffSpot's releases are known here by their item counts
    only (their key lists could not be read): a run of a local copy with the release's count is
    the release on the submitter's word, shown so; one from the release's hub repository is the
    release by where it came from; a release with a key hash (CompBench) is checked, not claimed."""
    from lmms_comparative.report.verification import _items
    from lmms_comparative.subsets import by_count_only

    subtlebench, compbench = BY_NAME["subtlebench"], BY_NAME["compbench"]
    count = subtlebench.release_items()["tasks"]["subtlebench_at"]["count"]
    assert "sha256" not in subtlebench.release_items()["tasks"]["subtlebench_at"]
    local = {"source": "local", "variable": "SUBTLEBENCH_ROOT", "fingerprint": "ab" * 32}
    hub = {"source": "hub", "repo": subtlebench.hub_repo, "commit": "c" * 40}
    elsewhere = {**hub, "repo": "someone/vlm-subtlebench-copy"}
    for data, expected in ((local, ["subtlebench_at"]), (hub, []), (elsewhere, ["subtlebench_at"])):
        run = _run({"subtlebench_at": {"items": {"count": count, "sha256": "x"}, "data": data}})
        run.results["results"] = {"subtlebench_at": {}}
        assert subset_of(run, subtlebench, "subtlebench_at") is None  # the count matches: no subset
        assert by_count_only(run, subtlebench, ["subtlebench_at"]) == expected, data
        shown = _items(run, {"subtlebench": None})
        assert shown == (
            "VLM-SubtleBench: the release by item count (keys not checked)"
            if expected
            else "VLM-SubtleBench: the release"
        ), shown
    task, full = next(iter(compbench.release_items()["tasks"].items()))
    run = _run(
        {
            task: {
                "items": {"count": full["count"], "sha256": full["sha256"]},
                "data": {**local, "variable": "COMPBENCH_ROOT"},
            }
        }
    )
    assert subset_of(run, compbench, task) is None and by_count_only(run, compbench, [task]) == []
