"""The SubtleBench loader and hooks on the official layout, including broken copies."""

from __future__ import annotations

import json
import shutil

import pytest

from lmms_comparative.benchmarks.subtlebench import data, hooks
from lmms_comparative.benchmarks.subtlebench.fixture import build as build_subtlebench
from lmms_comparative.benchmarks.subtlebench.prompts import STANDARD_SYSTEM
from lmms_comparative.data import DataError, items


@pytest.fixture
def root(tmp_path, monkeypatch):
    build_subtlebench(tmp_path / "sb", per_category=2)
    monkeypatch.setenv("SUBTLEBENCH_ROOT", str(tmp_path / "sb"))
    return tmp_path / "sb"


def _rewrite(root, edit):
    path = root / "data" / "test.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    lines = edit(records)
    path.write_text("\n".join(lines) + "\n")


def test_docs_resolve_hub_urls_against_the_root(root):
    docs = data.category_docs("spatial")
    assert len(docs) == 2
    for doc in docs:
        assert doc["image_1"].startswith(str(root.resolve() / "images" / "spatial"))
        assert doc["options"][ord(doc["answer_letter"]) - 65] == doc["answer"]
        assert doc["item_id"] == f"spatial_{doc['source']}_{doc['source_id']}"


def test_all_ten_categories_and_several_domains(root):
    docs = data.load_docs("test")
    assert {d["category"] for d in docs} == set(data.CATEGORIES.values())
    assert len({d["domain"] for d in docs}) >= 3
    assert {len(d["options"]) for d in docs} >= {2, 3}


def test_missing_root_names_the_variable_and_the_path(tmp_path, monkeypatch):
    monkeypatch.setenv("SUBTLEBENCH_ROOT", str(tmp_path / "nowhere"))
    with pytest.raises(DataError, match=r"SUBTLEBENCH_ROOT=.*nowhere.*data/test.jsonl"):
        data.category_docs("state")


def test_root_without_data_file(tmp_path, monkeypatch):
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("SUBTLEBENCH_ROOT", str(tmp_path / "empty"))
    with pytest.raises(DataError, match=r"no .*empty/data/test.jsonl"):
        data.category_docs("state")


def test_missing_image_is_skipped_and_counted(root):
    before = len(hooks.process_docs_emotion(None))
    victim = next((root / "images" / "emotion").glob("*_2.png"))
    victim.unlink()
    docs = hooks.process_docs_emotion(None)
    assert len(docs) == before - 1 and all(victim.name not in d["image_2"] for d in docs)
    assert json.loads(docs[0]["skipped"]) == {"missing image": 1}


def test_record_without_distractors_names_file_and_line(root):
    def drop(records):
        records[3].pop("distractors")
        return [json.dumps(r) for r in records]

    records = [json.loads(line) for line in (root / "data" / "test.jsonl").read_text().splitlines()]
    _rewrite(root, drop)
    # unified_adapter.py skips a record without its REQUIRED_FIELDS: skipped, named, counted.
    with items.collecting(items.Skips()) as skips:
        docs = data.category_docs(records[3]["category"])
    assert records[3]["question"] not in {d["question"] for d in docs}
    assert "test.jsonl:4: record lacks required field(s) ['distractors']" in skips.by_reason["malformed record"][0]


def test_empty_distractors_are_skipped_and_broken_json_is_an_error(root):
    first = json.loads((root / "data" / "test.jsonl").read_text().splitlines()[0])
    _rewrite(root, lambda rs: [json.dumps({**rs[0], "distractors": []})] + [json.dumps(r) for r in rs[1:]])
    with items.collecting(items.Skips()) as skips:
        data.category_docs(first["category"])
    assert "test.jsonl:1: 'distractors' must be a non-empty list" in skips.by_reason["malformed record"][0]
    _rewrite(root, lambda rs: [json.dumps(rs[1]), "{not json"])
    with pytest.raises(DataError, match=r"test.jsonl:2: not valid JSON"):
        data.load_docs("test")


def test_corrupt_image_names_the_doc(root):
    doc = data.category_docs("quality")[0]
    with open(doc["image_2"], "wb") as handle:
        handle.write(b"not a png")
    with pytest.raises(DataError, match=rf"doc {doc['item_id']}: cannot read image_2"):
        hooks.doc_to_visual(doc)


def test_prompts_are_the_official_text(root):
    doc = data.category_docs("action")[0]
    text = hooks.doc_to_text(doc)
    options = "\n".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(doc["options"]))
    user = (
        f"Question: {doc['question']}\n\nCarefully examine the images and choose the best description of the "
        f"key visual difference.\n\nOptions:\n{options}"
    )
    assert text == STANDARD_SYSTEM + "\n\n" + user
    messages = hooks.doc_to_messages(doc)
    assert messages[0] == {"role": "system", "content": [{"type": "text", "text": STANDARD_SYSTEM}]}
    assert [c["type"] for c in messages[1]["content"]] == ["image", "image", "text"]
    assert messages[1]["content"][2]["text"] == user
    reasoning = hooks.doc_to_messages(doc, {"prompt": "reasoning"})
    assert "### Reasoning" in reasoning[0]["content"][0]["text"]
    with pytest.raises(ValueError, match="unknown SubtleBench prompt"):
        hooks.doc_to_text(doc, {"prompt": "nope"})


def test_process_results_scores_garbage_as_unparsed_and_failures_apart(root):
    doc = data.category_docs("temporal")[0]
    right = hooks.process_results(doc, [doc["answer_letter"]])["accuracy"]
    assert (right["correct"], right["status"]) == (1, "ok")
    garbage = hooks.process_results(doc, ["no idea"])["accuracy"]
    assert (garbage["correct"], garbage["status"]) == (0, "unparsed")
    failed = hooks.process_results(doc, ["[LMMS_EVAL_REQUEST_FAILED after 3 retries] boom"])["accuracy"]
    assert (failed["correct"], failed["status"]) == (None, "failed")
    # Idempotent: the same input gives the same output (lmms-eval retries process_results).
    assert hooks.process_results(doc, ["no idea"]) == hooks.process_results(doc, ["no idea"])


def test_option_order_does_not_depend_on_the_copy(root, tmp_path):
    """Same records in another folder, read in reverse order: same options per item."""
    first = {d["item_id"]: d["options"] for d in data.load_docs("test")}
    other = tmp_path / "copy"
    shutil.copytree(root, other)
    path = other / "data" / "test.jsonl"
    path.write_text("\n".join(reversed(path.read_text().splitlines())) + "\n")
    second = {d["item_id"]: d["options"] for d in data.load_docs("test", base=other)}
    assert first == second


def test_simple_models_get_both_images_in_order(root):
    from PIL import Image

    doc = data.category_docs("existence")[0]
    first, second = hooks.doc_to_visual(doc)
    assert first.tobytes() == Image.open(doc["image_1"]).convert("RGB").tobytes()
    assert second.tobytes() == Image.open(doc["image_2"]).convert("RGB").tobytes()
    assert first.tobytes() != second.tobytes()


def test_difficulty_factors_are_the_scalar_generation_info_fields():
    from lmms_comparative.benchmarks.subtlebench.data import scalar_factors

    info = {
        "amount": 0.1,
        "n_shapes": 7,
        "mode": "scale",
        "changed_bbox": [1, 2, 3, 4],
        "params": {"size": [20, 40]},
        "flag": True,
    }
    assert scalar_factors(info) == {"amount": 0.1, "n_shapes": 7, "mode": "scale"}
    assert scalar_factors('{"amount": 0.5}') == {"amount": 0.5}  # JSON text, as a hub export may carry it
    assert scalar_factors(None) == {} and scalar_factors("not json") == {}


def test_swapped_order_docs(root):
    original = {d["item_id"]: d for d in data.load_docs()}
    swapped = data.swapped_docs()
    expected = {
        k for k, d in original.items() if sorted(o.lower() for o in d["options"]) == ["first image", "second image"]
    }
    assert {d["item_id"] for d in swapped} == expected and expected
    for doc in swapped:
        before = original[doc["item_id"]]
        assert (doc["image_1"], doc["image_2"]) == (before["image_2"], before["image_1"])
        assert doc["options"] == before["options"] and hooks.doc_to_text(doc) == hooks.doc_to_text(before)
        assert (
            doc["answer_letter"] != before["answer_letter"]
            and doc["answer"] == doc["options"]["AB".index(doc["answer_letter"])]
        )


@pytest.mark.parametrize(
    "value, captioned", [(True, True), (1, True), ("false", False), ("true", False), (False, False), (None, False)]
)
def test_has_caption_is_read_as_the_official_loader_does(root, value, captioned):
    # data_loader.py load_items(has_caption=True) drops an item when item.get("has_caption") != True
    # (run on these values: it keeps True and 1 only).
    def edit(records):
        records[0].update(has_caption=value, caption="The red shape moved.")
        return [json.dumps(r) for r in records]

    _rewrite(root, edit)
    first = data.load_docs("test")[0]
    assert first["has_caption"] is captioned
    from datasets import Dataset

    ids = {d["item_id"] for d in hooks.process_docs_caption(Dataset.from_list([{"x": 1}]))}
    assert (first["item_id"] in ids) is captioned


def test_caption_user_turn_is_text_then_both_images(root):
    """free_form_evaluator.py create_comparison_messages: text, image 1, image 2."""
    from lmms_comparative.benchmarks.subtlebench.prompts import CAPTION_SYSTEM, CAPTION_USER

    doc = data.category_docs("action")[0]
    messages = hooks.caption_doc_to_messages(doc)
    assert messages[0] == {"role": "system", "content": [{"type": "text", "text": CAPTION_SYSTEM}]}
    assert [c["type"] for c in messages[1]["content"]] == ["text", "image", "image"]
    assert messages[1]["content"][0]["text"] == CAPTION_USER
    first, second = hooks.doc_to_visual(doc)
    assert (
        messages[1]["content"][1]["url"].tobytes() == first.tobytes()
        and messages[1]["content"][2]["url"].tobytes() == second.tobytes()
    )


def test_judge_accuracy_is_the_share_of_yes_among_all_outputs():
    # Paper appendix B.3: the share of outputs labelled Yes. "Maybe" is an output that is not Yes;
    # a failed call (None) has no output and is counted apart.
    verdict = hooks.judge_accuracy(["Yes", "No.", "I cannot tell.", "Yes, it matches.", None, ""])
    assert verdict == {"judge_accuracy": 2 / 5, "judged": 5, "yes": 2, "neither": 2, "unjudged": 1}
    assert (
        hooks.judge_accuracy([None, None])["judge_accuracy"] != hooks.judge_accuracy([None, None])["judge_accuracy"]
    )  # NaN


def test_grid_prompt_is_the_official_one_and_the_paper_variant_keeps_figure_11(root):
    from lmms_comparative.benchmarks.subtlebench.prompts import GRID_SYSTEM, REASONING_SYSTEM

    doc = data.category_docs("state")[0]
    # prompts/multiple_choice_evaluator.py create_grid_messages: MULTIPLE_CHOICE_SYSTEM_PROMPT, the
    # plain user prompt (no preamble).
    assert hooks.doc_to_messages(doc, {"prompt": "grid"})[0]["content"][0]["text"] == REASONING_SYSTEM
    assert hooks.doc_to_text(doc, {"prompt": "grid"}) == hooks.doc_to_text(doc, {"prompt": "reasoning"})
    assert hooks.doc_to_messages(doc, {"prompt": "grid_paper"})[0]["content"][0]["text"] == GRID_SYSTEM
    assert "The grid lines are added to both images" in GRID_SYSTEM
