"""A small generated ViDiC-1K copy in the release's layout: ``checklist/checklist.json`` and two
short real videos per pair under ``data/`` (H.264 in MP4, 12 frames each: more than the 10 that
lmms-eval's openai model samples): video A shows two drawn scenes, video B the same two in reverse
order (a reversed clip, one of the release's playback techniques), so that a test can tell which
video a model was handed first. Each checklist item has the fields the authors' checklist holds
(``question``, ``correct_answer``, ``class``, and the empty ``answer`` and ``explanation`` their
judge fills); Similarities items are "no" and Differences items "yes", as in the release, and the
classes are its seven, lowercase. One pair's folder has a space in its name, as 240 of the
release's paths do."""

from __future__ import annotations

import json
import random
from pathlib import Path

from lmms_comparative.benchmarks.vidic.data import CHECKLISTS
from lmms_comparative.data import untrusted
from lmms_comparative.data.fixture_images import draw_pair, write_video
from lmms_comparative.record import FixturePart

SMOKE_RECORDS = CHECKLISTS[0]  # the records file the task reads (the contract damages it)
CLASSES = ("subject", "style", "background", "camera", "motion", "position", "playback technique")
SOURCES = ("LMArena", "IF Vidcap benchmark", "style", "veo3")
SIMILAR = "Is there a difference in the {cls} between the two videos?"  # made up: the release's wording varies
DIFFERENT = "Does video B differ from video A in the {cls} of scene {i}?"


def build(root: str | Path, pairs: int = 4, seed: int = 0) -> Path:
    """Write the copy under ``root``: ``pairs`` video pairs, each with 1-2 Similarities and 2-3
    Differences items."""
    root = Path(root)
    rng = random.Random(seed)
    records = []
    for i in range(pairs):
        source = SOURCES[i % len(SOURCES)]
        paths = [f"data/{source}/pair{i}_{side}.mp4" for side in ("0", "1")]
        opening, closing = draw_pair(rng)[0], draw_pair(rng)[0]
        for rel, scenes in zip(paths, ([opening, closing], [closing, opening])):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            write_video(root / rel, scenes)
        classes = [CLASSES[(i * 3 + k) % len(CLASSES)] for k in range(5)]
        similar = [
            {"class": c, "question": SIMILAR.format(cls=c), "correct_answer": "no", "answer": "", "explanation": ""}
            for c in classes[: 1 + i % 2]
        ]
        different = [
            {
                "class": c,
                "question": DIFFERENT.format(cls=c, i=i),
                "correct_answer": "yes",
                "answer": "",
                "explanation": "",
            }
            for c in classes[2 : 4 + i % 2]
        ]
        records.append(
            {
                "index": i,
                "video1_path": paths[0],
                "video2_path": paths[1],
                "structured_analysis": {"Similarities": similar, "Differences": different},
            }
        )
    (root / SMOKE_RECORDS).parent.mkdir(parents=True, exist_ok=True)
    untrusted.write_file(root / SMOKE_RECORDS, json.dumps(records, ensure_ascii=False, indent=2))
    return root


PART = FixturePart(build, SMOKE_RECORDS)
