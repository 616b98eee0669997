"""The synthetic generator: deterministic, each difference really present where it says, answers right."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from lmms_comparative.benchmarks.subtlebench import synthetic


def _records(root):
    return [json.loads(line) for line in (root / "data" / "test.jsonl").read_text().splitlines()]


def _pair(root, record):
    load = lambda f: np.asarray(Image.open(root / record[f].split("/resolve/main/", 1)[1]).convert("RGB"), dtype=int)  # noqa: E731
    return load("image_1"), load("image_2")


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    return synthetic.generate(tmp_path_factory.mktemp("syn"), per_type=6, seed=3)


def test_deterministic_for_a_seed(generated, tmp_path):
    again = synthetic.generate(tmp_path / "again", per_type=6, seed=3)
    assert (again / "data" / "test.jsonl").read_text() == (generated / "data" / "test.jsonl").read_text()
    for record in _records(generated)[:8]:
        a = _pair(generated, record)
        b = _pair(again, record)
        assert (a[0] == b[0]).all() and (a[1] == b[1]).all()
    other = synthetic.generate(tmp_path / "other", per_type=6, seed=4)
    assert (other / "data" / "test.jsonl").read_text() != (generated / "data" / "test.jsonl").read_text()


def test_local_differences_stay_inside_the_changed_object(generated):
    for record in _records(generated):
        if record["category"] == "viewpoint":
            continue
        first, second = _pair(generated, record)
        changed = np.argwhere((first != second).any(axis=2))
        assert len(changed), record["answer"]
        x0, y0, x1, y1 = record["generation_info"]["changed_bbox"]
        assert (
            changed[:, 1].min() >= x0
            and changed[:, 1].max() < x1
            and changed[:, 0].min() >= y0
            and changed[:, 0].max() < y1
        ), record


def test_answer_keys(generated):
    from scipy import ndimage

    for record in _records(generated):
        first, second = _pair(generated, record)
        ink = [(im < 250).any(axis=2) for im in (first, second)]
        info = record["generation_info"]
        assert record["answer"] not in record["distractors"] and len(set(record["distractors"])) == len(
            record["distractors"]
        )
        if record["category"] == "quantity":
            counts = [ndimage.label(m)[1] for m in ink]
            assert record["answer"] == ("second image" if counts[1] > counts[0] else "first image")
        elif record["category"] == "existence":
            x0, y0, x1, y1 = info["changed_bbox"]
            inside = [m[y0:y1, x0:x1].sum() for m in ink]
            assert record["answer"].endswith(" appeared") == (inside[1] > inside[0])
        elif record["category"] == "attribute":
            x0, y0, x1, y1 = info["changed_bbox"]
            if info["mode"] == "scale":
                areas = [m[y0:y1, x0:x1].sum() for m in ink]
                assert ("larger" in record["answer"]) == (areas[1] > areas[0])
            else:
                mask = ink[0][y0:y1, x0:x1] & ink[1][y0:y1, x0:x1]
                light = [im[y0:y1, x0:x1][mask].mean() for im in (first, second)]
                assert ("brighter" in record["answer"]) == (light[1] > light[0])
        elif record["category"] == "spatial":
            x0, y0, x1, y1 = info["changed_bbox"]
            diff = (first != second).any(axis=2)
            ys, xs = [np.argwhere(m[y0:y1, x0:x1] & diff[y0:y1, x0:x1]).mean(axis=0) for m in ink]
            step = {"left": (0, -1), "right": (0, 1), "up": (-1, 0), "down": (1, 0)}[info["direction"]]
            moved = np.array(xs) - np.array(ys)  # centroid of the object's changed pixels: second minus first
            assert np.sign(moved[0] * step[0] + moved[1] * step[1]) == 1
        elif record["category"] == "viewpoint" and info["mode"] == "translation":
            centres = [np.argwhere(m).mean(axis=0) for m in ink]
            dy, dx = centres[1] - centres[0]
            scene = {
                "The camera moved left": (0, 1),
                "The camera moved right": (0, -1),
                "The camera moved up": (1, 0),
                "The camera moved down": (-1, 0),
            }[record["answer"]]
            assert dy * scene[0] + dx * scene[1] > 0  # the scene moves opposite to the camera


def test_factors_are_parameters():
    params = synthetic.params_from_specs(
        ["attribute.brightness_shift=0.25", "attribute.mode=brightness", "existence.n_shapes=4,6"]
    )
    assert params["attribute"].brightness_shift == (0.25, 0.25) and params["attribute"].mode == "brightness"
    assert params["existence"].n_shapes == (4.0, 6.0)
    with pytest.raises(ValueError, match="unknown parameter"):
        synthetic.parse_param("attribute.colourfulness=2")
    lab = synthetic.srgb_to_oklab((200, 40, 40))
    assert synthetic.oklab_to_srgb(lab) == (200, 40, 40)
    brighter = synthetic.srgb_to_oklab(synthetic.shift_lightness((200, 40, 40), 0.1))
    assert brighter[0] == pytest.approx(lab[0] * 1.1, rel=0.02)
