"""A small generated MLLM-CompBench copy, in the release or the pre-release layout."""

from __future__ import annotations

import json
import random
from pathlib import Path

from PIL import Image

from lmms_comparative.data import untrusted
from lmms_comparative.data.fixture_images import draw_pair
from lmms_comparative.record import FixturePart

# The records file under the root that the smoke task reads (tests/failures/test_data_problems.py damages it).
SMOKE_RECORDS = "annotations/cub_label.json"


def build(
    root: str | Path,
    per_source: int = 5,
    seed: int = 0,
    layout: str = "release",
    split_files: tuple[str, ...] | None = None,
) -> Path:
    """Write a CompBench copy under ``root`` and the images it names.

    ``layout="release"``: ``annotations/<label>.json`` for the fourteen sources, keys of the release
    README, image paths relative to the root; MagicBrush options as one string (release issue #2).
    ``layout="prerelease"``: the authors' working layout (github RaptorMai/CompBenchReview):
    ``Labeled_data/<label>/<file>.json`` with that repository's file names and keys (MagicBrush
    ``path_input``/``path_output``/``Modified_option``/``Answeer``, Spot-the-diff ``Modified_option``/
    ``Answer``, SoccerNet ``left``/``right``, Q-Bench2 ``option`` and questions that carry their
    options), image paths relative to ``dataset/`` or to the source's folder in it.

    ``split_files``: the sources (labels) whose annotation file gets the authors' split files beside
    it, as CompBenchReview ``val_test_split.py`` writes them: ``<file>_test.json`` and
    ``<file>_val.json`` (``_att_test``/``_state_test``/``_att_val``/``_state_val`` for MIT-States and
    VAW), the records of its shuffle (``random.seed(30)`` per run of the script, the runs of
    ``data.SPLIT_RUNS``, first 80% test), and a part file the annotation file was merged from (the
    first records, named as the authors' parts: ``CUB_0_200.json``, ...). Default: CUB and VAW in
    the pre-release layout, none in the release layout (there ``annotations/<label>_test.json``).

    Every question carries a unique ``#source-i`` tag. Both layouts have an empty record ``{}`` in
    VAW and MIT-States/VAW records whose ``type`` is "None" (in neither of the authors' splits).
    Depth pairs have a second image of another size (the merged image then differs from a plain
    concatenation)."""
    from lmms_comparative.benchmarks.compbench.data import IMAGE_FOLDERS, PRERELEASE_FILES

    if layout not in ("release", "prerelease"):
        raise ValueError(f"layout must be 'release' or 'prerelease', got {layout!r}")
    pre = layout == "prerelease"
    root = Path(root)
    rng = random.Random(seed)
    # Pre-release paths: these sources name the dataset folder in the path, the others start inside it.
    with_folder = {"mb", "sd", "ce", "cu", "cc", "fe", "wf", "qb"}
    label_of = {"st": "st_label", "fa": "fashion_label", "va": "vaw_label", "cu": "cub_label", "wf": "Wildfish_label",
                "mb": "mb_label", "sd": "spot_difference_label", "ce": "celebA_label", "fe": "fer2013_label",
                "sn": "soccernet_label", "cc": "car_label", "nd": "depth_label", "vq": "vqav2_label",
                "qb": "qbench2_label"}  # fmt: skip

    def place(source: str, name: str, image: Image.Image) -> str:
        if not pre:
            path, ref = root / "images" / source / name, f"images/{source}/{name}"
        else:
            folder = IMAGE_FOLDERS[label_of[source]][0]
            inner = f"{source}/{name}"
            path = root / "dataset" / folder / inner
            ref = f"{folder}/{inner}" if source in with_folder else inner
        path.parent.mkdir(parents=True, exist_ok=True)
        untrusted.write_image(path, image)
        return ref

    def pair(source: str, i: int, single: bool = False) -> dict:
        first, second = draw_pair(rng)
        if single:
            canvas = Image.new("RGB", (128, 64), "white")
            canvas.paste(first, (0, 0))
            canvas.paste(second, (64, 0))
            return {"image": place(source, f"{i:03d}.png", canvas)}
        if source == "nd":
            second = second.resize((96, 48))
        one, two = place(source, f"{i:03d}_1.png", first), place(source, f"{i:03d}_2.png", second)
        if pre and source == "mb":
            return {"path_input": one, "path_output": two}
        if pre and source == "sn":
            return {"left": one, "right": two}
        return {"image_1": one, "image_2": two}

    side = lambda i: "Left" if (i * 7 + 3) % 5 < 2 else "Right"  # noqa: E731 - both sides, unevenly
    labels: dict[str, list] = {}
    for source in ("fa", "cu", "wf", "ce", "fe", "nd"):
        labels[label_of[source]] = [
            {**pair(source, i), "question": f"Which one is more striking? #{source}-{i}", "answer": side(i)}
            for i in range(per_source)
        ]
    types = ["State", "Color", "State", "Size", "None", "Shape", "State", "Texture"]
    for source in ("st", "va"):
        labels[label_of[source]] = [
            {
                **pair(source, i),
                "question": f"Which one is more worn? #{source}-{i}",
                "answer": side(i),
                "type": types[i % len(types)],
            }
            for i in range(2 * per_source)
        ]
    labels["vaw_label"].insert(1, {})
    labels["car_label"] = [{**pair("cc", i), "answer": side(i)} for i in range(per_source)]
    labels["soccernet_label"] = [
        {**pair("sn", i), "answer": side(i), "action": f"Corner #sn-{i}", "CLIP_similarity": 0.9}
        for i in range(per_source)
    ]
    labels["vqav2_label"] = [
        {**pair("vq", i), "question": f"Which image has more dogs? #vq-{i}", "answer": ["Left", "Right", "Same"][i % 3]}
        for i in range(per_source)
    ]
    for source in ("mb", "sd"):
        rows = []
        for i in range(per_source):
            options = [f"red car #{source}-{i}", f"blue door #{source}-{i}", f"the tree #{source}-{i}"][: 2 + i % 2]
            answer = options[i % len(options)] if i % 4 else "None"
            if pre:  # Modified_option: one string, the way the authors stored it (a trailing ", " included)
                keys = ("Modified_option", "Answeer") if source == "mb" else ("Modified_option", "Answer")
                rows.append({**pair(source, i), keys[0]: ", ".join(options) + ", ", keys[1]: answer})
            else:
                rows.append(
                    {**pair(source, i), "options": ", ".join(options) if source == "mb" else options, "answer": answer}
                )
        labels[label_of[source]] = rows
    qb_options = ["The left image", "The right image", "They are equally sharp"]
    qb = []
    for i in range(per_source):
        options = qb_options[: 2 + i % 2]
        question = f"Which image is sharper? #qb-{i}"
        if pre:  # the authors' questions carry their options and instruction (CompBenchReview q-bench2_eval.py)
            qb.append(
                {
                    **pair("qb", i, single=True),
                    "question": f"{question} Options: {', '.join(options)}. "
                    "Please only return one of the options without any other words or punctuation.",
                    "answer": options[i % len(options)],
                    "option": options,
                }
            )
        else:
            qb.append(
                {
                    **pair("qb", i, single=True),
                    "question": question,
                    "options": options,
                    "answer": options[i % len(options)],
                }
            )
    labels["qbench2_label"] = qb
    for label, rows in labels.items():
        if pre:
            path = root / "Labeled_data" / label / PRERELEASE_FILES[label]
        else:
            path = root / "annotations" / f"{label}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        untrusted.write_file(path, json.dumps(rows, indent=1))
    if split_files is None:
        split_files = ("cub_label", "vaw_label") if pre else ()
    for label in split_files:
        folder = root / "Labeled_data" / label if pre else root / "annotations"
        stem = PRERELEASE_FILES[label][:-5] if pre else label
        for infix, (test, val) in _authors_split(labels, label).items():
            untrusted.write_file(folder / f"{stem}{infix}_test.json", json.dumps(test, indent=1))
            untrusted.write_file(folder / f"{stem}{infix}_val.json", json.dumps(val, indent=1))
        part = PART_FILES.get(label, f"{stem}_part1.json")
        untrusted.write_file(folder / part, json.dumps(labels[label][:2], indent=1))
    return root


# A part each source's annotation file was merged from, named as in CompBenchReview Labeled_data/.
PART_FILES = {
    "cub_label": "CUB_0_200.json",
    "vaw_label": "vaw_0_626.json",
    "st_label": "State_Transform_0_200.json",
    "fashion_label": "fashion_0_10.json",
    "mb_label": "MB_0_10.json",
    "depth_label": "Checked_Depth_0_265.json",
}


def _authors_split(labels: dict[str, list], label: str) -> dict[str, tuple[list, list]]:
    """{infix: (test, val)} of one source as CompBenchReview ``val_test_split.py`` wrote them:
    ``random.seed(30)`` once per run, then per file of the run ``[i for i in data if i]``,
    ``random.shuffle``, the first ``int(n * 0.8)`` records test; MIT-States and VAW shuffled as
    their attribute records, then their state records (``_att``, ``_state``)."""
    from lmms_comparative.benchmarks.compbench.data import ATTRIBUTE_TYPES, SPLIT_RUNS

    rng = random.Random(30)
    for other in next(run for run in SPLIT_RUNS if label in run):
        rows = [r for r in labels[other] if r]
        if other in ("st_label", "vaw_label"):
            parts = {
                "_att": [r for r in rows if r["type"] in ATTRIBUTE_TYPES],
                "_state": [r for r in rows if r["type"] == "State"],
            }
        else:
            parts = {"": rows}
        out = {}
        for infix, records in parts.items():
            records = list(records)
            rng.shuffle(records)
            cut = int(len(records) * 0.8)
            out[infix] = (records[:cut], records[cut:])
        if other == label:
            return out
    raise AssertionError(label)


PART = FixturePart(build, SMOKE_RECORDS)
