"""A multi-entry ``--config`` file runs its entries in one process: each entry's record holds only
the judges and readers its own tasks called. The second entry (SubtleBench, no reader) carried the
first entry's CaptionQA reader settings and answers log; the first entry is its honest twin."""

from __future__ import annotations

import json

import pytest
import yaml
from helpers import base_env, read_run, run_cli
from helpers.fake_openai import FakeOpenAI, message_text

pytestmark = pytest.mark.e2e


def test_each_config_entry_records_only_its_own_judges(hf_home, fixture_roots, tmp_path):
    def respond(body):
        return "A" if "Question:" in message_text(body) else "a caption"

    with FakeOpenAI(respond) as server:
        env = base_env(
            hf_home, **fixture_roots, **server.judge_env("CAPTIONQA_READER"), LMMS_COMPARATIVE_LLM_CACHE="off"
        )
        model_args = server.model_cli[3]
        entries = [
            {
                "model": "openai",
                "model_args": model_args,
                "tasks": "captionqa_simple_natural",
                "output_path": str(tmp_path / "first"),
                "log_samples": True,
            },
            {
                "model": "random_choice",
                "tasks": "subtlebench_at",
                "output_path": str(tmp_path / "second"),
                "log_samples": True,
            },
        ]
        config = tmp_path / "runs.yaml"
        config.write_text(yaml.safe_dump(entries))
        proc = run_cli(["--config", str(config)], env=env)
    first, _ = read_run(tmp_path / "first", proc)
    second, _ = read_run(tmp_path / "second", proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (
        "CAPTIONQA_READER" in first["lmms_comparative"]["llm"] and first["lmms_comparative"]["llm_answers"]["count"] > 0
    )
    assert list((tmp_path / "first").rglob("*_llm_answers.jsonl"))
    assert second["lmms_comparative"]["llm"] == {} and "llm_answers" not in second["lmms_comparative"], json.dumps(
        second["lmms_comparative"]
    )[:2000]
    assert not list((tmp_path / "second").rglob("*_llm_answers.jsonl"))
