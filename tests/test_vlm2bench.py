"""VLM2-Bench: the official scoring rules by hand, and the nine subtasks through the real CLI."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from conftest import assert_group_interval, assert_interval, base_env, read_run, run_cli
from fake_openai import FakeOpenAI, message_images, message_text

from lmms_comparative.data.fixtures import build_vlm2bench
from lmms_comparative.metrics import vlm2bench as rules


@pytest.mark.parametrize(
    "text, value",
    [("T", "T"), ("false", "F"), ("The answer is True.", "T"), ("T or F? T", None), ("Yes", None), ("F.", "F"), ("", None)],
)
def test_tf_token(text, value):
    assert rules.parse_tf(text) == value


def test_gc_compares_the_raw_answer():
    assert rules.gc_correct(" T\n", "T") and not rules.gc_correct("True", "T") and not rules.gc_correct("T.", "T")


def test_pair_accuracy_and_incomplete_pairs():
    items = [
        {"pair_id": "1", "half": "p", "correct": 1}, {"pair_id": "1", "half": "n", "correct": 1},
        {"pair_id": "2", "half": "p", "correct": 1}, {"pair_id": "2", "half": "n", "correct": 0},
        {"pair_id": "3", "half": "p", "correct": 1},  # incomplete
    ]  # fmt: skip
    gc = rules.pair_accuracy(items, drop_incomplete=False)
    assert (gc["positive"], gc["negative"], gc["pair"], gc["pairs"]) == (1.0, pytest.approx(1 / 3), pytest.approx(1 / 3), 3)
    ocpc = rules.pair_accuracy(items, drop_incomplete=True)
    assert (ocpc["positive"], ocpc["negative"], ocpc["pair"], ocpc["pairs"]) == (1.0, 0.5, 0.5, 2)


@pytest.mark.parametrize(
    "text, value",
    [("3", 3), ("There are three objects.", 3), ("twenty one", 21), ("one hundred and five", 105), ("2 or 3", None), ("one of the two", 3), ("none", None), ("zero", None)],
)
def test_count_parsing(text, value):
    assert rules.parse_count(text) == value


def test_acc_num_formula_and_denominators():
    # N = 2 of N_img = 4: eps = 1 / max(1, 2) = 0.5, w = 4/4 = 1, score = 1 - 0.5 ** 0.1
    assert rules.count_score(3, 2, 4) == pytest.approx(1 - 0.5**0.1)
    # N_img = 2: w = 2, penalty = 2 * 1 ** 0.1 = 2 >= 1 -> 0
    assert rules.count_score(2, 1, 2) == 0.0
    assert rules.count_score(2, 2, 3) == 1.0
    items = [rules.count_item("2", 2, 4), rules.count_item("3", 2, 4), rules.count_item("7", 2, 4), rules.count_item("many", 2, 4)]
    assert [it["valid"] for it in items] == [True, True, False, False]
    assert rules.acc_num(items) == pytest.approx((1 + 1 - 0.5**0.1) / 2)  # invalid answers leave the denominator


def test_grouping_rule():
    assert rules.grp_correct("(B) images 1 and 3", "(B) 1 and 3")
    assert not rules.grp_correct("(A) or (B)", "(B) x")
    assert rules.grp_correct("B", "B) 1 and 3") and not rules.grp_correct("I think (B)", "(B) x")


def test_video_score_combination():
    items = [{"type": "AB", "score": 1}, {"type": "AB", "score": 0}, {"type": "ABA", "score": 2}, {"type": "ABA", "score": 1}, {"type": "ABA", "score": None}]
    scores = rules.video_scores(items)
    assert scores["ab"] == 50.0 and scores["aba"] == 75.0 and scores["score"] == 62.5
    assert rules.parse_video_score("Score: 2") == 2 and rules.parse_video_score("two") is None


RUN_DIRS: dict[str, Path] = {}  # where the module's CLI runs wrote their results


def mode_of(tag: str) -> str:
    return ["right", "wrong", "verbose"][int(hashlib.md5(tag.encode()).hexdigest(), 16) % 3]


@pytest.fixture(scope="module")
def v2(tmp_path_factory, hf_home):
    root = build_vlm2bench(tmp_path_factory.mktemp("vlm2"))
    records = {}
    for path in root.glob("jsonl/**/*.jsonl"):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            records[re.search(r"\[([^\]]+)\]", record["question"]).group(1)] = record

    def respond(body):
        text = message_text(body)
        if "#Task" in text:  # the video judge
            return "Score: 2" if "ABA pattern" in text else "Score: 1"
        tag = re.search(r"\[([^\]]+)\]", text).group(1)
        record, mode = records[tag], mode_of(tag)
        gt = str(record["gt_answer"])
        if tag.startswith("gc_"):
            return gt if mode == "right" else ({"T": "F", "F": "T"}[gt] if mode == "wrong" else f"{gt}.")  # "T." is wrong for GC
        if "_cpr" in tag:
            return {"right": gt, "wrong": {"T": "F", "F": "T"}[gt], "verbose": f"The answer is {'True' if gt == 'T' else 'False'}."}[mode]
        if "_cnt" in tag:
            return {"right": gt, "wrong": str(int(gt) % record["image_seq_len"] + 1), "verbose": "seven"}[mode]
        return {"right": gt.split(")")[0] + ") yes", "wrong": "(A) or (B)", "verbose": gt}[mode]

    with FakeOpenAI(respond) as server:
        env = base_env(hf_home, VLM2BENCH_ROOT=str(root), **server.judge_env("VLM2BENCH_JUDGE"), LMMS_COMPARATIVE_LLM_CACHE="off")
        out = tmp_path_factory.mktemp("v2_out")
        images = run_cli(["--model", "openai", "--model_args", f"model_version=vlm,base_url={server.base_url},api_key=sk-x", "--tasks", "vlm2bench", "--output_path", str(out / "i"), "--log_samples"], env=env)
        video = run_cli(["--model", "random_choice", "--tasks", "vlm2bench_pc_vid", "--output_path", str(out / "v")], env=env)
        requests = list(server.requests)
    RUN_DIRS.update(images=out / "i", video=out / "v")
    return root, records, requests, read_run(out / "i", images), read_run(out / "v", video)


def _expected(records, prefix):
    return {tag: r for tag, r in records.items() if tag.startswith(prefix)}


def test_tf_subtasks(v2):
    _, records, _, (results, _), _ = v2
    for task, drop in (("gc_mat", False), ("gc_trk", False), ("oc_cpr", True), ("pc_cpr", True)):
        pairs = {}
        for tag, record in _expected(records, task).items():
            pid = record["q_id"].split("_")[0]
            half = "p" if record["gt_answer"] == "T" else "n"
            right = mode_of(tag) == "right" or (mode_of(tag) == "verbose" and not task.startswith("gc"))
            pairs.setdefault(pid, {})[half] = right
        if drop:
            pairs = {k: v for k, v in pairs.items() if len(v) == 2}
        both = sum(v.get("p", False) and v.get("n", False) for v in pairs.values()) / len(pairs)
        row = results["results"][f"vlm2bench_{task}"]
        assert row["score,none"] == pytest.approx(both), task
        assert row["counts,none"]["pairs"] == len(pairs)


def test_count_and_group_subtasks(v2):
    _, records, _, (results, _), _ = v2
    for cat in ("oc", "pc"):
        scores, exact, n = [], 0, 0
        for tag, record in _expected(records, f"{cat}_cnt").items():
            n += 1
            if mode_of(tag) == "right":
                scores.append(1.0)
                exact += 1
            elif mode_of(tag) == "wrong":
                gt, m = int(record["gt_answer"]), record["image_seq_len"]
                pred = gt % m + 1
                eps = abs(pred - gt) / max(gt - 1, m - gt)
                penalty = 4 / m * eps ** (1 / 10)
                scores.append(1 - penalty if penalty < 1 else 0.0)
        row = results["results"][f"vlm2bench_{cat}_cnt"]
        assert row["score,none"] == pytest.approx(sum(scores) / len(scores))
        assert row["exact,none"] == pytest.approx(exact / n)
        grp = [mode_of(tag) != "wrong" for tag in _expected(records, f"{cat}_grp")]
        assert results["results"][f"vlm2bench_{cat}_grp"]["score,none"] == pytest.approx(sum(grp) / len(grp))
    overall = results["groups"]["vlm2bench"]["score,none"]
    subtasks = ["gc_mat", "gc_trk", "oc_cpr", "oc_cnt", "oc_grp", "pc_cpr", "pc_cnt", "pc_grp"]
    assert overall == pytest.approx(sum(results["results"][f"vlm2bench_{t}"]["score,none"] for t in subtasks) / 8)


def test_images_in_order_and_prompt_as_released(v2):
    root, records, requests, _, _ = v2
    from PIL import Image

    media = {"gc": "data/gc/processed", "oc": "data/oc/original_obj", "pc": "data/pc/image/picks_face"}
    checked = 0
    for body in requests:
        text = message_text(body)
        if "#Task" in text:
            continue
        tag = re.search(r"\[([^\]]+)\]", text).group(1)
        record = records[tag]
        assert text == "\n" + record["question"]
        sent = message_images(body)
        assert len(sent) == len(record["images"])
        for image, name in zip(sent, record["images"]):
            assert image.convert("RGB").tobytes() == Image.open(Path(root) / media[tag[:2]] / name).convert("RGB").tobytes()
        checked += 1
    assert checked == sum(1 for t in records if not t.startswith("vid"))


def test_video_task_scored_by_the_judge(v2):
    *_, (results, _) = v2
    row = results["results"]["vlm2bench_pc_vid"]
    # AB judged 1 of 1, ABA judged 2 of 2: both mapped to 100, final 100.
    assert row["score,none"] == pytest.approx(1.0)
    assert row["counts,none"]["ab_n"] == 2 and row["counts,none"]["aba_n"] == 2 and row["counts,none"]["unjudged"] == 0


def test_chance_acc_num_is_exact_and_matches_the_paper():
    assert rules.chance_acc_num([(1, 2), (2, 2)]) == 0.5  # a guess of 1 or 2: one exact, one scored 0
    # Every answer position of sequences of 2, 3 and 4 images, equally mixed: the paper's 34.87-34.88.
    assert rules.chance_acc_num([(gt, n) for n in (2, 3, 4) for gt in range(1, n + 1)]) == pytest.approx(0.3488, abs=5e-4)


def test_scores_recomputed_from_the_samples_file(v2):
    _, _, _, (results, samples), _ = v2
    for cat in ("oc", "pc"):
        cnt = [s["score"] for s in samples[f"vlm2bench_{cat}_cnt"]]
        assert results["results"][f"vlm2bench_{cat}_cnt"]["score,none"] == pytest.approx(rules.acc_num(cnt))
        chance = rules.chance_acc_num((s["gt"], s["n_images"]) for s in cnt)
        assert results["results"][f"vlm2bench_{cat}_cnt"]["counts,none"]["chance_acc_num"] == pytest.approx(chance)
        grp = [s["score"]["correct"] for s in samples[f"vlm2bench_{cat}_grp"]]
        assert results["results"][f"vlm2bench_{cat}_grp"]["score,none"] == pytest.approx(sum(grp) / len(grp))
        pairs = rules.pair_accuracy([s["score"] for s in samples[f"vlm2bench_{cat}_cpr"]], drop_incomplete=True)
        assert results["results"][f"vlm2bench_{cat}_cpr"]["score,none"] == pytest.approx(pairs["pair"])
    # 95% intervals per subtask (pairs resampled for T/F), and the Overall's from the eight.
    parts = []
    for task in ("gc_mat", "gc_trk", "oc_cpr", "oc_cnt", "oc_grp", "pc_cpr", "pc_cnt", "pc_grp"):
        row = results["results"][f"vlm2bench_{task}"]
        assert row["ci95,none"]["unit"] == ("pair" if task.startswith("gc") or task.endswith("cpr") else "question")
        parts.append(row["ci95,none"])
        assert_interval(row["ci95,none"], "score", row["score,none"])
    assert_group_interval(results["groups"]["vlm2bench"]["ci95,none"], parts, "score")


def test_missing_video_and_missing_image_count_are_skipped_and_named(tmp_path, monkeypatch):
    from lmms_comparative.data import items
    from lmms_comparative.data import vlm2bench as data

    root = build_vlm2bench(tmp_path / "v")
    monkeypatch.setenv("VLM2BENCH_ROOT", str(root))
    (root / "data/pc/video/UNI/vid_ABA_2.mp4").unlink()
    full = len(data.subtask_docs("oc_cnt"))
    with items.collecting(items.Skips()) as skips:
        assert "vid_ABA_2" not in {d["uid"] for d in data.subtask_docs("pc_vid")}
    assert len(skips) == 1 and "no video vid_ABA_2.* under" in skips.by_reason["malformed record"][0]
    path = root / "jsonl/oc/vanilla/oc_cnt.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[1].pop("image_seq_len")
    rows[2]["gt_answer"] = "three"  # a non-numeric count
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with items.collecting(items.Skips()) as skips:
        assert len(data.subtask_docs("oc_cnt")) == full - 2
    reasons = skips.by_reason["malformed record"]
    assert "oc_cnt.jsonl:2: counting record has neither image_seq_len nor image_seq" in reasons[0]
    assert "oc_cnt.jsonl:3: counting gt_answer 'three' is not a number" in reasons[1]


def test_video_capability_rule(monkeypatch):
    from lmms_eval.api.model import lmms

    from lmms_comparative.tasks import capabilities
    from lmms_comparative.tasks.capabilities import ModelCapabilityError, class_supports_video, require_video_input

    monkeypatch.setattr(capabilities, "video_decoder_available", lambda: True)  # the decoder check: test_model_classes.py

    class Declared(lmms):
        supports_video = True

    class ImageOnly(Declared):
        supports_video = False

    assert class_supports_video(Declared) and not class_supports_video(ImageOnly)
    # lmms-eval's own models: the OpenAI-compatible one sends video frames, Fuyu has no video path.
    require_video_input("t", "openai")
    with pytest.raises(ModelCapabilityError, match=r"t gives the model a video, and lmms-eval model 'fuyu'"):
        require_video_input("t", "fuyu")
    require_video_input("t", None)  # run model unknown (Python API without a name): go ahead


def test_image_only_model_gets_a_clear_error_on_the_video_task(v2, hf_home, tmp_path):
    root = v2[0]
    env = base_env(hf_home, VLM2BENCH_ROOT=str(root), LMMS_COMPARATIVE_LLM_CACHE="off")
    proc = run_cli(["--model", "pixel_diff", "--tasks", "vlm2bench_pc_vid", "--output_path", str(tmp_path)], env=env)
    assert "vlm2bench_pc_vid gives the model a video, and lmms-eval model 'pixel_diff'" in proc.stderr
    assert not list(tmp_path.glob("**/*_results.json"))
    # The opt-in for a model whose video path the rule cannot see lets the task load.
    env["LMMS_COMPARATIVE_ASSUME_VIDEO"] = "1"
    proc = run_cli(["--model", "pixel_diff", "--tasks", "vlm2bench_pc_vid", "--output_path", str(tmp_path), "--limit", "1"], env=env)
    assert "gives the model a video" not in proc.stderr


def test_report_rows(v2, tmp_path):
    from lmms_comparative.report import write_report

    markdown = write_report([str(RUN_DIRS["images"]), str(RUN_DIRS["video"])], tmp_path).read_text()
    assert "| Chance-Level (paper) | 25.00 | 25.00 | 50.00 | 34.88 |" in markdown and "| Human-Level (paper) | 95.06 |" in markdown  # the paper's two decimals
    assert re.search(r"^\| chance on these items \(vlm\) \| - \| - \| - \| \d", markdown, re.M)
    assert re.search(r"^\| vlm \| .* \| [+-]\d+\.\d\d \|$", markdown, re.M)  # Δ to human
    assert re.search(r"^\| vlm \| [\d.]+ ±[\d.]+ \| ", markdown, re.M)  # bootstrap half-widths
