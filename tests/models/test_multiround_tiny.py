"""The multi-step tasks through ``--model multiround`` on a tiny real Qwen2.5-VL checkpoint (lmms-eval's
chat class): the text the processor receives in the last round holds the earlier rounds' replies
exactly (CompBench's MagicBrush comparison, SubtleBench's language-only answer)."""

from __future__ import annotations

import json
import os

import pytest
from helpers import base_env, read_run, run_cli
from helpers.tiny_models import build_qwen_vl

pytestmark = pytest.mark.e2e
HOOK = os.path.join(os.path.dirname(os.path.dirname(__file__)), "processor_hook")


@pytest.mark.parametrize(
    ("task", "holds"),
    [
        ("compbench_twostage_existence_magicbrush", "Left images: {0}. Right image: {1}. Based on the descriptions"),
        ("subtlebench_langonly_em", "First image: {0}\n\nSecond image: {1}\n\nQuestion: "),
    ],
)
def test_the_last_round_holds_the_earlier_replies(task, holds, fixture_roots, hf_home, tmp_path):
    pytest.importorskip("decord")
    checkpoint = build_qwen_vl(tmp_path / "ckpt", "qwen2_5_vl")
    (tmp_path / "record").mkdir()
    env = base_env(hf_home, **{k: str(v) for k, v in fixture_roots.items()}, TINY_VLM_RECORD=str(tmp_path / "record"))
    env["PYTHONPATH"] = f"{HOOK}:{env.get('PYTHONPATH', '')}"
    args = f"inner=qwen2_5_vl,pretrained={checkpoint},device=cpu,device_map=cpu,min_pixels=784,max_pixels=12544"
    proc = run_cli(
        [
            "--model",
            "multiround",
            "--model_args",
            args,
            "--tasks",
            task,
            "--limit",
            "2",
            "--gen_kwargs",
            "max_new_tokens=4,temperature=0",
            "--output_path",
            str(tmp_path / "out"),
            "--log_samples",
        ],
        env=env,
    )
    _, samples = read_run(tmp_path / "out", proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = [
        json.loads(line) for p in sorted((tmp_path / "record").glob("*.jsonl")) for line in p.read_text().splitlines()
    ]
    assert len(records) == 3 * 2  # three rounds, two items
    assert (
        sum(1 for r in records if not r["images"]) == 2 and sum(1 for r in records if len(r["images"]) == 1) == 4
    )  # the last round: text only
    texts = [r["text"][0] for r in records if not r["images"]]
    for row in samples[task]:
        first, second, _last = row.get("resps", row["filtered_resps"])
        assert any(holds.format(first, second) in t for t in texts), (first, second, texts)
