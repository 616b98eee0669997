"""Fetching exactly what a run needs from a dataset repository on the Hugging Face hub.

A benchmark with a hub release, run with no ``*_ROOT`` set, asks here for the files its split needs
(never the whole repository): ``snapshot`` pins the repository's current commit (one request to
the hub; with ``HF_HUB_OFFLINE=1``, or when the hub cannot be reached, the commit the cache last
saw), then ``fetch`` downloads into the Hugging Face cache the files that are not there yet, in
parallel, with a progress bar, through ``huggingface_hub`` (which honours ``HF_TOKEN``,
``HF_ENDPOINT``, ``HF_HUB_CACHE``/``HF_HOME``, and retries HTTP 429 after the hub's
``Retry-After``). A file already in the cache costs no request. The files land in the cache's
snapshot folder of that commit, laid out as in the repository: that folder is the data root.

Every failure becomes one ``DataError`` that says what happened (a gated repository without a
token, the rate limit, no network) and both ways on: through the hub (``HF_TOKEN``, a wait, a
connection or an ``HF_ENDPOINT`` mirror), or a local copy in the benchmark's ``*_ROOT`` variable.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from lmms_comparative import provenance
from lmms_comparative.data import untrusted
from lmms_comparative.failures import DataError

REPO_TYPE = "dataset"
# The hub allows anonymous clients about 3,000 file resolves per 5 minutes; huggingface_hub waits
# out a 429 itself. Eight parallel downloads keep a large split's many small files moving.
WORKERS = 8


@dataclass(frozen=True)
class Snapshot:
    """A hub dataset repository at one commit: its id, the commit, the files it lists."""

    repo: str
    commit: str
    files: tuple[str, ...] | None  # the repository's files (None when offline: only the cache is known)

    @property
    def folder(self) -> Path:
        """The cache folder of this commit (``.../datasets--<owner>--<name>/snapshots/<commit>``)."""
        from huggingface_hub import constants

        return Path(constants.HF_HUB_CACHE) / f"datasets--{self.repo.replace('/', '--')}" / "snapshots" / self.commit


def offline() -> bool:
    """Whether the hub must not be asked (``HF_HUB_OFFLINE``)."""
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)


def _cached_commit(repo: str) -> str | None:
    from huggingface_hub import constants

    ref = Path(constants.HF_HUB_CACHE) / f"datasets--{repo.replace('/', '--')}" / "refs" / "main"
    return ref.read_text().strip() if ref.is_file() else None


def _remember_commit(snap: Snapshot) -> None:
    """Record the commit as the cache's ``refs/main`` (what an offline run reads), as
    ``huggingface_hub`` does for a download by branch name."""
    ref = snap.folder.parents[1] / "refs" / "main"
    ref.parent.mkdir(parents=True, exist_ok=True)
    untrusted.write_file(ref, snap.commit)  # a new file renamed into place, as a concurrent run reads it


def _explain(exc: BaseException, repo: str) -> tuple[str, str]:
    """Why the hub refused, and the way on through the hub: two clauses. The way on is the first of
    the alternatives ``_way_out`` gives; the other is always a local copy."""
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, RepositoryNotFoundError

    status = getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(exc, GatedRepoError) or status in (401, 403):
        sent = "the token in HF_TOKEN was refused" if os.environ.get("HF_TOKEN") else "no token was sent"
        return (
            f"the hub refused access to {repo} (HTTP {status or 401}); it needs a token with access to the"
            f" repository, and {sent}",
            "set HF_TOKEN to such a token (or run `hf auth login`)",
        )
    if isinstance(exc, RepositoryNotFoundError):
        return f"the hub has no dataset {repo}", "point HF_ENDPOINT at a hub or mirror that has it"
    if status == 429:
        return (
            f"the hub's rate limit stopped the download of {repo} (HTTP 429, after retries)",
            "wait a few minutes, or set HF_TOKEN, whose limit is higher (what was downloaded stays cached)",
        )
    if isinstance(exc, HfHubHTTPError):
        return (
            f"the hub answered {status or 'an error'} for {repo} ({exc})",
            "try again later (or set HF_ENDPOINT to a mirror)",
        )
    return (
        f"the hub could not be reached for {repo} ({type(exc).__name__}: {exc})",
        "connect to the hub (or set HF_ENDPOINT to a mirror)",
    )


def _way_out(exc: BaseException, repo: str, env_var: str, fetched: str = "") -> str:
    """The whole message: why, then both ways on, the hub's and a local copy
    (``... . Connect to the hub (or set HF_ENDPOINT to a mirror), or download the files once and set
    SUBTLEBENCH_ROOT to that folder.``)."""
    why, way = _explain(exc, repo)
    return f"{why}{fetched}. {way[0].upper()}{way[1:]}, or download the files once and set {env_var} to that folder."


def _with_retries(call, attempts: int = 6):
    """``call()``, retried on HTTP 429 and 5xx after the hub's ``Retry-After`` (else 1, 2, 4, 8 s):
    huggingface_hub retries its file downloads so, but not its API calls."""
    import time

    from huggingface_hub.errors import HfHubHTTPError

    for attempt in range(attempts):
        try:
            return call()
        except HfHubHTTPError as exc:
            response = getattr(exc, "response", None)
            status = getattr(response, "status_code", None)
            if response is None or attempt == attempts - 1 or not (status == 429 or (status or 0) >= 500):
                raise
            try:
                wait = float(response.headers.get("Retry-After"))
            except (TypeError, ValueError):
                wait = float(2**attempt)
            time.sleep(min(wait, 60.0))


def snapshot(repo: str, env_var: str) -> Snapshot:
    """The repository's current commit and file list; offline, the commit the cache holds. The
    commit is noted as the run's data source for ``env_var`` (``provenance``)."""
    snap = _snapshot(repo, env_var)
    provenance.note_hub(env_var, snap.repo, snap.commit, snap.folder)
    return snap


def _snapshot(repo: str, env_var: str) -> Snapshot:
    if not offline():
        from huggingface_hub import HfApi

        try:
            info = _with_retries(lambda: HfApi().dataset_info(repo, revision="main"))
            snap = Snapshot(repo, info.sha, tuple(s.rfilename for s in info.siblings or ()))
            _remember_commit(snap)
            return snap
        except Exception as exc:  # noqa: BLE001 - every hub failure ends the same way for the user
            cached = _cached_commit(repo)
            from huggingface_hub.errors import HfHubHTTPError

            if cached is None or isinstance(exc, HfHubHTTPError):
                raise DataError(_way_out(exc, repo, env_var)) from exc
            from loguru import logger

            logger.warning(f"{_explain(exc, repo)[0]}; using the cached copy at commit {cached[:8]}.")
            return Snapshot(repo, cached, None)
    cached = _cached_commit(repo)
    if cached is None:
        raise DataError(
            f"HF_HUB_OFFLINE is set and the Hugging Face cache holds no copy of {repo}: run once online,"
            f" or set {env_var} to a local copy."
        )
    return Snapshot(repo, cached, None)


def _notes(snap: Snapshot, name: str) -> Path:
    return snap.folder.parents[1] / "lmms_comparative" / snap.commit / f"{name}.json"


def remember(snap: Snapshot, name: str, value) -> None:
    """Keep a small JSON fact about a commit (what its configs name) beside its cached files."""
    import json

    path = _notes(snap, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    untrusted.write_file(path, json.dumps(value))


def recall(snap: Snapshot, name: str):
    """What ``remember`` kept for this commit, or None."""
    import json

    path = _notes(snap, name)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def cached(snap: Snapshot, path: str) -> Path | None:
    """The cached file of ``path`` at the snapshot's commit, or None."""
    target = snap.folder / path
    return target if target.is_file() else None


def fetch(
    snap: Snapshot, paths: list[str], env_var: str, desc: str, workers: int = WORKERS, required: bool = True
) -> Path:
    """Download the ``paths`` not yet cached (in parallel, with a progress bar); returns the
    snapshot folder. With ``required=False`` a path the repository lacks, or (offline) the cache
    lacks, is left out (the item that needs it is skipped and named later); otherwise that is an
    error naming it."""
    missing = list(dict.fromkeys(p for p in paths if cached(snap, p) is None))
    if not required:
        known = set(snap.files or ())
        missing = [p for p in missing if p in known]
    if not missing:
        return snap.folder
    if snap.files is None:
        shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        raise DataError(
            f"{len(missing)} file(s) of {snap.repo} are not in the Hugging Face cache ({shown}) and the hub is"
            f" not used (HF_HUB_OFFLINE, or unreachable): run once online, or set {env_var}."
        )
    from huggingface_hub import hf_hub_download
    from tqdm import tqdm  # type: ignore[import-untyped]  # tqdm ships no type information

    def one(path: str) -> None:
        hf_hub_download(snap.repo, path, repo_type=REPO_TYPE, revision=snap.commit)

    with (
        ThreadPoolExecutor(max_workers=max(1, min(workers, len(missing)))) as pool,
        tqdm(total=len(missing), desc=desc, unit="file") as bar,
    ):
        futures = [pool.submit(one, p) for p in missing]
        try:
            for future in futures:
                future.result()
                bar.update(1)
        except Exception as exc:  # noqa: BLE001
            for other in futures:
                other.cancel()
            done = sum(1 for f in futures if f.done() and not f.cancelled() and f.exception() is None)
            raise DataError(
                _way_out(exc, snap.repo, env_var, f" ({done} of {len(missing)} file(s) fetched this run)")
            ) from exc
    return snap.folder
