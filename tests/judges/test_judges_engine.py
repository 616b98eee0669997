"""The LLM engine against a local OpenAI-compatible server that misbehaves on purpose."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from collections import Counter

import pytest
from helpers.fake_openai import Reply, message_text
from helpers.judge_server import SECRET, serve
from helpers.judge_server import engine as _engine

from lmms_comparative.judges import (
    Engine,
    EngineConfig,
    TooManyFailures,
    check_failures,
)
from lmms_comparative.judges.config import normalize_base_url
from lmms_comparative.judges.openai_backend import retry_after_seconds


class FaultyServer:
    """Per request text ``q<i>``: the first attempt misbehaves according to i % 8, later ones answer."""

    FAULTS = ["ok", "500", "429", "malformed", "drop", "slow", "always500", "400"]

    def __init__(self):
        self.attempts: Counter = Counter()
        self.answered: Counter = Counter()
        self.lock = threading.Lock()
        # A slow first attempt is held until the test ends, so the client's timeout always fires
        # first, however loaded the machine is (no race between a timer and a sleep).
        self.release = threading.Event()

    def fault(self, text: str) -> str:
        return self.FAULTS[int(text[1:]) % len(self.FAULTS)]

    def __call__(self, body: dict):
        text = message_text(body)
        with self.lock:
            self.attempts[text] += 1
            first = self.attempts[text] == 1
        fault = self.fault(text)
        if fault == "always500":
            return 503
        if fault == "400":
            return 400
        if first and fault == "500":
            return 500
        if first and fault == "429":
            return Reply(status=429, headers={"Retry-After": "2"})
        if first and fault == "malformed":
            return Reply(body=b'{"choices": [ {"message": ')
        if first and fault == "drop":
            return Reply(drop=True)
        if first and fault == "slow":
            self.release.wait(120)  # the client times out and retries; this reply goes nowhere
            return 503
        with self.lock:
            self.answered[text] += 1
        return f"answer to {text}"


def test_every_request_ends_answered_or_failed_none_lost_or_duplicated(tmp_path):
    faults = FaultyServer()
    prompts = [f"q{i}" for i in range(48)] + ["q3", "q9"]  # two repeats: asked once, answered twice
    with serve(faults) as server:
        # The timeout only has to fire on the held attempts: 5 s leaves a loaded machine's ordinary
        # replies far inside it (a 1 s timeout once retried an "ok" prompt under load).
        engine = _engine(server, cache_path=tmp_path / "cache.sqlite", concurrency=8, timeout=5.0)
        try:
            results = engine.run(prompts, progress=False)
        finally:
            faults.release.set()
    assert len(results) == len(prompts)
    for prompt, result in zip(prompts, results):
        fault = faults.fault(prompt)
        if fault in ("always500", "400"):
            assert result.failed and result.text is None
            assert ("HTTP 503" if fault == "always500" else "HTTP 400") in result.error
        else:
            assert result.text == f"answer to {prompt}", (prompt, fault, result)
    for prompt in set(prompts):
        fault = faults.fault(prompt)
        want = {"ok": 1, "always500": 4, "400": 1}.get(fault, 2)  # 4 = 1 + max_retries; 400 is never retried
        assert faults.attempts[prompt] == want, (prompt, fault)
        assert faults.answered[prompt] == (0 if fault in ("always500", "400") else 1)
    # 429 carried Retry-After: 2, and the engine waited at least that long before retrying.
    assert sum(1 for w in engine.waits if w >= 2.0) >= 6
    assert engine.stats.calls == 48 and engine.stats.failed == 12


@pytest.mark.e2e
def test_rerun_makes_no_call_and_killed_run_resumes_with_only_missing_calls(tmp_path):
    """SIGKILL half-way: answers are committed in batches, and the answers lost with the process
    are at most the commit window (here shrunk to 16: batches of 8, no timer) plus the calls in
    flight; the rerun asks exactly the missing ones."""
    cache = tmp_path / "cache.sqlite"
    prompts = [f"p{i}" for i in range(300)]
    gate = threading.Event()
    lock = threading.Lock()

    def counting(calls: Counter):
        def respond(body):
            text = message_text(body)
            with lock:
                calls[text] += 1
                if sum(calls.values()) >= 100:
                    gate.set()
            threading.Event().wait(0.02)
            return f"a-{text}"

        return respond

    # The killed run and the reruns ask two servers on one port (the cache's key holds the
    # endpoint): a request the killed run sent just before the kill can reach the first server's
    # handler after the kill, and must not count as a rerun's.
    killed, rerun = Counter(), Counter()

    script = textwrap.dedent(
        f"""
        from lmms_comparative.judges import Engine, EngineConfig, engine as module
        import sys
        module.COMMIT_EVERY, module.COMMIT_INTERVAL, module.UNCOMMITTED_MAX = 8, 3600.0, 16
        engine = Engine(EngineConfig(
            model="judge-model", base_url=sys.argv[1], api_key={SECRET!r}, cache_path={str(cache)!r}, concurrency=4
        ))
        engine.run([f"p{{i}}" for i in range(300)], progress=False)
        """
    )
    with serve(counting(killed)) as server:
        port = server.httpd.server_address[1]
        proc = subprocess.Popen([sys.executable, "-c", script, server.base_url])
        assert gate.wait(120), "the first run never got going"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with sqlite3.connect(cache) as conn:
        saved = conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
    before = sum(killed.values())  # every request that reached the server, answered or not
    assert 0 < saved < len(prompts)
    assert before - saved <= 16 + 4, (before, saved)  # the window, plus the 4 calls in flight
    with serve(counting(rerun), port=port) as server:
        engine = _engine(server, cache_path=cache, concurrency=4)
        results = engine.run(prompts, progress=False)
        assert [r.text for r in results] == [f"a-{p}" for p in prompts]
        assert sum(rerun.values()) == len(prompts) - saved  # only the missing calls
        assert engine.stats.cached == saved
        again = _engine(server, cache_path=cache).run(prompts, progress=False)
        assert sum(rerun.values()) == len(prompts) - saved  # second rerun: no call at all
        assert all(r.cached for r in again)


@pytest.mark.e2e
def test_ctrl_c_commits_every_answer_received_and_exit_is_clean(tmp_path):
    """SIGINT (Ctrl-C) half-way: the run stops, and every answer it had received is committed
    (only the calls in flight are asked again); the process exits without unclosed-session noise."""
    cache = tmp_path / "cache.sqlite"
    gate = threading.Event()
    calls: Counter = Counter()
    lock = threading.Lock()

    def respond(body):
        with lock:
            calls[message_text(body)] += 1
            if sum(calls.values()) >= 100:
                gate.set()
        threading.Event().wait(0.02)
        return "a"

    script = textwrap.dedent(
        f"""
        import signal, sys
        # Ctrl-C as a terminal delivers it: Python ignores SIGINT in a child whose parent process
        # ignored it (a test runner's worker may), and then the run would simply go on to the end.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from lmms_comparative.judges import Engine, EngineConfig
        engine = Engine(EngineConfig(
            model="judge-model", base_url=sys.argv[1], api_key={SECRET!r}, cache_path={str(cache)!r}, concurrency=4
        ))
        try:
            engine.run([f"p{{i}}" for i in range(2000)], progress=False)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
        """
    )
    with serve(respond) as server:
        proc = subprocess.Popen(
            [sys.executable, "-c", script, server.base_url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert gate.wait(120), "the run never got going"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        sent = sum(calls.values())
    assert "interrupted" in out, (proc.returncode, sent, out, err[-3000:])
    with sqlite3.connect(cache) as conn:
        saved = conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
    assert 0 < saved <= sent and sent - saved <= 4, (sent, saved)  # at most the 4 calls in flight
    assert "Unclosed" not in err and "Traceback" not in err, err


def test_uncommitted_answers_never_exceed_the_window_even_with_a_slow_writer(tmp_path, monkeypatch):
    """The writer is made slow (each commit waits): requests wait for it rather than let received
    answers pile up uncommitted past the window; everything is committed by the end of the run."""
    from lmms_comparative.judges import engine as module
    from lmms_comparative.judges.cache import AnswerCache

    monkeypatch.setattr(module, "COMMIT_EVERY", 4)
    monkeypatch.setattr(module, "UNCOMMITTED_MAX", 8)
    batches, peaks = [], []
    slow_put = AnswerCache.put_many

    def put_many(self, answers):
        threading.Event().wait(0.05)
        batches.append(len(answers))
        slow_put(self, answers)

    add = module._Committer.add

    def watched_add(self, key, text):
        add(self, key, text)
        peaks.append(self.uncommitted())

    monkeypatch.setattr(AnswerCache, "put_many", put_many)
    monkeypatch.setattr(module._Committer, "add", watched_add)
    assert module.commit_window(4) == 8
    with serve(lambda body: "ok-" + message_text(body)) as server:
        engine = _engine(server, cache_path=tmp_path / "c.sqlite", concurrency=4)
        results = engine.run([f"w{i}" for i in range(80)], progress=False)
    assert [r.text for r in results] == [f"ok-w{i}" for i in range(80)]
    assert max(peaks) == 8  # the window was reached, never passed
    assert sum(batches) == 80 and len(batches) < 80  # batched, and all of it committed
    assert len(AnswerCache(tmp_path / "c.sqlite")) == 80


def test_cache_key_is_unchanged_and_the_body_is_the_request(tmp_path):
    """One JSON encoding of the messages serves the key and the body; the key is the one earlier
    versions computed, so existing cache files keep answering."""
    import hashlib
    import json

    from lmms_comparative.judges.cache import encode_request

    messages = [
        {"role": "system", "content": 'Réponds "A".'},
        {"role": "user", "content": [{"type": "text", "text": "q\n"}]},
    ]
    for params in ({"temperature": 0.0, "max_tokens": 4}, {}):
        key, body = encode_request("openai:http://h/v1", "m", messages, params)
        legacy = json.dumps(
            {"endpoint": "openai:http://h/v1", "model": "m", "messages": messages, "params": params},
            sort_keys=True,
            ensure_ascii=False,
            separators=(",", ":"),
        )
        assert key == hashlib.sha256(legacy.encode()).hexdigest()
        assert json.loads(body) == {"model": "m", "messages": messages, **params}


@pytest.mark.e2e
def test_threads_and_processes_share_one_cache(tmp_path):
    cache = tmp_path / "shared.sqlite"
    with serve(lambda body: "x-" + message_text(body)) as server:
        script = textwrap.dedent(
            f"""
            import sys
            from lmms_comparative.judges import Engine, EngineConfig
            e = Engine(EngineConfig(
                model="judge-model", base_url=sys.argv[1], api_key={SECRET!r}, cache_path={str(cache)!r}
            ))
            r = e.run([f"s{{i}}" for i in range(0, 200, int(sys.argv[2]))], progress=False)
            assert all(x.text == f"x-s{{i}}" for x, i in zip(r, range(0, 200, int(sys.argv[2]))))
            """
        )
        procs = [subprocess.Popen([sys.executable, "-c", script, server.base_url, str(step)]) for step in (1, 2)]
        engine = _engine(server, cache_path=cache)
        errors = []

        def worker(offset):
            try:
                out = engine.run([f"s{i}" for i in range(offset, 200, 3)], progress=False)
                assert [r.text for r in out] == [f"x-s{i}" for i in range(offset, 200, 3)]
            except Exception as exc:  # noqa: BLE001
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [p.wait() for p in procs] == [0, 0]
    assert not errors
    with sqlite3.connect(cache) as conn:
        assert conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 200


def test_callable_from_a_running_event_loop():
    with serve(lambda body: "ok") as server:
        engine = _engine(server)

        async def inside():
            return engine.run(["a", "b"], progress=False)

        assert [r.text for r in asyncio.run(inside())] == ["ok", "ok"]


def test_api_key_never_reaches_cache_logs_or_repr(tmp_path, capfd):
    from loguru import logger

    sink = []
    handle = logger.add(sink.append)
    try:
        with serve(lambda body: 500 if "bad" in message_text(body) else "fine") as server:
            engine = _engine(server, cache_path=tmp_path / "c.sqlite")
            engine.run(["good", "bad"], progress=False)
            headers_seen = server.requests  # bodies only; the key travels in the Authorization header
    finally:
        logger.remove(handle)
    assert SECRET not in repr(engine.config)
    assert all(SECRET not in str(body) for body in headers_seen)
    for path in tmp_path.iterdir():
        assert SECRET.encode() not in path.read_bytes()
    out, err = capfd.readouterr()
    assert SECRET not in out + err + "".join(map(str, sink))
    assert any("failed after retries" in str(m) for m in sink)


def test_cache_keys_cover_endpoint_model_and_sampling(tmp_path):
    with serve(lambda body: f"{body['model']}|{body['temperature']}|{body['max_tokens']}") as server:
        cache = tmp_path / "k.sqlite"
        first = _engine(server, cache_path=cache).run(["same"], progress=False)[0]
        other_model = Engine(
            EngineConfig(model="other", base_url=server.base_url, api_key=SECRET, cache_path=cache)
        ).run(["same"], progress=False)[0]
        hotter = _engine(server, cache_path=cache).run(["same"], progress=False, temperature=0.7)[0]
    assert (first.text, other_model.text, hotter.text) == (
        "judge-model|0.0|256",
        "other|0.0|256",
        "judge-model|0.7|256",
    )
    assert not other_model.cached and not hotter.cached


def test_configuration_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_URL", "http://127.0.0.1:9/v1/chat/completions")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("LMMS_COMPARATIVE_LLM_CONCURRENCY", "7")
    monkeypatch.setenv("CAPTIONQA_READER_MODEL", "Qwen/Qwen2.5-72B-Instruct")
    monkeypatch.setenv("LMMS_COMPARATIVE_LLM_CACHE", "off")
    config = EngineConfig.from_env("CAPTIONQA_READER", defaults={"model": "gpt-4o", "max_tokens": 4}, temperature=0.1)
    assert config.base_url == "http://127.0.0.1:9/v1" and config.api_key == SECRET
    assert (config.model, config.concurrency, config.max_tokens, config.temperature) == (
        "Qwen/Qwen2.5-72B-Instruct",
        7,
        4,
        0.1,
    )
    assert config.cache_path is None and Engine(config).cache is None
    monkeypatch.setenv("LMMS_COMPARATIVE_LLM_CACHE", str(tmp_path / "elsewhere.sqlite"))
    assert EngineConfig.from_env().cache_path == tmp_path / "elsewhere.sqlite"
    assert normalize_base_url("http://h/v1/") == "http://h/v1"
    with pytest.raises(ValueError, match="unknown engine setting"):
        EngineConfig.from_env(defaults={"modle": "x"})


def test_retry_after_forms():
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({}) is None
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # a past date


def test_failure_threshold_is_loud():
    check_failures(0, 10, 0.05, "x")
    check_failures(1, 100, 0.05, "x")  # 1% is within the allowance: warned, not raised
    with pytest.raises(TooManyFailures, match=r"x: 6 of 100 item\(s\) could not be judged"):
        check_failures(6, 100, 0.05, "x")
