"""The engine's credentials, as real endpoints check them: the key sent as the OpenAI SDK sends it
(a benchmark's own key winning), a refused key stopping at once naming its variable and never the
key, no key configured, Azure's header, deployment URL and API version; replies stripped in one
place; the cache file private; a fresh run asking again over it."""

from __future__ import annotations

import pytest
from helpers.judge_server import SECRET, serve
from helpers.judge_server import engine as _engine

from lmms_comparative.judges import Engine


def test_the_key_is_sent_as_the_sdk_sends_it_and_a_benchmark_key_wins(monkeypatch, tmp_path):
    monkeypatch.setenv("LMMS_COMPARATIVE_LLM_CACHE", "off")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-general-wrong")
    with serve(lambda body: "fine") as server:
        monkeypatch.setenv("CAPTIONQA_READER_BASE_URL", server.base_url)
        monkeypatch.setenv("CAPTIONQA_READER_API_KEY", SECRET)  # the benchmark's own key wins
        engine = Engine.from_env("CAPTIONQA_READER")
        assert engine.config.api_key_source == "CAPTIONQA_READER_API_KEY"
        assert [r.text for r in engine.run(["a", "b"], progress=False)] == ["fine", "fine"]
        assert server.rejected == 0 and len(server.requests) == 2


def test_a_refused_key_stops_at_once_naming_its_variable_never_the_key(monkeypatch):
    from lmms_comparative.judges.openai_backend import EndpointRejected

    monkeypatch.setenv("LMMS_COMPARATIVE_LLM_CACHE", "off")
    wrong = "sk-wrong-key-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", wrong)
    with serve(lambda body: "never") as server:
        monkeypatch.setenv("VIDI_JUDGE_BASE_URL", server.base_url)
        engine = Engine.from_env("VIDI_JUDGE", concurrency=4, max_retries=5)
        with pytest.raises(EndpointRejected) as caught:
            engine.run([f"q{i}" for i in range(200)], progress=False)
    message = str(caught.value)
    assert "HTTP 401" in message and "OPENAI_API_KEY" in message and wrong not in message
    # Not retried, and the run stopped: at most the calls already in flight reached the server.
    assert 1 <= server.rejected <= 4 and not server.requests


def test_no_key_configured_sends_no_credentials_and_says_which_variables(monkeypatch):
    from lmms_comparative.judges.openai_backend import EndpointRejected

    monkeypatch.setenv("LMMS_COMPARATIVE_LLM_CACHE", "off")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with serve(lambda body: "never") as server:
        monkeypatch.setenv("SUBTLEBENCH_JUDGE_BASE_URL", server.base_url)
        engine = Engine.from_env("SUBTLEBENCH_JUDGE")
        assert "Authorization" not in engine.backend.headers
        with pytest.raises(EndpointRejected, match="no API key \\(set SUBTLEBENCH_JUDGE_API_KEY or OPENAI_API_KEY\\)"):
            engine.run(["q"], progress=False)


def test_azure_form_header_deployment_url_and_api_version(monkeypatch):
    monkeypatch.setenv("LMMS_COMPARATIVE_LLM_CACHE", "off")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with serve(lambda body: f"{body['model']} ok", azure=True) as server:
        monkeypatch.setenv("VLM2BENCH_JUDGE_BACKEND", "azure")
        monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", server.base_url)
        monkeypatch.setenv("AZURE_OPENAI_API_KEY", SECRET)
        monkeypatch.setenv("AZURE_OPENAI_API_VERSION", "2024-10-21")
        engine = Engine.from_env("VLM2BENCH_JUDGE", defaults={"model": "gpt-4o"})
        assert engine.config.api_key_source == "AZURE_OPENAI_API_KEY"
        assert [r.text for r in engine.run(["q"], progress=False)] == ["gpt-4o ok"]
    assert server.paths == ["/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21"]
    with pytest.raises(ValueError, match="API version"):
        monkeypatch.delenv("AZURE_OPENAI_API_VERSION")
        Engine.from_env("VLM2BENCH_JUDGE")


def test_reply_text_is_stripped_in_one_place_for_fresh_and_cached_answers(tmp_path):
    with serve(lambda body: "  B\n") as server:
        engine = _engine(server, cache_path=tmp_path / "c.sqlite")
        assert engine.run(["q"], progress=False)[0].text == "B"
        again = _engine(server, cache_path=tmp_path / "c.sqlite").run(["q"], progress=False)[0]
    assert again.cached and again.text == "B"


def test_cache_file_is_private(tmp_path):
    import os
    import stat

    from lmms_comparative.judges.cache import AnswerCache

    cache = AnswerCache(tmp_path / "sub" / "c.sqlite")
    cache.put("k", "v")
    assert stat.S_IMODE(os.stat(cache.path).st_mode) == 0o600


def test_a_fresh_run_asks_again_over_the_cache_and_keeps_the_new_answer(tmp_path):
    answers = iter(["not json", "{}", "never asked"])
    with serve(lambda body: next(answers)) as server:
        engine = _engine(server, cache_path=tmp_path / "c.sqlite")
        assert engine.run(["q"], progress=False)[0].text == "not json"
        assert engine.run(["q"], progress=False)[0].cached  # the cache answers
        again = engine.run(["q"], progress=False, fresh=True)[0]  # a caller retrying a reply it could not read
        assert (again.text, again.cached, len(server.requests)) == ("{}", False, 2)
        assert (
            _engine(server, cache_path=tmp_path / "c.sqlite").run(["q"], progress=False)[0].text == "{}"
        )  # kept in its place
    assert len(server.requests) == 2
