"""Small generated datasets in the official release layouts, for tests and the offline demo.

The images are drawn here (PIL), never downloaded. Everything is a pure function of ``seed``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from PIL import Image, ImageDraw

from lmms_comparative.data.subtlebench import CATEGORIES, HUB_REPO

SUBTLEBENCH_DOMAINS = ("natural", "industrial", "medical", "aerial", "synthetic")
_HUB_PREFIX = f"https://huggingface.co/datasets/{HUB_REPO}/resolve/main/"
_COLOURS = ["red", "green", "blue", "orange", "purple", "teal", "gold", "gray"]

# Question, answer and distractor pools per difference type; option counts range over 2..5.
_SUBTLEBENCH_TEMPLATES = {
    "attribute": ("What changed about the {c} shape?", "it became brighter", ["it became darker", "it became larger", "it became smaller", "it changed shape"]),
    "state": ("In which image is the {c} box open?", "second image", ["first image"]),
    "emotion": ("In which image does the face look happier?", "first image", ["second image"]),
    "temporal": ("Which image was taken later?", "second image", ["first image"]),
    "spatial": ("How did the {c} shape move?", "to the right", ["to the left", "up", "down"]),
    "existence": ("What is different in the second image?", "a {c} circle was added", ["a {c} circle was removed", "nothing changed", "a square was added", "a triangle was removed"]),
    "quantity": ("Are there more {c} shapes in the second image?", "yes", ["no"]),
    "quality": ("Which image is sharper?", "first image", ["second image"]),
    "viewpoint": ("How did the camera move?", "it panned left", ["it panned right", "it tilted up"]),
    "action": ("In which image is the {c} figure jumping?", "first image", ["second image"]),
}


def _draw_pair(rng: random.Random, size: int = 64) -> tuple[Image.Image, Image.Image]:
    """Two images of a few shapes, the second with one shape shifted and recoloured."""
    first = Image.new("RGB", (size, size), "white")
    draw = ImageDraw.Draw(first)
    shapes = []
    for _ in range(rng.randint(2, 5)):
        x, y, r = rng.randint(4, size - 20), rng.randint(4, size - 20), rng.randint(4, 8)
        colour = rng.choice(_COLOURS)
        draw.ellipse((x, y, x + 2 * r, y + 2 * r), fill=colour)
        shapes.append((x, y, r))
    second = first.copy()
    x, y, r = shapes[0]
    ImageDraw.Draw(second).rectangle((x, y, x + 2 * r, y + 2 * r), fill=rng.choice(_COLOURS))
    return first, second


def build_subtlebench(root: str | Path, per_category: int = 3, val_per_category: int = 1, seed: int = 0) -> Path:
    """Write a VLM-SubtleBench copy under ``root``: data/{test,val}.jsonl and images/.

    Every category gets ``per_category`` test items spread over several domains; image fields are
    hub URLs (``.../resolve/main/images/...``) as in the released jsonl.
    """
    root = Path(root)
    (root / "data").mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    for split, count in (("test", per_category), ("val", val_per_category)):
        records = []
        for category in CATEGORIES.values():
            question, answer, pool = _SUBTLEBENCH_TEMPLATES[category]
            for i in range(count):
                colour = rng.choice(_COLOURS)
                n_distractors = min(len(pool), 1 + (i % 4))
                distractors = [d.format(c=colour) for d in pool[:n_distractors]]
                rel = f"images/{category}/{split}_{i:04d}"
                first, second = _draw_pair(rng)
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                first.save(root / f"{rel}_1.png")
                second.save(root / f"{rel}_2.png")
                domain = SUBTLEBENCH_DOMAINS[(i + len(records)) % len(SUBTLEBENCH_DOMAINS)]
                records.append(
                    {
                        "image_1": f"{_HUB_PREFIX}{rel}_1.png",
                        "image_2": f"{_HUB_PREFIX}{rel}_2.png",
                        "question": question.format(c=colour) + f" (#{split}-{category}-{i})",
                        "answer": answer.format(c=colour),
                        "distractors": distractors,
                        "has_caption": i == 0,
                        "caption": f"The {colour} shape differs." if i == 0 else None,
                        "category": category,
                        "domain": domain,
                        "source": f"fixture_{domain}",
                        "source_id": str(i),
                        "raw_folder": f"fixture_{category}",
                        "generation_info": None,
                    }
                )
        with open(root / "data" / f"{split}.jsonl", "w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record) + "\n")
    return root


# ---- CaptionQA ----------------------------------------------------------------------------------

_CAPTIONQA_PREFIX = {"natural": "nat", "document": "doc", "ecommerce": "eco", "embodiedai": "emb"}


def _captionqa_questions(rng: random.Random, domain: str, entry: int, taxonomy_tops: list[str]) -> list[dict]:
    """A mix that exercises qa.py's rules: plain MCQs (cannot option added), yes/no by choices and
    by opening word (no cannot option), the "eyes" substring quirk, and unscorable questions
    (a single choice; an answer that is not a choice) that must consume no shuffle draw."""
    colour = rng.choice(_COLOURS)
    top = taxonomy_tops[entry % len(taxonomy_tops)]
    other = taxonomy_tops[(entry + 1) % len(taxonomy_tops)]
    return [
        {"question": f"What colour is the main shape in {domain} item {entry}?", "choices": [colour, "black", "white"], "answer": colour, "category": [top]},
        {"question": f"Does {domain} item {entry} show a circle?", "choices": ["Yes", "No"], "answer": "Yes", "category": [other]},
        {"question": f"Is the background of {domain} item {entry} white?", "choices": ["white", "grey", "blue", "cream"], "answer": "white", "category": [top]},
        {"question": f"Which body part is visible in {domain} item {entry}?", "choices": ["eyes", "nose", "hands"], "answer": "hands", "category": [other]},
        {"question": f"How many shapes does {domain} item {entry} have?", "choices": ["1", "2", "3", "4", "5"], "answer": str(1 + entry % 5), "category": [top]},
        {"question": f"Broken {domain} question {entry} with one choice?", "choices": ["only"], "answer": "only", "category": [top]},
        {"question": f"Broken {domain} question {entry} whose answer is missing?", "choices": ["a", "b"], "answer": "c", "category": [other]},
    ]


def build_captionqa(root: str | Path, per_domain: int = 3, seed: int = 0, all_order: tuple[str, ...] | None = None) -> Path:
    """Write a CaptionQA copy under ``root``: data/<split>-00000-of-00001.parquet for the four
    domains and for "all", whose row order deliberately differs from domain order by default (the
    official option shuffle walks the "all" order); ``all_order`` sets the domains' order in "all"
    (the release's is natural, document, ecommerce, embodiedai). Every third image set has two
    images."""
    from datasets import Dataset, Features, List, Value
    from datasets import Image as ImageFeature

    from lmms_comparative.data.captionqa import taxonomy

    root = Path(root)
    (root / "data").mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    features = Features(
        {
            "id": Value("string"),
            "images": List(ImageFeature()),
            "questions": List({"question": Value("string"), "choices": List(Value("string")), "answer": Value("string"), "category": List(Value("string"))}),
        }
    )
    rows_by_domain = {}
    for domain, prefix in _CAPTIONQA_PREFIX.items():
        tops = list(taxonomy(domain))
        rows = []
        for i in range(per_domain):
            images = [_draw_pair(rng)[0] for _ in range(2 if i % 3 == 2 else 1)]
            rows.append({"id": f"{prefix}_{i + 1:03d}", "images": images, "questions": _captionqa_questions(rng, domain, i, tops)})
        rows_by_domain[domain] = rows
        Dataset.from_list(rows, features=features).to_parquet(str(root / "data" / f"{domain}-00000-of-00001.parquet"))
    everything = [row for domain in (all_order or tuple(reversed(list(rows_by_domain)))) for row in rows_by_domain[domain]]
    Dataset.from_list(everything, features=features).to_parquet(str(root / "data" / "all-00000-of-00001.parquet"))
    return root


# ---- MLLM-CompBench -----------------------------------------------------------------------------


def build_compbench(root: str | Path, per_source: int = 5, seed: int = 0, layout: str = "release") -> Path:
    """Write a CompBench copy under ``root`` and the images it names.

    ``layout="release"``: ``annotations/<label>.json`` for the fourteen sources, keys of the release
    README, image paths relative to the root; MagicBrush options as one string (release issue #2).
    ``layout="prerelease"``: the authors' working layout (github RaptorMai/CompBenchReview):
    ``Labeled_data/<label>/<file>.json`` with that repository's file names and keys (MagicBrush
    ``path_input``/``path_output``/``Modified_option``/``Answeer``, Spot-the-diff ``Modified_option``/
    ``Answer``, SoccerNet ``left``/``right``, Q-Bench2 ``option`` and questions that carry their
    options), image paths relative to ``dataset/`` or to the source's folder in it, and a decoy
    ``*_test.json`` beside one file.

    Every question carries a unique ``#source-i`` tag. Both layouts have an empty record ``{}`` in
    VAW and MIT-States/VAW records whose ``type`` is "None" (in neither of the authors' splits).
    Depth pairs have a second image of another size (the merged image then differs from a plain
    concatenation)."""
    from lmms_comparative.data.compbench import IMAGE_FOLDERS, PRERELEASE_FILES

    if layout not in ("release", "prerelease"):
        raise ValueError(f"layout must be 'release' or 'prerelease', got {layout!r}")
    pre = layout == "prerelease"
    root = Path(root)
    rng = random.Random(seed)
    # Pre-release paths: these sources name the dataset folder in the path, the others start inside it.
    with_folder = {"mb", "sd", "ce", "cu", "cc", "fe", "wf", "qb"}
    label_of = {"st": "st_label", "fa": "fashion_label", "va": "vaw_label", "cu": "cub_label", "wf": "Wildfish_label", "mb": "mb_label", "sd": "spot_difference_label",
                "ce": "celebA_label", "fe": "fer2013_label", "sn": "soccernet_label", "cc": "car_label", "nd": "depth_label", "vq": "vqav2_label", "qb": "qbench2_label"}  # fmt: skip

    def place(source: str, name: str, image: Image.Image) -> str:
        if not pre:
            path, ref = root / "images" / source / name, f"images/{source}/{name}"
        else:
            folder = IMAGE_FOLDERS[label_of[source]][0]
            inner = f"{source}/{name}"
            path = root / "dataset" / folder / inner
            ref = f"{folder}/{inner}" if source in with_folder else inner
        path.parent.mkdir(parents=True, exist_ok=True)
        image.save(path)
        return ref

    def pair(source: str, i: int, single: bool = False) -> dict:
        first, second = _draw_pair(rng)
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
        labels[label_of[source]] = [{**pair(source, i), "question": f"Which one is more striking? #{source}-{i}", "answer": side(i)} for i in range(per_source)]
    types = ["State", "Color", "State", "Size", "None", "Shape", "State", "Texture"]
    for source in ("st", "va"):
        labels[label_of[source]] = [{**pair(source, i), "question": f"Which one is more worn? #{source}-{i}", "answer": side(i), "type": types[i % len(types)]} for i in range(2 * per_source)]
    labels["vaw_label"].insert(1, {})
    labels["car_label"] = [{**pair("cc", i), "answer": side(i)} for i in range(per_source)]
    labels["soccernet_label"] = [{**pair("sn", i), "answer": side(i), "action": f"Corner #sn-{i}", "CLIP_similarity": 0.9} for i in range(per_source)]
    labels["vqav2_label"] = [{**pair("vq", i), "question": f"Which image has more dogs? #vq-{i}", "answer": ["Left", "Right", "Same"][i % 3]} for i in range(per_source)]
    for source in ("mb", "sd"):
        rows = []
        for i in range(per_source):
            options = [f"red car #{source}-{i}", f"blue door #{source}-{i}", f"the tree #{source}-{i}"][: 2 + i % 2]
            answer = options[i % len(options)] if i % 4 else "None"
            if pre:  # Modified_option: one string, the way the authors stored it (a trailing ", " included)
                keys = ("Modified_option", "Answeer") if source == "mb" else ("Modified_option", "Answer")
                rows.append({**pair(source, i), keys[0]: ", ".join(options) + ", ", keys[1]: answer})
            else:
                rows.append({**pair(source, i), "options": ", ".join(options) if source == "mb" else options, "answer": answer})
        labels[label_of[source]] = rows
    qb_options = ["The left image", "The right image", "They are equally sharp"]
    qb = []
    for i in range(per_source):
        options = qb_options[: 2 + i % 2]
        question = f"Which image is sharper? #qb-{i}"
        if pre:  # the authors' questions carry their options and instruction (CompBenchReview q-bench2_eval.py)
            qb.append({**pair("qb", i, single=True), "question": f"{question} Options: {', '.join(options)}. Please only return one of the options without any other words or punctuation.", "answer": options[i % len(options)], "option": options})
        else:
            qb.append({**pair("qb", i, single=True), "question": question, "options": options, "answer": options[i % len(options)]})
    labels["qbench2_label"] = qb
    for label, rows in labels.items():
        if pre:
            path = root / "Labeled_data" / label / PRERELEASE_FILES[label]
        else:
            path = root / "annotations" / f"{label}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    if pre:
        decoy = root / "Labeled_data" / "cub_label" / "CUB_0_1000_rebalanced_fixed_path_test.json"
        decoy.write_text("[]", encoding="utf-8")
    return root


# ---- ViDi ---------------------------------------------------------------------------------------

_VIDI_DIFFERENCES = [
    "The car parked on the left side of the street is red or blue.",
    "The number of birds on the roof is 3 or 5.",
    "The sign above the door reads OPEN or CLOSED.",
    "The tree behind the fence has leaves or is bare.",
    "The window on the top floor is open or closed.",
    "The dog near the bench is sitting or standing.",
]


def build_vidi(root: str | Path, pairs: int = 4, seed: int = 0) -> Path:
    """Write a ViDi copy under ``root``: a folder per pair (two images and a text file: the source
    URL, then 3-5 difference sentences), and the last pair in the flat one-stem layout."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    for i in range(pairs):
        first, second = _draw_pair(rng)
        differences = [f"{d[:-1]} in scene {i}." for d in _VIDI_DIFFERENCES[: 3 + i % 3]]
        text = "\n".join([f"https://example.org/pairs/{i}", *differences]) + "\n"
        if i == pairs - 1:
            stem = f"pair_{i:03d}"
            first.save(root / f"{stem}_a.png")
            second.save(root / f"{stem}_b.png")
            (root / f"{stem}.txt").write_text(text, encoding="utf-8")
        else:
            folder = root / f"pair_{i:03d}"
            folder.mkdir(exist_ok=True)
            first.save(folder / "1.png")
            second.save(folder / "2.png")
            (folder / "differences.txt").write_text(text, encoding="utf-8")
    return root


# ---- VLM2-Bench ---------------------------------------------------------------------------------


def write_video(path: str | Path, scenes: list[Image.Image], frames_per_scene: int = 4, fps: int = 4) -> Path:
    """Write a small real video (MPEG-4 part 2 in an .mp4 container, decodable by PyAV, decord and
    ffmpeg): each scene image held for ``frames_per_scene`` frames. PyAV comes with lmms-eval."""
    import av
    import numpy as np

    path = Path(path)
    width, height = scenes[0].size
    with av.open(str(path), "w") as container:
        stream = container.add_stream("mpeg4", rate=fps)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        for scene in scenes:
            frame = av.VideoFrame.from_ndarray(np.asarray(scene.convert("RGB")), format="rgb24")
            for _ in range(frames_per_scene):
                for packet in stream.encode(frame):
                    container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path


def build_vlm2bench(root: str | Path, seed: int = 0) -> Path:
    """Write an unpacked vlm2-bench_dataset.zip under ``root``: the nine question files and their
    images and real videos (MPEG-4, a few frames per person). Every question
    carries a unique ``[tag]``. Pairs include an incomplete one (its negative half missing)."""
    root = Path(root)
    rng = random.Random(seed)
    media = {"gc": "data/gc/processed", "oc": "data/oc/original_obj", "pc": "data/pc/image/picks_face"}

    def images(cat: str, name: str, n: int) -> list[str]:
        names = []
        for j in range(n):
            rel = f"{name}_{j}.png"
            (root / media[cat] / rel).parent.mkdir(parents=True, exist_ok=True)
            _draw_pair(rng)[0].save(root / media[cat] / rel)
            names.append(rel)
        return names

    def write(path: str, records: list[dict]) -> None:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")

    for task in ("mat", "trk"):
        rows = []
        for i in range(4):
            for gt in ("T", "F") if i < 3 else ("T",):  # pair 3 is incomplete
                rows.append({"q_id": f"{task}{i}", "task": task, "question": f"[gc_{task}-{i}-{gt}] Is the same object in both images? Answer T or F.", "gt_answer": gt, "edited_prompt": "", "images": images("gc", f"{task}/{i}{gt}", 2)})
        write(f"jsonl/gc/vanilla/gc_{task}.jsonl", rows)
    for cat in ("oc", "pc"):
        rows = []
        for i in range(4):
            for half in ("p", "n") if i < 3 else ("p",):
                # The release's PC-Cpr ids carry a "tf_" prefix (tf_300_p); OC-Cpr's do not.
                rows.append({"q_id": f"{'tf_' if cat == 'pc' else ''}{i}_{half}", "type": "thing", "question": f"[{cat}_cpr-{i}-{half}] Are these the same? Answer T or F.", "gt_answer": "T" if half == "p" else "F", "images": images(cat, f"cpr/{i}{half}", 2)})
        write(f"jsonl/{cat}/vanilla/{cat}_cpr.jsonl", rows)
        rows = []
        for i in range(5):
            n = 2 + i % 3
            rows.append({"q_id": f"cnt{i}", "type": "thing", "question": f"[{cat}_cnt-{i}] How many distinct objects are there? Answer with a number.", "gt_answer": 1 + i % n, "image_seq_len": n, "images": images(cat, f"cnt/{i}", n)})
        write(f"jsonl/{cat}/vanilla/{cat}_cnt.jsonl", rows)
        rows = [
            {"q_id": f"grp{i}", "type": "thing", "question": f"[{cat}_grp-{i}] Which images show the same object? (A) 1 and 2 (B) 1 and 3 (C) 2 and 3 (D) none", "gt_answer": "(ABCD"[1 + i % 4] + ") choice", "images": images(cat, f"grp/{i}", 3)}
            for i in range(4)
        ]
        write(f"jsonl/{cat}/vanilla/{cat}_grp.jsonl", rows)
    video_dir = root / "data/pc/video/UNI"
    video_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for vid in ("vid_AB_1", "vid_AB_2", "vid_ABA_1", "vid_ABA_2"):
        person_a, person_b = _draw_pair(rng)
        scenes = [person_a, person_b, person_a] if "ABA" in vid else [person_a, person_b]
        write_video(video_dir / f"{vid}.mp4", scenes)
        rows.append({"vid": vid, "question": f"[{vid}] Describe the people in this video.", "gt_answer": ""})
    write("jsonl/pc/vallina/pc_v_open-ended.jsonl", rows)
    return root
