"""What a user reads when the hub fails, for every benchmark with a hub release: why, then both
ways on, the hub's (a token, a wait, a connection or mirror) and a local copy in the benchmark's
own root variable. In process, with ``huggingface_hub``'s calls made to fail as they fail for real;
tests/hub/test_hub_fetch.py sees the same lines through the lmms-eval CLI."""

from __future__ import annotations

import httpx
import pytest
from huggingface_hub.errors import GatedRepoError, HfHubHTTPError

from lmms_comparative.data import hub
from lmms_comparative.failures import DataError
from lmms_comparative.registry import BENCHMARKS

ON_THE_HUB = [b for b in BENCHMARKS if b.hub_repo]


def _response(status: int) -> httpx.Response:
    return httpx.Response(status, request=httpx.Request("GET", "https://huggingface.co/api/datasets/x"))


FAILURES = {
    "no network": (
        lambda: httpx.ConnectError("[Errno 111] Connection refused"),
        "Connect to the hub (or set HF_ENDPOINT to a mirror), or download the files once",
    ),
    "gated": (
        lambda: GatedRepoError("gated", response=_response(401)),
        "; it needs a token with access to the repository, and no token was sent. Set HF_TOKEN to such a "
        "token (or run `hf auth login`), or download the files once",
    ),
    "rate limit": (
        lambda: HfHubHTTPError("limited", response=_response(429)),
        "Wait a few minutes, or set HF_TOKEN, whose limit is higher (what was downloaded stays cached), or "
        "download the files once",
    ),
    "server error": (
        lambda: HfHubHTTPError("broken", response=_response(502)),
        "Try again later (or set HF_ENDPOINT to a mirror), or download the files once",
    ),
}


@pytest.fixture
def online(monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setattr(hub, "offline", lambda: False)
    monkeypatch.setattr(hub, "_cached_commit", lambda repo: None)
    monkeypatch.setattr("time.sleep", lambda seconds: None)  # _with_retries waits out 429 and 5xx before it gives up


def test_every_hub_benchmark_is_covered():
    assert {b.name for b in ON_THE_HUB} == {"subtlebench", "captionqa", "vlm2bench", "diffspot", "vidic"}


@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("benchmark", ON_THE_HUB, ids=lambda b: b.name)
def test_a_failed_snapshot_gives_both_ways_on(benchmark, failure, online, monkeypatch):
    make, way = FAILURES[failure]

    def refuse(self, repo, revision=None):
        raise make()

    monkeypatch.setattr("huggingface_hub.HfApi.dataset_info", refuse)
    with pytest.raises(DataError) as caught:
        hub._snapshot(benchmark.hub_repo, benchmark.root_variable)
    message = str(caught.value)
    assert benchmark.hub_repo in message and "\n" not in message
    assert message.endswith(f"{way} and set {benchmark.root_variable} to that folder."), message
    assert ". Or " not in message  # an "or" with its first alternative, never alone


def test_no_network_reads_as_one_sentence_of_why_and_two_ways_on(online, monkeypatch):
    def refuse(self, repo, revision=None):
        raise httpx.ConnectError("[Errno 111] Connection refused")

    monkeypatch.setattr("huggingface_hub.HfApi.dataset_info", refuse)
    with pytest.raises(DataError) as caught:
        hub._snapshot("KRAFTON/VLM-SubtleBench", "SUBTLEBENCH_ROOT")
    assert str(caught.value) == (
        "the hub could not be reached for KRAFTON/VLM-SubtleBench (ConnectError: [Errno 111] Connection "
        "refused). Connect to the hub (or set HF_ENDPOINT to a mirror), or download the files once and set "
        "SUBTLEBENCH_ROOT to that folder."
    )


@pytest.mark.parametrize("benchmark", ON_THE_HUB, ids=lambda b: b.name)
def test_a_failed_download_says_how_far_it_got_and_both_ways_on(benchmark, monkeypatch, tmp_path):
    def refuse(*args, **kwargs):
        raise httpx.ConnectError("[Errno 111] Connection refused")

    monkeypatch.setattr("huggingface_hub.hf_hub_download", refuse)
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(tmp_path))
    snap = hub.Snapshot(benchmark.hub_repo, "0" * 40, ("a.json",))
    with pytest.raises(DataError) as caught:
        hub.fetch(snap, ["a.json"], benchmark.root_variable, "test files")
    assert str(caught.value) == (
        f"the hub could not be reached for {benchmark.hub_repo} (ConnectError: [Errno 111] Connection "
        "refused) (0 of 1 file(s) fetched this run). "
        "Connect to the hub (or set HF_ENDPOINT to a mirror), or download the files once and set "
        f"{benchmark.root_variable} to that folder."
    )
