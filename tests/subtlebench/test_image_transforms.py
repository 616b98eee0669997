"""The prompting strategies' image constructions on synthetic arrays."""

from __future__ import annotations

import numpy as np
from PIL import Image

from lmms_comparative.benchmarks.subtlebench import image_transforms as T


def _img(array) -> Image.Image:
    return Image.fromarray(np.asarray(array, dtype=np.uint8))


def test_grid_lines_are_black_at_thirty_percent():
    out = np.asarray(T.grid_overlay(_img(np.full((40, 40, 3), 200))))
    assert out.shape == (40, 40, 3)
    assert abs(int(out[10, 5, 0]) - round(200 * 0.7)) <= 1  # on the line y = 40 // 4
    assert out[5, 5, 0] == 200  # off the lines
    assert (out[:, 10, 0] < 200).all() and (out[:, 9, 0] < 200).all() and (out[:, 11, 0] < 200).all()  # 3 px wide


def test_official_grid_is_one_pixel_lines_of_grey_76():
    # prompts/multiple_choice_evaluator.py create_grid_messages, run on these arrays (its image
    # before the JPEG encoding): lines at y = h*i//4 and x = w*i//4, i = 1..3, 1 px, (76, 76, 76).
    out = np.asarray(T.grid_overlay_official(_img(np.full((40, 40, 3), 200))))
    lines = {10, 20, 30}
    for y in range(40):
        for x in range(40):
            expected = 76 if (x in lines or y in lines) else 200
            assert (out[y, x] == expected).all(), (y, x)
    # uneven sizes: h = 7 -> rows 1, 3, 5; w = 10 -> columns 2, 5, 7
    odd = np.asarray(T.grid_overlay_official(_img(np.full((7, 10, 3), 255))))
    assert sorted(set(np.nonzero(odd[:, 0, 0] == 76)[0])) == [1, 3, 5]
    assert sorted(set(np.nonzero(odd[0, :, 0] == 76)[0])) == [2, 5, 7]
    assert int((odd[:, :, 0] == 76).sum()) == 3 * 10 + 3 * 7 - 9


def test_concatenation_has_a_one_pixel_black_separator():
    out = np.asarray(T.concatenate(_img(np.full((10, 20, 3), 255)), _img(np.full((20, 10, 3), 100))))
    assert out.shape == (10, 20 + 1 + 5, 3)
    assert (out[:, 20] == 0).all() and (out[:, :20] == 255).all() and (out[:, 21:] == 100).all()


def test_overlap_is_the_mean():
    out = np.asarray(T.overlap(_img(np.full((8, 8, 3), 200)), _img(np.full((8, 8, 3), 100))))
    assert (np.abs(out.astype(int) - 150) <= 1).all()


def test_subtraction_is_normalised_by_its_maximum():
    a = np.zeros((6, 6, 3))
    b = np.zeros((6, 6, 3))
    b[0, 0] = 60
    b[1, 1] = 30
    out = np.asarray(T.subtraction(_img(a), _img(b)))[..., 0]
    assert out[0, 0] == 255 and abs(int(out[1, 1]) - 127) <= 1 and out[5, 5] == 0
    assert (np.asarray(T.subtraction(_img(a), _img(a))) == 0).all()  # no division by zero


def test_highlight_keeps_large_regions_only_and_dims_the_rest():
    a = np.full((200, 200, 3), 200)  # changes cover 5% of it: the 90th percentile of G is 0
    b = a.copy()
    b[10:40, 10:40] = 0  # largest change, 900 px
    b[60:80, 60:80] = 0  # 400 px: under half of the largest, dropped
    b[10:35, 60:90] = 0  # 750 px: kept
    boxes = T.change_boxes(T.difference_map(_img(a), _img(b)))
    assert sorted(boxes) == [(10, 10, 40, 40), (60, 10, 90, 35)]
    h1, h2 = T.highlight(_img(a), _img(b))
    h1 = np.asarray(h1)
    assert tuple(h1[20, 20]) == (200, 200, 200)  # inside a box: untouched
    assert tuple(h1[70, 70]) == (100, 100, 100)  # outside: dimmed by 0.5
    assert tuple(h1[150, 150]) == (100, 100, 100)
    assert tuple(h1[10, 25]) == (0, 255, 0)  # green border


def test_outputs_are_those_of_the_float_implementation_pixel_for_pixel():
    """Boxes and every output pixel equal what the scipy/float32 implementation returned on the
    same pairs (recorded in tests/data before the rewrite): edge cases included (identical images,
    ties in area, changes at the borders, other sizes and modes, images smaller than the 5x5
    structuring element)."""
    import json
    from pathlib import Path

    from helpers import image_pairs

    expected = json.loads((Path(__file__).parent / "data" / "image_transforms_expected.json").read_text())
    got = image_pairs.outputs(T)
    assert sorted(got) == sorted(expected)
    for name in expected:
        assert got[name] == expected[name], name


def test_box_rule_agrees_with_the_scipy_path_on_random_masks():
    """The OpenCV morphology and labelling give the scipy.ndimage path's boxes on random masks of
    every density (the public change_boxes on G, which the golden file covers too, uses it)."""
    rng = np.random.RandomState(7)
    for trial in range(60):
        h, w = rng.randint(1, 90), rng.randint(1, 90)
        mask = rng.rand(h, w) < rng.choice([0.05, 0.3, 0.6, 0.9])
        for max_boxes in (1, 3, 5):
            assert T._boxes_of_mask(mask, max_boxes, 0.5, 5) == T._boxes_of_mask_scipy(mask, max_boxes, 0.5, 5), (
                trial,
                max_boxes,
            )
    assert T._boxes_of_mask(np.zeros((10, 10), bool), 3, 0.5, 5) == []
