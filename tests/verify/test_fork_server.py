"""The fork server's rules, without starting it: which jobs it refuses (an environment that differs
in a variable read at start-up) and which modules it must never have imported (this package, the
modules that load our entry point, those our patches wait for)."""

from __future__ import annotations

from lmms_comparative.harness import PATCHED_MODULES
from lmms_comparative.rescoring import warm
from lmms_comparative.rescoring.fork_server import PRELOAD, env_differences, loaded_never


def test_a_job_may_differ_from_the_server_in_our_run_time_settings_only():
    server = {"HF_HOME": "hf-cache", "PATH": "bin", "LMMS_COMPARATIVE_OUR_TASKS_ONLY": "1"}
    ours = {**server, "LMMS_COMPARATIVE_LLM_ANSWERS": "answers.jsonl", "LMMS_COMPARATIVE_LLM_CACHE": "off"}
    assert env_differences(ours, server) == []
    assert env_differences({**ours, "HF_HOME": "other-cache", "OMP_NUM_THREADS": "1"}, server) == [
        "HF_HOME",
        "OMP_NUM_THREADS",
    ]
    assert env_differences({k: v for k, v in server.items() if k != "PATH"}, server) == ["PATH"]


def test_the_server_never_imports_a_module_a_run_must_import_itself():
    """A patch waits for its module's import (harness/on_import.py): a server that had imported it
    would fork runs in which the patch goes on at another moment than in a fresh run. The server
    holds its own list (it imports nothing of the package): it must cover the harness's."""
    waited = {m for modules in PATCHED_MODULES.values() for m in modules} - {"lmms_eval.utils"}
    refused = {*waited, "lmms_comparative", "lmms_comparative.harness", "openai", "lmms_eval.models.simple"}
    assert loaded_never(refused) == sorted(refused)
    assert loaded_never(PRELOAD) == []
    assert loaded_never({"lmms_eval", "lmms_eval.filters", "lmms_eval.utils", "lmms_eval.api.model"}) == []


def test_one_run_or_the_cold_setting_starts_no_server(monkeypatch):
    monkeypatch.delenv(warm.COLD_ENV, raising=False)
    assert warm.wanted(2) and not warm.wanted(1)
    monkeypatch.setenv(warm.COLD_ENV, "1")
    assert not warm.wanted(6)
