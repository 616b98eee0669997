"""The item browser's data (report/item_browser.py) on files as the releases hold them: a video item gets
its frames, sampled uniformly, as thumbnails and full views; images at hand get both once."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from PIL import Image

from lmms_comparative.registry import BY_NAME
from lmms_comparative.report import item_browser as items
from lmms_comparative.report.item_records import collect


def _record(task: str, media: list[str]) -> dict:
    return {
        "task": task,
        "benchmark": task.split("_")[0],
        "key": "k1",
        "category": "c",
        "domain": "",
        "question": "q",
        "target": "t",
        "media": media,
        "runs": {0: {"reply": "r", "parsed": None, "outcome": "wrong", "score": 0.0, "fields": {}}},
    }


def test_a_video_item_gets_its_frames_and_an_image_item_its_views(tmp_path):
    root = BY_NAME["vlm2bench"].build_fixture(tmp_path / "vlm2bench")
    video = str(next(Path(root).rglob("*.mp4")))
    image = tmp_path / "pair_1.png"
    Image.new("RGB", (300, 200), (200, 30, 30)).save(image)
    records = [
        _record("vlm2bench_pc_vid", [video]),
        _record("subtlebench_sp", [str(image), str(tmp_path / "gone.png")]),
    ]
    out = tmp_path / "report"
    counts = items.write(records, [SimpleNamespace(name="run")], out, roots=[tmp_path])  # the data roots set
    frames = [n for n in records[0]["images"] if n]
    assert (
        records[0]["images"][0] is None and 2 <= len(frames) <= items.FRAMES
    )  # the video's own entry, then its frames
    for name in frames:
        with Image.open(out / "thumbs" / name) as thumb, Image.open(out / "full" / name) as full:
            assert max(thumb.size) <= items.THUMB and full.size[0] > 0
    assert records[1]["images"][0] and records[1]["images"][1] is None  # a file not at hand has no view
    with Image.open(out / "full" / records[1]["images"][0]) as full:
        assert full.size == (300, 200)
    assert counts["items"] == 2 and counts["media_withheld"] == 0
    # A second report reuses the views: same names, nothing made again.
    stamp = (out / "thumbs" / frames[0]).stat().st_mtime_ns
    again = [_record("vlm2bench_pc_vid", [video])]
    items.write(again, [SimpleNamespace(name="run")], out, roots=[tmp_path])
    assert [n for n in again[0]["images"] if n] == frames and (out / "thumbs" / frames[0]).stat().st_mtime_ns == stamp


def test_an_item_scored_by_its_questions_shows_them_and_their_mean():
    """CaptionQA's image is scored by the reader's answers to its questions (its report part's
    ``item_questions``, read from the run's reader log); an item of a benchmark without one keeps
    its own outcome."""
    from lmms_comparative.reportlib.runs import Run

    caption = {
        "doc_id": 0,
        "input": "Describe.",
        "resps": [["a caption"]],
        "score": {"id": "nat_1", "caption": "a caption"},
    }
    reader = [
        {
            "id": "nat_1",
            "q_idx": i,
            "question": f"q{i}",
            "letter": "A",
            "answer": "A" if i else "B",
            "score": float(bool(i)),
        }
        for i in range(4)
    ]
    mcq = {"doc_id": 0, "input": "Which?", "resps": [["A"]], "accuracy": {"item_id": "sp_1", "correct": 1}}
    run = Run(
        "m",
        {"results": {}},
        samples={"captionqa_simple_natural": [caption], "subtlebench_sp": [mcq]},
        side={"reader": {"captionqa_simple_natural": reader}},
    )
    found = {r["task"]: r for r in collect([run], [BY_NAME["captionqa"], BY_NAME["subtlebench"]])}
    entry = found["captionqa_simple_natural"]["runs"][0]
    assert [q["question"] for q in entry["questions"]] == ["q0", "q1", "q2", "q3"]
    assert entry["score"] == 0.75 and entry["outcome"] == "partial"
    assert (
        "questions" not in found["subtlebench_sp"]["runs"][0]
        and found["subtlebench_sp"]["runs"][0]["outcome"] == "right"
    )
    # Without the reader's log there is nothing to list, and the item keeps what its samples say.
    bare = Run("m", {"results": {}}, samples={"captionqa_simple_natural": [caption]})
    assert "questions" not in collect([bare], [BY_NAME["captionqa"]])[0]["runs"][0]
