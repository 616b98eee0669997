"""What a review of the gate found, each beside its honest twin: a log line with no end (a sparse
file of a gigabyte) is refused after its bound, not joined block by block; runs whose dates nest
(``x`` and ``x_y``) each get their own files; hard links to one image are one image to decode, and
the report's pixel budget stops decoding once spent."""

from __future__ import annotations

import os

import pytest

from lmms_comparative.data import gate
from lmms_comparative.data.untrusted import Unsafe
from lmms_comparative.report import items


def test_a_line_past_its_bound_is_refused_and_a_long_honest_line_is_read(tmp_path):
    with open(tmp_path / "endless.jsonl", "wb") as handle:
        handle.truncate(1 << 30)  # a gigabyte of zeros on no disk space, and no line end
    with pytest.raises(Unsafe, match=r"line 1: past the 16.0 MiB a line of a run holds"):
        list(gate.Entry(tmp_path, ("endless.jsonl",)).lines())
    (tmp_path / "long.jsonl").write_bytes(b'{"a": 1}\n\n{"reply": "' + b"x" * 3_000_000 + b'"}\n{"b": 2}')
    assert [(n, len(line)) for n, line in gate.Entry(tmp_path, ("long.jsonl",)).lines()] == [(1, 8), (3, 3_000_013), (4, 8)]


def test_runs_whose_dates_nest_each_get_their_own_files(tmp_path):
    for name in ("x_results.json", "x_samples_a.jsonl", "x_verify.json", "x_y_results.json", "x_y_samples_b.jsonl", "x_y_llm_answers.jsonl", "x_y_z_results.json"):
        (tmp_path / name).write_text("{}")
    runs = {run.date: run for run in gate.scan(tmp_path).runs}
    assert sorted(runs) == ["x", "x_y", "x_y_z"]
    assert list(runs["x"].samples) == ["a"] and runs["x"].verdict.name == "x_verify.json" and runs["x"].answers is None
    assert list(runs["x_y"].samples) == ["b"] and runs["x_y"].answers.name == "x_y_llm_answers.jsonl" and runs["x_y"].verdict is None
    assert [e.name for e in runs["x_y_z"].files] == ["x_y_z_results.json"]


def test_hard_links_are_one_image_and_the_pixel_budget_stops_decoding(tmp_path):
    from PIL import Image

    Image.new("RGB", (64, 64), "red").save(tmp_path / "a.png")
    Image.new("RGB", (64, 64), "blue").save(tmp_path / "b.png")
    os.link(tmp_path / "a.png", tmp_path / "a_again.png")
    assert items._media_name(str(tmp_path / "a.png")) == items._media_name(str(tmp_path / "a_again.png")) != items._media_name(str(tmp_path / "b.png"))
    budget = items._Budget(64 * 64)
    for sub in ("thumbs", "full"):
        (tmp_path / "out" / sub).mkdir(parents=True)
    assert items._make_views(str(tmp_path / "a.png"), "a.jpg", tmp_path / "out", budget) is True
    assert items._make_views(str(tmp_path / "b.png"), "b.jpg", tmp_path / "out", budget) is False  # the budget is spent
    assert budget.spent_out == 1 and not (tmp_path / "out" / "thumbs" / "b.jpg").exists()
