"""The multi-step tasks through ``--model multiround`` on a tiny real Qwen2.5-VL checkpoint (lmms-eval's
chat class): the text the processor receives in the last round holds the earlier rounds' replies
exactly (CompBench's MagicBrush comparison, SubtleBench's language-only answer)."""

from __future__ import annotations

import pytest
from helpers import base_env
from helpers.tiny_models import tiny_multiround

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    ("task", "holds"),
    [
        ("compbench_twostage_existence_magicbrush", "Left images: {0}. Right image: {1}. Based on the descriptions"),
        ("subtlebench_langonly_em", "First image: {0}\n\nSecond image: {1}\n\nQuestion: "),
    ],
)
def test_the_last_round_holds_the_earlier_replies(task, holds, fixture_roots, hf_home, tmp_path):
    _, samples, records = tiny_multiround("qwen2_5_vl", task, tmp_path, base_env(hf_home, **fixture_roots))
    assert len(records) == 3 * 2  # three rounds, two items
    assert (
        sum(1 for r in records if not r["images"]) == 2 and sum(1 for r in records if len(r["images"]) == 1) == 4
    )  # the last round: text only
    texts = [r["text"][0] for r in records if not r["images"]]
    for row in samples[task]:
        first, second, _last = row.get("resps", row["filtered_resps"])
        assert any(holds.format(first, second) in t for t in texts), (first, second, texts)
