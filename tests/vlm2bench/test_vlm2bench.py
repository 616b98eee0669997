"""VLM2-Bench's nine subtasks through the real CLI on the fixture: the scores by the official rules,
the requests as released, the video task's judge, the image-only model's error and the report's
rows. The rules by hand are in test_vlm2bench_scoring.py."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import assert_group_interval, assert_interval, base_env, eval_args, read_run, run_cli
from helpers.fake_openai import FakeOpenAI, message_images, message_text

from lmms_comparative.benchmarks.vlm2bench import scoring as rules
from lmms_comparative.benchmarks.vlm2bench.fixture import build as build_vlm2bench


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
            return (
                gt if mode == "right" else ({"T": "F", "F": "T"}[gt] if mode == "wrong" else f"{gt}.")
            )  # "T." is wrong for GC
        if "_cpr" in tag:
            return {
                "right": gt,
                "wrong": {"T": "F", "F": "T"}[gt],
                "verbose": f"The answer is {'True' if gt == 'T' else 'False'}.",
            }[mode]
        if "_cnt" in tag:
            return {"right": gt, "wrong": str(int(gt) % record["image_seq_len"] + 1), "verbose": "seven"}[mode]
        return {"right": gt.split(")")[0] + ") yes", "wrong": "(A) or (B)", "verbose": gt}[mode]

    with FakeOpenAI(respond) as server:
        env = base_env(
            hf_home, VLM2BENCH_ROOT=str(root), **server.judge_env("VLM2BENCH_JUDGE"), LMMS_COMPARATIVE_LLM_CACHE="off"
        )
        out = tmp_path_factory.mktemp("v2_out")
        images = run_cli(
            [*server.model_cli, "--tasks", "vlm2bench_image", "--output_path", str(out / "i"), "--log_samples"], env=env
        )
        # The nine subtasks (the paper's Overall) need a video model: random_choice takes video.
        video = run_cli(eval_args("random_choice", "vlm2bench", out / "v", log_samples=False), env=env)
        requests = list(server.requests)
    return SimpleNamespace(
        root=root,
        records=records,
        requests=requests,
        images=read_run(out / "i", images),
        video=read_run(out / "v", video),
        dirs={"images": out / "i", "video": out / "v"},
    )


def _expected(records, prefix):
    return {tag: r for tag, r in records.items() if tag.startswith(prefix)}


@pytest.mark.e2e
def test_tf_subtasks(v2):
    records, (results, _) = v2.records, v2.images
    for task, drop in (("gc_mat", False), ("gc_trk", False), ("oc_cpr", True), ("pc_cpr", True)):
        pairs = {}
        for tag, record in _expected(records, task).items():
            pid = record["q_id"].removeprefix("tf_").split("_")[0]
            half = "p" if record["gt_answer"] == "T" else "n"
            right = mode_of(tag) == "right" or (mode_of(tag) == "verbose" and not task.startswith("gc"))
            pairs.setdefault(pid, {})[half] = right
        if drop:
            pairs = {k: v for k, v in pairs.items() if len(v) == 2}
        both = sum(v.get("p", False) and v.get("n", False) for v in pairs.values()) / len(pairs)
        row = results["results"][f"vlm2bench_{task}"]
        assert row["score,none"] == pytest.approx(both), task
        assert row["counts,none"]["pairs"] == len(pairs)


@pytest.mark.e2e
def test_count_and_group_subtasks(v2):
    records, (results, _) = v2.records, v2.images
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
    overall = results["groups"]["vlm2bench_image"]["score,none"]
    subtasks = ["gc_mat", "gc_trk", "oc_cpr", "oc_cnt", "oc_grp", "pc_cpr", "pc_cnt", "pc_grp"]
    assert overall == pytest.approx(sum(results["results"][f"vlm2bench_{t}"]["score,none"] for t in subtasks) / 8)
    assert "vlm2bench" not in results.get("groups", {}) and "vlm2bench_pc_vid" not in results["results"]


@pytest.mark.e2e
def test_vlm2bench_overall_is_the_mean_of_all_nine_subtasks(v2):
    results, _ = v2.video
    nine = ["gc_mat", "gc_trk", "oc_cpr", "oc_cnt", "oc_grp", "pc_cpr", "pc_cnt", "pc_grp", "pc_vid"]
    scores = [results["results"][f"vlm2bench_{t}"]["score,none"] for t in nine]
    assert results["results"]["vlm2bench_pc_vid"]["score,none"] == pytest.approx(1.0)  # the fake judge's full marks
    overall = results["groups"]["vlm2bench"]["score,none"]
    assert overall == pytest.approx(sum(scores) / 9)
    assert overall != pytest.approx(sum(scores[:8]) / 8)
    # PC-Cpr ids "tf_<n>_<half>" are paired (three complete pairs; the fourth lacks its negative).
    assert results["results"]["vlm2bench_pc_cpr"]["counts,none"]["pairs"] == 3


@pytest.mark.e2e
def test_images_in_order_and_prompt_as_released(v2):
    root, records, requests = v2.root, v2.records, v2.requests
    from PIL import Image

    # Official test scripts: 512 new tokens for GC (and the video), 2048 for OC/PC images; the video
    # judge (eval_pc-v_open-ended.py): gpt-4o, max_tokens=300, no temperature.
    limits = {}
    for body in requests:
        text = message_text(body)
        if "#Task" in text:
            assert body["max_tokens"] == 300 and "temperature" not in body and body["model"] == "gpt-4o"
        else:
            limits.setdefault(re.search(r"\[([a-z]+)_", text).group(1), set()).add(body["max_tokens"])
    assert limits == {"gc": {512}, "oc": {2048}, "pc": {2048}}

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
            assert (
                image.convert("RGB").tobytes()
                == Image.open(Path(root) / media[tag[:2]] / name).convert("RGB").tobytes()
            )
        checked += 1
    assert checked == sum(1 for t in records if not t.startswith("vid"))


@pytest.mark.e2e
def test_video_task_scored_by_the_judge(v2):
    results, _ = v2.video
    row = results["results"]["vlm2bench_pc_vid"]
    # AB judged 1 of 1, ABA judged 2 of 2: both mapped to 100, final 100.
    assert row["score,none"] == pytest.approx(1.0)
    assert row["counts,none"]["ab_n"] == 2 and row["counts,none"]["aba_n"] == 2 and row["counts,none"]["unjudged"] == 0


@pytest.mark.e2e
def test_scores_recomputed_from_the_samples_file(v2):
    results, samples = v2.images
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
    assert_group_interval(results["groups"]["vlm2bench_image"]["ci95,none"], parts, "score")


@pytest.mark.e2e
def test_image_only_model_gets_a_clear_error_on_the_video_task(v2, hf_home, tmp_path):
    root = v2.root
    env = base_env(hf_home, VLM2BENCH_ROOT=str(root), LMMS_COMPARATIVE_LLM_CACHE="off")
    proc = run_cli(eval_args("pixel_diff", "vlm2bench_pc_vid", tmp_path, log_samples=False), env=env)
    assert "vlm2bench_pc_vid gives the model a video, and lmms-eval model 'pixel_diff'" in proc.stderr
    # The way on names the image-only group and says its Overall is not the paper's (all nine).
    assert (
        "run vlm2bench_image instead of vlm2bench" in proc.stderr
        and "the paper's Overall is the mean of all nine" in proc.stderr
    )
    assert not list(tmp_path.glob("**/*_results.json"))
    # The opt-in for a model whose video path the rule cannot see lets the task load.
    env["LMMS_COMPARATIVE_ASSUME_VIDEO"] = "1"
    proc = run_cli(
        eval_args("pixel_diff", "vlm2bench_pc_vid", tmp_path, "--limit", "1", log_samples=False),
        env=env,
    )
    assert "gives the model a video" not in proc.stderr


@pytest.mark.e2e
def test_report_rows(v2, tmp_path):
    from lmms_comparative.report import write_report

    markdown = write_report([str(v2.dirs["images"]), str(v2.dirs["video"])], tmp_path).read_text()
    assert (
        "| Chance-Level (paper) | 25.00 | 25.00 | 50.00 | 34.88 |" in markdown
        and "| Human-Level (paper) | 95.06 |" in markdown
    )  # the paper's two decimals
    assert re.search(r"^\| chance on these items \(vlm\) \| - \| - \| - \| \d", markdown, re.M)
    assert re.search(r"^\| vlm † \| .* \| [+-]\d+\.\d\d \|$", markdown, re.M)  # Δ to human; † a fixture run
    # Like with like: the image-only run's eight-subtask Overall (marked) against the human mean of
    # those eight (94.56); the nine-subtask run's against the paper's 95.16.
    results = json.loads(next(v2.dirs["images"].glob("**/*_results.json")).read_text())
    eight = results["groups"]["vlm2bench_image"]["score,none"] * 100
    assert re.search(rf"^\| vlm † \| .* \| {eight:.2f} ±[\d.]+ ⁸ \| {eight - 94.5575:+.2f} \|$", markdown, re.M)
    video = json.loads(next(v2.dirs["video"].glob("**/*_results.json")).read_text())
    nine = video["groups"]["vlm2bench"]["score,none"] * 100
    assert re.search(rf"^\| random_choice † \| .* \| {nine:.2f} ±[\d.]+ \| {nine - 95.16:+.2f} \|$", markdown, re.M)
    assert re.search(r"^\| vlm † \| [\d.]+ ±[\d.]+ \| ", markdown, re.M)  # bootstrap half-widths
