"""VLM²-Bench from its hub repo ``Sterzhang/vlm2-bench``, when ``VLM2BENCH_ROOT`` is not set.

The repo holds ``vlm2-bench_dataset.zip`` (6.54 GB: ``jsonl/`` and ``data/``, every subtask, the
videos too) and VLMEvalKit's ``VLM2Bench_img.tsv`` (the eight image subtasks, base64 images, no
video); pull requests on the hub would delete the zip. ``hub_source`` takes the zip when the repo
has it: downloaded once into the Hugging Face cache (``hf_hub_download``), then unpacked once
beside it, atomically (into a temporary folder renamed into place, so a half-unpacked folder is
never used), with a progress bar; a zip whose content sits in one top folder is accepted. Without
the zip it takes the TSV, which ``data.py`` reads as the second source.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from pathlib import Path

from lmms_comparative.benchmarks.vlm2bench.table import HUB_REPO, ROOT_VARIABLE
from lmms_comparative.data import hub, untrusted
from lmms_comparative.failures import DataError

HUB_ZIP = "vlm2-bench_dataset.zip"
HUB_TSV = "VLM2Bench_img.tsv"
ENV_VAR = ROOT_VARIABLE
_DONE = ".lmms_comparative_unpacked"  # written last inside a complete unpacked folder


def unpacked_folder(snap: hub.Snapshot) -> Path:
    """Where the zip of a commit is unpacked: beside the cache's snapshots of the repo."""
    return snap.folder.parents[1] / "unpacked" / snap.commit


def _content_root(folder: Path) -> Path:
    """The folder that holds ``jsonl/`` and ``data/``: the unpacked folder, or its one top folder."""
    if (folder / "jsonl").is_dir():
        return folder
    entries = [p for p in folder.iterdir() if p.name != _DONE and not p.name.startswith("__MACOSX")]
    if len(entries) == 1 and entries[0].is_dir() and (entries[0] / "jsonl").is_dir():
        return entries[0]
    raise DataError(
        f"{HUB_ZIP} unpacked under {folder} has no jsonl/ folder (found {sorted(p.name for p in entries)[:10]}); the "
        "release layout is jsonl/ and data/ at the top."
    )


def unpack(archive: Path, target: Path) -> Path:
    """Unpack ``archive`` into ``target`` once; returns the content root. Concurrent processes
    each unpack into their own temporary folder; the first rename wins, the others are removed."""
    if (target / _DONE).is_file():
        return _content_root(target)
    from tqdm import tqdm  # type: ignore[import-untyped]  # tqdm ships no type information

    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        with zipfile.ZipFile(archive) as zf:
            members = zf.infolist()
            with tqdm(
                total=sum(m.file_size for m in members), desc=f"unpacking {archive.name}", unit="B", unit_scale=True
            ) as bar:
                for member in members:
                    zf.extract(member, work)
                    bar.update(member.file_size)
        _content_root(work)  # a zip without the layout is an error before anything is kept
        untrusted.write_file(work / _DONE, archive.name)
        try:
            os.rename(work, target)
        except OSError:  # another process finished first (or a stale folder without the marker)
            if not (target / _DONE).is_file():
                shutil.rmtree(target, ignore_errors=True)
                os.rename(work, target)
    except zipfile.BadZipFile as exc:
        raise DataError(
            f"{archive} is not a readable zip ({exc}); delete it from the Hugging Face cache and run again, or set "
            f"{ENV_VAR}."
        ) from exc
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return _content_root(target)


def hub_source() -> Path:
    """The unpacked zip's content root, or the TSV file when the repo (or, offline, the cache)
    has no zip."""
    from loguru import logger

    snap = hub.snapshot(HUB_REPO, ENV_VAR)
    target = unpacked_folder(snap)
    if (target / _DONE).is_file():
        return _content_root(target)
    has_zip = HUB_ZIP in snap.files if snap.files is not None else hub.cached(snap, HUB_ZIP) is not None
    if has_zip:
        folder = hub.fetch(snap, [HUB_ZIP], ENV_VAR, "VLM2-Bench zip")
        root = unpack(folder / HUB_ZIP, target)
        logger.info(f"VLM2-Bench: {HUB_ZIP} of {HUB_REPO} (commit {snap.commit[:8]}), unpacked at {root}")
        return root
    has_tsv = HUB_TSV in snap.files if snap.files is not None else hub.cached(snap, HUB_TSV) is not None
    if has_tsv:
        folder = hub.fetch(snap, [HUB_TSV], ENV_VAR, "VLM2-Bench TSV")
        logger.info(
            f"VLM2-Bench: {HUB_REPO} (commit {snap.commit[:8]}) has no {HUB_ZIP}; reading VLMEvalKit's {HUB_TSV} "
            "(image subtasks only)"
        )
        return folder / HUB_TSV
    found = sorted(snap.files or [])[:10]
    raise DataError(
        f"{HUB_REPO} has neither {HUB_ZIP} nor {HUB_TSV} (found {found}); set {ENV_VAR} to a local copy of the release."
    )
