"""VLM2-Bench's video task: which models may run it, the bundled fixture's videos with lmms-eval's
defaults, and a video shorter than the model samples (skipped, named and counted)."""

from __future__ import annotations

import pytest
from helpers import judged_env, read_run, run_cli
from helpers.fake_openai import FakeOpenAI, message_images, message_text

from lmms_comparative.benchmarks.vlm2bench.fixture import build as build_vlm2bench


def test_video_capability_rule(monkeypatch):
    from lmms_eval.api.model import lmms

    from lmms_comparative.tasklib import capabilities
    from lmms_comparative.tasklib.capabilities import ModelCapabilityError, class_supports_video, require_video_input

    monkeypatch.setattr(
        capabilities, "video_decoder_available", lambda: True
    )  # the decoder check: test_model_classes.py

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


def _describe(body):
    text = message_text(body)
    if "#Task" in text:  # the video judge
        return "Score: 1"
    return "Two different people appear." if message_images(body) and "T" not in text[-3:] else "T"


@pytest.mark.e2e
def test_the_bundled_fixture_runs_with_lmms_eval_defaults(hf_home, tmp_path):
    """As the README says: ``lmms-comparative fixture vlm2bench DIR``, then the whole group with
    the openai model's own defaults (it samples max_frames_num=10 frames of every video)."""
    pytest.importorskip("decord", reason="the video extra: pip install -c constraints.txt -e '.[video]'")
    from lmms_comparative.cli import main

    assert main(["fixture", "vlm2bench", str(tmp_path / "v2")]) == 0
    with FakeOpenAI(_describe) as server:
        env = judged_env(hf_home, server, "VLM2BENCH_JUDGE", VLM2BENCH_ROOT=tmp_path / "v2")
        proc = run_cli([*server.model_cli, "--tasks", "vlm2bench", "--output_path", str(tmp_path / "out")], env=env)
    results, _ = read_run(tmp_path / "out", proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    video = results["results"]["vlm2bench_pc_vid"]
    assert video["counts,none"]["skipped"] == 0 and video["counts,none"]["n"] == 4
    assert "vlm2bench" in results["groups"]


@pytest.mark.e2e
def test_a_video_shorter_than_the_model_samples_is_skipped_named_and_counted(hf_home, tmp_path):
    pytest.importorskip("decord", reason="the video extra: pip install -c constraints.txt -e '.[video]'")
    from PIL import Image

    from lmms_comparative.data.fixture_images import write_video

    root = build_vlm2bench(tmp_path / "v2")
    short = root / "data/pc/video/UNI/vid_AB_2.mp4"
    write_video(
        short, [Image.new("RGB", (64, 64), "red"), Image.new("RGB", (64, 64), "blue")], frames_per_scene=4
    )  # 8 frames
    with FakeOpenAI(_describe) as server:
        env = judged_env(hf_home, server, "VLM2BENCH_JUDGE", VLM2BENCH_ROOT=root, LMMS_COMPARATIVE_MAX_FAILED="0.5")
        proc = run_cli(
            [*server.model_cli, "--tasks", "vlm2bench_pc_vid,vlm2bench_gc_mat", "--output_path", str(tmp_path / "out")],
            env=env,
        )
    results, _ = read_run(tmp_path / "out", proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    counts = results["results"]["vlm2bench_pc_vid"]["counts,none"]
    assert (
        counts["skipped"] == 1
        and counts["skipped_by_reason"] == {"video shorter than the model samples": 1}
        and counts["n"] == 3
    )
    assert counts["ab_n"] + counts["aba_n"] == 3  # the judged descriptions: the three videos sent
    assert f"vid_AB_2: {short} has 8 frames and the model samples 10" in proc.stdout + proc.stderr
    assert results["results"]["vlm2bench_gc_mat"]["counts,none"]["n"] > 0
