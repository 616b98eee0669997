"""What a review of the gate found, each beside its honest twin: a log line with no end (a sparse
file of a gigabyte) is refused after its bound, not joined block by block; runs whose dates nest
(``x`` and ``x_y``) each get their own files; hard links to one image are one image to decode, and
the report's pixel budget stops decoding once spent."""

from __future__ import annotations

import os

import pytest

from lmms_comparative.data import gate
from lmms_comparative.data.untrusted import Unsafe
from lmms_comparative.report import item_browser as items


def test_a_line_past_its_bound_is_refused_and_a_long_honest_line_is_read(tmp_path):
    with open(tmp_path / "endless.jsonl", "wb") as handle:
        handle.truncate(1 << 30)  # a gigabyte of zeros on no disk space, and no line end
    with pytest.raises(Unsafe, match=r"line 1: past the 16.0 MiB a line of a run holds"):
        list(gate.Entry(tmp_path, ("endless.jsonl",)).lines())
    (tmp_path / "long.jsonl").write_bytes(b'{"a": 1}\n\n{"reply": "' + b"x" * 3_000_000 + b'"}\n{"b": 2}')
    assert [(n, len(line)) for n, line in gate.Entry(tmp_path, ("long.jsonl",)).lines()] == [
        (1, 8),
        (3, 3_000_013),
        (4, 8),
    ]


def test_runs_whose_dates_nest_each_get_their_own_files(tmp_path):
    for name in (
        "x_results.json",
        "x_samples_a.jsonl",
        "x_verify.json",
        "x_y_results.json",
        "x_y_samples_b.jsonl",
        "x_y_llm_answers.jsonl",
        "x_y_z_results.json",
    ):
        (tmp_path / name).write_text("{}")
    runs = {run.date: run for run in gate.scan(tmp_path).runs}
    assert sorted(runs) == ["x", "x_y", "x_y_z"]
    assert list(runs["x"].samples) == ["a"] and runs["x"].verdict.name == "x_verify.json" and runs["x"].answers is None
    assert (
        list(runs["x_y"].samples) == ["b"]
        and runs["x_y"].answers.name == "x_y_llm_answers.jsonl"
        and runs["x_y"].verdict is None
    )
    assert [e.name for e in runs["x_y_z"].files] == ["x_y_z_results.json"]


def test_hard_links_are_one_image_and_the_pixel_budget_stops_decoding(tmp_path):
    from PIL import Image

    Image.new("RGB", (64, 64), "red").save(tmp_path / "a.png")
    Image.new("RGB", (64, 64), "blue").save(tmp_path / "b.png")
    os.link(tmp_path / "a.png", tmp_path / "a_again.png")
    assert (
        items._media_name(str(tmp_path / "a.png"))
        == items._media_name(str(tmp_path / "a_again.png"))
        != items._media_name(str(tmp_path / "b.png"))
    )
    budget = items._Budget(64 * 64)
    for sub in ("thumbs", "full"):
        (tmp_path / "out" / sub).mkdir(parents=True)
    assert items._make_views(str(tmp_path / "a.png"), "a.jpg", tmp_path / "out", budget) is True
    assert items._make_views(str(tmp_path / "b.png"), "b.jpg", tmp_path / "out", budget) is False  # the budget is spent
    assert budget.spent_out == 1 and not (tmp_path / "out" / "thumbs" / "b.jpg").exists()


def test_a_root_that_names_a_file_makes_its_media_folders_roots_not_its_folder(tmp_path, monkeypatch):
    """VLM2BENCH_ROOT naming a TSV in the maintainer's home made the whole home a media root: a
    hostile run's input_media could then put the home's pictures in a report that may be published.
    Now the TSV's own decode folders are; a root that names a folder (the twin) stays one."""
    from lmms_comparative.benchmarks.vlm2bench.tsv import image_caches

    home = tmp_path / "home"
    home.mkdir()
    (home / "VLM2-Bench.tsv").write_text("index\n")
    (home / "holiday.jpg").write_bytes(b"\xff\xd8")
    for variable in ("SUBTLEBENCH_ROOT", "CAPTIONQA_ROOT", "COMPBENCH_ROOT", "VIDI_ROOT", "DIFFSPOT_ROOT"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("VLM2BENCH_ROOT", str(home / "VLM2-Bench.tsv"))
    roots = items.media_roots()
    from lmms_comparative.data import untrusted

    assert not untrusted.under(home / "holiday.jpg", roots)
    assert untrusted.under(image_caches(home / "VLM2-Bench.tsv")[0] / "a.jpg", roots)
    assert not (home / "VLM2-Bench_images").exists()  # nothing made on disk to say so
    monkeypatch.setenv("VLM2BENCH_ROOT", str(home))
    assert untrusted.under(home / "holiday.jpg", items.media_roots())
