"""lmms-eval's own model classes on every benchmark's fixture, through the real CLI.

Tiny randomly initialised Qwen2.5-VL and Qwen2-VL checkpoints (tests/helpers/tiny_models.py) run through
``--model qwen2_5_vl`` (a chat class: doc_to_messages) and ``--model qwen2_vl`` (a simple class:
doc_to_visual). A hook on the processor (tests/processor_hook) records what each request hands it;
the images must be the doc's images, in the doc's order, and the video frames the video's scenes in
order. The zeroed language head answers "!!!!" everywhere: every parsed answer is unparsed.
Real videos also go through ``--model openai``, the path API users take.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from helpers import base_env, build_roots, eval_args, judged_env, read_run, run_cli
from helpers.fake_openai import FakeOpenAI, any_scorer, message_images, message_text
from helpers.tiny_models import HOOK, build_qwen_vl, recorded_env, records

from lmms_comparative.benchmarks.vidic.fixture import SMOKE_RECORDS
from lmms_comparative.benchmarks.vlm2bench.fixture import FRAMES_PER_SCENE
from lmms_comparative.registry import BENCHMARKS, of_task


def needs_decord():
    # lmms-eval's Qwen classes import decord, and qwen_vl_utils reads video with it: the test extra has it.
    pytest.importorskip("decord", reason="the video extra: pip install -c constraints.txt -e '.[video]'")


# Chosen per input kind (images, a pair, a video); every other registered benchmark runs its smoke
# task, read from the registry, so a new benchmark needs no edit here.
BY_KIND = [
    "subtlebench_sp", "vidi_granular", "captionqa_image_natural", "compbench_pair_attribute_cub",
    "vlm2bench_oc_cnt", "vlm2bench_pc_cpr", "vlm2bench_pc_vid", "vidic",
]  # fmt: skip
TASKS = BY_KIND + [b.smoke_task for b in BENCHMARKS if not any(of_task(t) is b for t in BY_KIND)]
PARSED = [
    "subtlebench_sp",
    "captionqa_image_natural",
    "compbench_pair_attribute_cub",
    "vlm2bench_oc_cnt",
    "vlm2bench_pc_cpr",
]
LIMIT = 3  # the third pc_vid doc is an ABA video
MODELS = {"qwen2_5_vl": "qwen2_5_vl", "qwen2_vl": "qwen2_vl"}  # --model -> checkpoint family


@pytest.fixture(scope="session")
def tiny_checkpoints(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("tiny_vlm")
    return {family: build_qwen_vl(base / family, family) for family in set(MODELS.values())}


@pytest.fixture(scope="module")
def roots(tmp_path_factory) -> dict[str, Path]:
    return build_roots(tmp_path_factory.mktemp("five"), subtlebench={"per_category": 3}, captionqa={"per_domain": 2})


def thumbnail(image) -> list:
    import sys

    sys.path.insert(0, str(HOOK))
    from sitecustomize import thumbnail as hook_thumbnail

    return hook_thumbnail(image)


def distance(a: list, b: list) -> float:
    return sum(abs(x - y) for x, y in zip(a, b)) / len(a)


def video_scenes(path: Path) -> list[list]:
    """The thumbnails of a video's frames, decoded with PyAV (not with the decoder under test)."""
    import av

    with av.open(str(path)) as container:
        return [thumbnail(frame.to_image()) for frame in container.decode(video=0)]


def expected_images(roots: dict[str, Path]) -> tuple[dict[str, list], list[list]]:
    """Per doc tag found in the prompt, the doc's image files in order; and ViDi's pairs (its
    prompt names no item)."""
    from PIL import Image

    def thumbs(paths):
        return [thumbnail(Image.open(p)) for p in paths]

    by_tag: dict[str, list] = {}
    sb = roots["SUBTLEBENCH_ROOT"]
    for line in (sb / "data/test.jsonl").read_text().splitlines():
        r = json.loads(line)
        tag = re.search(r"\(#([^)]+)\)", r["question"]).group(1)
        by_tag[tag] = thumbs([sb / r[k].split("/resolve/main/", 1)[1] for k in ("image_1", "image_2")])
    v2 = roots["VLM2BENCH_ROOT"]
    media = {"gc": "data/gc/processed", "oc": "data/oc/original_obj", "pc": "data/pc/image/picks_face"}
    for path in v2.glob("jsonl/**/*.jsonl"):
        for line in path.read_text().splitlines():
            r = json.loads(line)
            tag = re.search(r"\[([^\]]+)\]", r["question"]).group(1)
            if "images" in r:
                by_tag[tag] = thumbs([v2 / media[tag[:2]] / name for name in r["images"]])
    cb = roots["COMPBENCH_ROOT"]
    for path in (cb / "annotations").glob("*.json"):
        for r in json.loads(path.read_text()):
            m = re.search(r"#(\w+-\d+)", r.get("question", ""))
            if m and "image_1" in r:
                by_tag[m.group(1)] = thumbs([cb / r["image_1"], cb / r["image_2"]])
    import pyarrow.parquet as pq

    for row in pq.read_table(roots["CAPTIONQA_ROOT"] / "data/natural-00000-of-00001.parquet").to_pylist():
        images = [thumbnail(Image.open(io.BytesIO(im["bytes"]))) for im in row["images"]]
        for q in row["questions"]:
            by_tag[q["question"]] = images
    vidi = roots["VIDI_ROOT"]
    pairs = [thumbs([d / "1.png", d / "2.png"]) for d in sorted(vidi.glob("pair_*")) if d.is_dir()]
    pairs += [thumbs([p, p.with_name(p.name.replace("_a.", "_b."))]) for p in sorted(vidi.glob("pair_*_a.png"))]
    return by_tag, pairs


def other_images(roots: dict[str, Path]) -> list[list]:
    """The image sequences of the smoke-task docs of every registered benchmark not chosen in
    ``BY_KIND`` (none today; a new benchmark's), as its own ``doc_to_visual`` gives them: with no
    layout of its known here, the check is that the model class receives those images, in order."""
    import os
    from unittest import mock

    from PIL import Image

    from lmms_comparative.benchmarks.contract import configs
    from lmms_comparative.tasklib import rows_of

    out = []
    for benchmark in BENCHMARKS:
        if any(of_task(t) is benchmark for t in BY_KIND):
            continue
        config = configs(benchmark)[benchmark.smoke_task]
        with mock.patch.dict(os.environ, {benchmark.root_variable: str(roots[benchmark.root_variable])}):
            docs = rows_of(config["process_docs"].resolve()(None))
        visual = config["doc_to_visual"].resolve()
        out += [[thumbnail(image) for image in visual(doc) if isinstance(image, Image.Image)] for doc in docs]
    return out


def doc_key(text: str, by_tag: dict) -> str | None:
    for pattern in (r"\(#([^)]+)\)", r"\[([^\]]+)\]", r"#(\w+-\d+)"):
        m = re.search(pattern, text)
        if m and m.group(1) in by_tag:
            return m.group(1)
    return next((q for q in by_tag if " item " in q and q in text), None)


def assert_same_sequence(sent: list, expected: list, where: str) -> None:
    """Each sent image is nearest to the expected one at its position, by a clear margin."""
    assert len(sent) == len(expected), where
    for i, image in enumerate(sent):
        d = [distance(image, e) for e in expected]
        assert d[i] < 12, (where, i, d)  # resized and re-encoded by the model's pipeline, nothing more
        assert all(d[i] < dj for j, dj in enumerate(d) if j != i and expected[j] != expected[i]), (where, i, d)


@pytest.fixture(scope="module", params=sorted(MODELS))
def model_run(request, roots, tiny_checkpoints, hf_home, tmp_path_factory):
    needs_decord()
    model = request.param
    out = tmp_path_factory.mktemp(f"run_{model}")
    with FakeOpenAI(any_scorer) as judge:
        env = base_env(hf_home, **roots, **judge.every_llm_env(), LMMS_COMPARATIVE_LLM_CACHE="off")
        env = recorded_env(env, out / "record")
        args = (
            f"pretrained={tiny_checkpoints[MODELS[model]]},device=cpu,device_map=cpu,min_pixels=784,max_pixels="
            "12544,max_num_frames=4"
        )
        proc = run_cli(
            eval_args(
                model,
                ",".join(TASKS),
                out / "results",
                "--limit",
                str(LIMIT),
                "--gen_kwargs",
                "max_new_tokens=4,temperature=0",
                model_args=args,
            ),
            env=env,
        )
    return model, records(out / "record"), read_run(out / "results", proc)


@pytest.mark.e2e
def test_results_files_and_garbage_counted_as_unparsed(model_run):
    model, _, (results, samples) = model_run
    assert set(results["results"]) == set(TASKS) and set(samples) == set(TASKS), model
    for task in TASKS:
        assert len(samples[task]) == LIMIT, task
        assert all(s["filtered_resps"] in ("!!!!", ["!!!!"]) for s in samples[task]), (
            task,
            samples[task][0]["filtered_resps"],
        )
    for task in PARSED:
        counts = results["results"][task]["counts,none"]
        assert counts["n"] == LIMIT and counts["unparsed"] == LIMIT and counts["correct"] == 0, (model, task, counts)
    assert (
        results["results"]["vidi_granular"]["bleu1,none"] < 1e-9
        and results["results"]["vidi_granular"]["cider,none"] < 1e-9
    )  # "!!!!" shares no word
    # pc_vid: every description reached the judge (it answers "Score: 1"): AB 1/1 -> 100, ABA 1/2 -> 50.
    counts = results["results"]["vlm2bench_pc_vid"]["counts,none"]
    assert (counts["ab_n"], counts["aba_n"], counts["unjudged"], counts["ab"], counts["aba"]) == (2, 1, 0, 100.0, 50.0)


@pytest.mark.e2e
def test_each_request_carries_its_images_in_order(model_run, roots):
    model, records, _ = model_run
    by_tag, pairs = expected_images(roots)
    others = other_images(roots)
    image_records = [r for r in records if not r["videos"]]
    assert len(image_records) == LIMIT * (len(TASKS) - 2)  # all but the video tasks, vlm2bench_pc_vid and vidic
    seen_vidi = 0
    for record in image_records:
        text = record["text"][0]
        key = doc_key(text, by_tag)
        if (
            key is None
        ):  # ViDi (or a benchmark outside BY_KIND): the prompt names no item; the images must be one pair, in order
            candidates = [c for c in pairs + others if len(c) == len(record["images"])]
            assert candidates, (model, text[:200])
            nearest = min(candidates, key=lambda p: sum(distance(a, b) for a, b in zip(record["images"], p)))
            assert_same_sequence(record["images"], nearest, f"{model} {text[:60]!r}")
            seen_vidi += any(nearest is pair for pair in pairs)
            continue
        assert_same_sequence(record["images"], by_tag[key], f"{model} {key}")
    assert seen_vidi == LIMIT


@pytest.mark.e2e
def test_video_frames_reach_the_processor_in_scene_order(model_run, roots):
    model, records, _ = model_run
    videos = [r for r in records if len(r["videos"]) == 1]
    assert len(videos) == LIMIT
    folder = roots["VLM2BENCH_ROOT"] / "data/pc/video/UNI"
    for record in videos:
        vid = re.search(r"\[(vid_[^\]]+)\]", record["text"][0]).group(1)
        frames = video_scenes(folder / f"{vid}.mp4")
        scenes = [frames[0], frames[FRAMES_PER_SCENE]]  # person A, person B
        sent = record["videos"][0]
        assert len(sent) >= 2, (model, vid)
        nearest = [min(range(2), key=lambda s: distance(f, scenes[s])) for f in sent]
        assert nearest[0] == 0 and 1 in nearest, (model, vid, nearest)
        assert nearest[-1] == (0 if "ABA" in vid else 1), (model, vid, nearest)  # ABA ends on A again


@pytest.mark.e2e
def test_vidic_hands_video_a_then_video_b_after_the_authors_prompt(model_run, roots):
    """Both videos of a pair in one request, A first: B plays A's two scenes in reverse order
    (the fixture), so the first frames sent of each tell them apart."""
    model, records, _ = model_run
    pairs = [r for r in records if len(r["videos"]) == 2]
    assert len(pairs) == LIMIT, model
    checklist = json.loads((roots["VIDIC_ROOT"] / SMOKE_RECORDS).read_text(encoding="utf-8"))
    scenes = [video_scenes(roots["VIDIC_ROOT"] / pair["video1_path"]) for pair in checklist]
    for record in pairs:
        assert record["text"][0].count("ROLE & TASK") == 1, (model, record["text"][0][:200])
        first, second = record["videos"]
        # the pair whose video A opens as the first video sent does
        own = min(scenes, key=lambda s: distance(first[0], s[0]))
        opening, closing = own[0], own[-1]
        assert distance(first[0], opening) < distance(first[0], closing), model
        assert distance(second[0], closing) < distance(second[0], opening), model  # B opens on A's last scene
        assert distance(first[-1], closing) < distance(first[-1], opening), model


@pytest.mark.e2e
def test_pc_vid_real_videos_through_the_openai_model(roots, hf_home, tmp_path):
    """The API path: lmms-eval's openai model samples frames (qwen_vl_utils, which needs decord or
    torchcodec), sends them as images; the judge then scores the descriptions."""

    def respond(body):
        text = message_text(body)
        if "#Task" in text:
            return "Score: 2" if "ABA pattern" in text else "Score: 1"
        return "Two different people appear: first A, then B" + (", then A again." if "ABA" in text else ".")

    needs_decord()
    folder = roots["VLM2BENCH_ROOT"] / "data/pc/video/UNI"

    def run(out: Path) -> tuple[dict, dict, list[str]]:
        """One CLI run; the videos whose sent frames are not in scene order."""
        with FakeOpenAI(respond) as server:
            env = judged_env(hf_home, server, "VLM2BENCH_JUDGE", VLM2BENCH_ROOT=roots["VLM2BENCH_ROOT"])
            proc = run_cli(
                eval_args(
                    "openai",
                    "vlm2bench_pc_vid",
                    out,
                    model_args=f"model_version=vlm,base_url={server.base_url},api_key=sk-x,max_frames_num=4",
                ),
                env=env,
            )
            requests = [b for b in server.requests if "#Task" not in message_text(b)]
        results, samples = read_run(out, proc)
        assert len(requests) == 4
        wrong = []
        for body in requests:
            vid = re.search(r"\[(vid_[^\]]+)\]", message_text(body)).group(1)
            frames = video_scenes(folder / f"{vid}.mp4")
            sent = [thumbnail(im) for im in message_images(body)]
            assert len(sent) == 4, vid
            nearest = [min(range(2), key=lambda s: distance(f, [frames[0], frames[FRAMES_PER_SCENE]][s])) for f in sent]
            if not (nearest[0] == 0 and nearest[-1] == (0 if "ABA" in vid else 1) and 1 in nearest):
                wrong.append(f"{vid}: {nearest}")
        return results, samples, wrong

    # One more run when the frames were out of order. Twice in CI (an MPEG-4 fixture, then H.264),
    # one run's decord read the last sampled frame of vid_AB_1 as the first person ([0, 0, 1, 0]);
    # neither 600 in-process fetch_video calls nor four concurrent CLI runs here repeated it, and
    # the fixture test's 25 get_batch calls per video, after it, read every frame right. A fault of
    # ours (frames dropped or reordered) fails both runs.
    results, samples, wrong = run(tmp_path / "first")
    if wrong:
        results, samples, again = run(tmp_path / "second")
        assert not again, f"frames out of scene order in two runs: {wrong}, then {again}"
    row = results["results"]["vlm2bench_pc_vid"]
    assert row["score,none"] == pytest.approx(1.0) and row["counts,none"]["unjudged"] == 0
    assert len(samples["vlm2bench_pc_vid"]) == 4


def test_missing_video_decoder_is_named_before_the_run(monkeypatch):
    from lmms_comparative.tasklib import capabilities

    monkeypatch.setattr(capabilities, "video_decoder_available", lambda: False)
    import importlib.util

    # qwen2_5_vl's class itself imports decord: without it lmms-eval fails before any task loads.
    for model in ["openai"] + (["qwen2_5_vl"] if importlib.util.find_spec("decord") else []):
        with pytest.raises(
            capabilities.ModelCapabilityError,
            match=r"Install the video extra from the lmms-comparative clone: pip install -c constraints.txt -e "
            r'"\.\[video\]"',
        ):
            capabilities.require_video_input("vlm2bench_pc_vid", model)
    monkeypatch.setenv("LMMS_COMPARATIVE_ASSUME_VIDEO", "1")
    capabilities.require_video_input("vlm2bench_pc_vid", "openai")


def test_fixture_videos_are_real(roots):
    folder = roots["VLM2BENCH_ROOT"] / "data/pc/video/UNI"
    assert {p.name: len(video_scenes(p)) for p in folder.glob("*.mp4")} == {
        "vid_AB_1.mp4": 12,
        "vid_AB_2.mp4": 12,
        "vid_ABA_1.mp4": 18,
        "vid_ABA_2.mp4": 18,
    }


def test_fixture_video_frames_tell_their_person_apart(roots):
    """The frame-order tests above name the person a sampled frame shows by the nearer scene. That
    holds only if every frame is near its own scene and far from the other, whatever decoder reads
    it: every frame is a keyframe (no predicted-frame drift, which decoders need not share), within
    3 of its scene's first frame, and the two people more than 10 apart (mean absolute difference of
    16x16 thumbnails, 0-255). And decord, which qwen_vl_utils samples frames with, reads the frames
    it is asked for the same way on every call (it did not, once, on the MPEG-4 part 2 files the
    fixture wrote before)."""
    import importlib.util

    import av

    for path in sorted((roots["VLM2BENCH_ROOT"] / "data/pc/video/UNI").glob("*.mp4")):
        with av.open(str(path)) as container:
            decoded = list(container.decode(video=0))
        assert all(frame.key_frame for frame in decoded), path.name
        frames = [thumbnail(frame.to_image()) for frame in decoded]
        scenes = [frames[0], frames[FRAMES_PER_SCENE]]
        assert distance(*scenes) > 10, (path.name, distance(*scenes))
        for i, frame in enumerate(frames):
            person = (i // FRAMES_PER_SCENE) % 2  # A, B, then A again in an ABA video
            assert distance(frame, scenes[person]) < 3, (path.name, i, distance(frame, scenes[person]))
        if importlib.util.find_spec("decord"):
            import decord
            from PIL import Image

            picks = [0, 4, 7, len(frames) - 1]  # what qwen_vl_utils samples for 4 frames of 12 (and more)
            for _ in range(25):
                batch = decord.VideoReader(str(path)).get_batch(picks).asnumpy()
                for index, array in zip(picks, batch):
                    assert distance(thumbnail(Image.fromarray(array)), frames[index]) < 3, (path.name, index)
