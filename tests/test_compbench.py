"""MLLM-CompBench: the answer parsers, the release layout and its defects, and the real CLI."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from conftest import base_env, read_run, run_cli
from fake_openai import FakeOpenAI, message_images, message_text

from lmms_comparative.data.fixtures import build_compbench
from lmms_comparative.metrics.compbench import normalize, parse_option, parse_side

COLUMNS = [
    "attribute_mitstates", "attribute_fashionpedia", "attribute_vaw", "attribute_cub", "attribute_wildfish",
    "existence_magicbrush", "existence_spotdiff", "state_mitstates", "state_vaw", "emotion_celeba", "emotion_fer2013",
    "temporality_soccernet", "temporality_compcars", "spatiality_nyudepth", "quantity_vqav2", "quality_qbench2",
]  # fmt: skip


@pytest.mark.parametrize(
    "text, same, side",
    [
        ("Right", False, "Right"),
        ("right.", False, "Right"),
        ("Second", False, "Right"),
        ("The second image.", False, "Right"),
        ("Left", False, "Left"),
        ("FIRST", False, "Left"),
        ("Left is older, so Right", False, "Right"),  # Right/Second is looked for first
        ("The first frame; the second is later", False, "Right"),
        ("Same", True, "Same"),
        ("Same", False, None),  # Same only where the prompt offers it (quantity)
        ("Both have the same number, but left has more", True, "Left"),
        ("brighter", False, None),  # whole words only
        ("", False, None),
        (None, False, None),
    ],
)
def test_side_parser(text, same, side):
    assert parse_side(text, allow_same=same) == side


def test_option_parser_normalises_and_knows_none():
    options = ["A red car", "The blue door"]
    assert parse_option("a red car.", options) == "A red car"
    assert parse_option("  THE BLUE DOOR ", options) == "The blue door"
    assert parse_option("None.", options) == "None"
    assert parse_option("None", options, with_none=False) is None
    assert parse_option("a red car and the blue door", options) is None
    assert normalize("It's  a, test!") == "its a test"


@pytest.fixture(scope="module")
def cb_root(tmp_path_factory) -> Path:
    return build_compbench(tmp_path_factory.mktemp("compbench"))


def _records(root: Path) -> dict[str, dict]:
    """tag -> record, straight from the annotation files."""
    out = {}
    for path in (root / "annotations").glob("*.json"):
        for record in json.loads(path.read_text()):
            blob = json.dumps(record)
            tag = re.search(r"#(\w+-\d+)", blob)
            if tag:
                out[tag.group(1)] = record
    return out


def mode_of(tag: str) -> str:
    return ["right", "wrong", "garbage", "right"][int(hashlib.md5(tag.encode()).hexdigest(), 16) % 4]


def make_responder(records):
    def respond(body):
        text = message_text(body)
        tag = re.search(r"#(\w+-\d+)", text)
        if tag is None:  # CompCars: one fixed question for every pair
            return "Left"
        record, mode = records[tag.group(1)], mode_of(tag.group(1))
        if mode == "garbage":
            return "I am not sure."
        answer = record["answer"]
        if "options" in record:
            options = record["options"] if isinstance(record["options"], list) else [o.strip() for o in record["options"].split(",")]
            if mode == "right":
                return answer.upper() + "."
            return next(o for o in [*options, "None"] if o != answer)
        flip = {"Left": "Right", "Right": "Left", "Same": "Left"}
        said = answer if mode == "right" else flip[answer]
        return {"Left": "The first image.", "Right": "Right", "Same": "Same"}[said]

    return respond


def expected_accuracy(records, column: str) -> float:
    source_tag = {"mitstates": "st", "fashionpedia": "fa", "vaw": "va", "cub": "cu", "wildfish": "wf", "magicbrush": "mb", "spotdiff": "sd", "celeba": "ce", "fer2013": "fe", "soccernet": "sn", "nyudepth": "nd", "vqav2": "vq", "qbench2": "qb"}
    relativity, source = column.split("_")
    if source == "compcars":
        return None
    hits = []
    for tag, record in records.items():
        if tag.split("-")[0] != source_tag[source]:
            continue
        if "type" in record and (record["type"] == "State") != (relativity == "state"):
            continue
        hits.append(mode_of(tag) == "right")
    return sum(hits) / len(hits)


@pytest.fixture(scope="module")
def cb_run(cb_root, hf_home, tmp_path_factory):
    records = _records(cb_root)
    out = tmp_path_factory.mktemp("cb_run")
    with FakeOpenAI(make_responder(records)) as server:
        proc = run_cli(
            ["--model", "openai", "--model_args", f"model_version=vlm,base_url={server.base_url},api_key=sk-x", "--tasks", "compbench,compbench_pair_quantity_vqav2", "--output_path", str(out), "--log_samples"],
            env=base_env(hf_home, COMPBENCH_ROOT=str(cb_root)),
        )
        requests = list(server.requests)
    results, samples = read_run(out, proc)
    return records, requests, results, samples, proc, out


def test_every_column_scores_as_the_policy_predicts(cb_run, cb_root):
    records, _, results, samples, _, _ = cb_run
    for column in COLUMNS:
        row = results["results"][f"compbench_{column}"]
        want = expected_accuracy(records, column)
        if want is None:  # CompCars: the server always says Left
            cars = json.loads((cb_root / "annotations" / "car_label.json").read_text())
            want = sum(r["answer"] == "Left" for r in cars) / len(cars)
            assert row["left_bias,none"]["predicted_left"] == 1.0
        assert row["accuracy,none"] == pytest.approx(want), column
        per_sample = [s["accuracy"]["correct"] for s in samples[f"compbench_{column}"]]
        assert sum(per_sample) / len(per_sample) == pytest.approx(row["accuracy,none"])
    group = results["groups"]["compbench"]
    assert group["accuracy,none"] == pytest.approx(sum(results["results"][f"compbench_{c}"]["accuracy,none"] for c in COLUMNS) / 16)
    assert results["results"]["compbench_attribute_vaw"]["counts,none"]["n"] == 4  # the empty {} record is skipped


def test_chance_levels_follow_the_paper(cb_run):
    _, _, results, _, _, _ = cb_run
    chance = {c: results["results"][f"compbench_{c}"]["chance,none"] for c in COLUMNS}
    assert chance["attribute_cub"] == 0.5 and chance["quantity_vqav2"] == pytest.approx(1 / 3)
    assert chance["existence_magicbrush"] == pytest.approx(1 / 4) and chance["quality_qbench2"] == pytest.approx(1 / 3)


def test_unparseable_answers_are_counted_apart(cb_run, cb_root):
    records, _, results, _, _, _ = cb_run
    garbage = [tag for tag in records if tag.startswith("ce-") and mode_of(tag) == "garbage"]
    assert results["results"]["compbench_emotion_celeba"]["counts,none"]["unparsed"] == len(garbage)


def test_inputs_concatenated_by_default_and_paired_in_the_variant(cb_run):
    _, requests, _, _, _, _ = cb_run
    for body in requests:
        images = message_images(body)
        text = message_text(body)
        if "Which image has more dogs?" in text and len(images) == 2:
            continue  # the compbench_pair variant
        assert len(images) == 1 and images[0].size == (128, 64)
    paired = [b for b in requests if len(message_images(b)) == 2]
    assert len(paired) == 4 and all("If both images have the same number, return Same." in message_text(b) for b in paired)


def test_missing_annotation_file_is_named(hf_home, tmp_path):
    root = build_compbench(tmp_path / "cb")
    (root / "annotations" / "depth_label.json").unlink()
    proc = run_cli(["--model", "random_choice", "--tasks", "compbench_spatiality_nyudepth", "--output_path", str(tmp_path / "o")], env=base_env(hf_home, COMPBENCH_ROOT=str(root)))
    assert not list((tmp_path / "o").glob("**/*_results.json"))
    assert "no annotation file for 'depth_label'" in proc.stdout + proc.stderr


def test_report_has_the_sixteen_columns_and_the_position_bias(cb_run, tmp_path):
    from lmms_comparative.report import write_report

    _, _, results, _, _, out = cb_run
    markdown = write_report([str(out)], tmp_path).read_text()
    header = re.search(r"^\| Model \| ST \| FA .*$", markdown, re.M).group(0)
    assert header.count("|") == 19  # Model, 16 columns, Avg
    row = re.search(r"^\| vlm \| (.*) \|$", markdown, re.M).group(1).split(" | ")
    assert row[-1].startswith(f"{results['groups']['compbench']['accuracy,none'] * 100:.1f}")
    assert "| Chance level (paper) | 50.0 |" in markdown and "Truly Left" in markdown
