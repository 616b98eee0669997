"""The ``pixel_diff`` baseline answers every item it can and never stops a run on a pair its rules
were not made for: no change, changes at the border, a shape that vanishes, images of two sizes."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import base_env, eval_args, read_run, run_cli
from PIL import Image

from lmms_comparative.models.pixel_diff import describe_change

WHITE = np.full((60, 80, 3), 255)


def _square(image: np.ndarray, y: int, x: int, size: int, colour=(200, 30, 30)) -> np.ndarray:
    out = image.copy()
    out[y : y + size, x : x + size] = colour
    return out


RED = _square(WHITE, 20, 20, 10)
PAIRS = {
    "no change": (RED, RED.copy()),
    "a shape that vanishes": (RED, WHITE),
    "a shape that appears": (WHITE, RED),
    "changes at the border": (_square(WHITE, 0, 0, 5), _square(WHITE, 55, 75, 5)),
    "images of two sizes": (RED, _square(np.full((40, 80, 3), 255), 5, 5, 5)),
    "nothing drawn": (WHITE, WHITE.copy()),
}
CATEGORIES = ("attribute", "existence", "spatial", "quantity", "viewpoint", "state", "")


@pytest.mark.parametrize("category", CATEGORIES)
@pytest.mark.parametrize("pair", list(PAIRS))
def test_a_pair_that_defeats_the_rules_gives_phrases_or_none_never_an_error(pair, category):
    first, second = PAIRS[pair]
    found = describe_change(first, second, category)
    assert isinstance(found, list) and all(isinstance(p, str) for p in found)
    if pair in ("no change", "nothing drawn", "images of two sizes"):
        assert found == []


def test_a_vanished_shape_still_names_the_change():
    """An attribute pair whose shape shrank to nothing (it crashed the run: a zero-size reduction)."""
    (phrase, *_) = describe_change(RED, WHITE, "attribute")
    assert "became smaller" in phrase


@pytest.mark.e2e
def test_a_run_over_pairs_that_defeat_it_answers_every_item(subtlebench_root, hf_home, tmp_path):
    """A SubtleBench copy whose synthetic pairs are replaced by the pairs above: the run ends with
    exit 0 and a reply for every item."""
    import shutil

    root = tmp_path / "data"
    shutil.copytree(subtlebench_root, root)
    records = [json.loads(line) for line in (root / "data" / "test.jsonl").read_text().splitlines() if line.strip()]
    synthetic = [r for r in records if r["domain"] == "synthetic"]
    assert synthetic
    pairs = list(PAIRS.values())
    for number, record in enumerate(synthetic):
        for field, array in zip(("image_1", "image_2"), pairs[number % len(pairs)]):
            Image.fromarray(array.astype(np.uint8)).save(root / record[field].split("/resolve/main/", 1)[1])
    env = base_env(hf_home, SUBTLEBENCH_ROOT=str(root))
    proc = run_cli(
        eval_args("pixel_diff", "subtlebench", tmp_path / "out"),
        env=env,
    )
    results, samples = read_run(tmp_path / "out", proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert sum(len(rows) for rows in samples.values()) == len(records)
    assert all(row["filtered_resps"] for rows in samples.values() for row in rows)
    assert results["groups"]["subtlebench"]["counts,none"]["failed"] == 0
