"""ViDiC-1K in the layout of its release: ``checklist/checklist.json`` (or ``checklist.json`` at the
root), a JSON list of video pairs, and the videos under ``data/``, each pair::

    {"index": 0, "video1_path": "data/<source>/<name>.mp4", "video2_path": "data/<source>/<name>.mp4",
     "structured_analysis": {"Similarities": [{"question": "...", "correct_answer": "no", "class": "style"}],
                             "Differences": [{"question": "...", "correct_answer": "yes", "class": "motion"}]}}

The layout, the fields and the class names (lowercase: subject, style, background, camera, motion,
position, playback technique) are those of the checklist the authors' GitHub repository held
(NJU-LINK/ViDiC-1K, checklist/checklist.json, deleted there in 239ed65; its README's file tree) and
of the paper's appendix. The hub release (``NJU-LINK/ViDiC-1K``) could not be listed where this
loader was written: from the hub it fetches the checklist file it finds under either name and the
videos the checklist names, and it logs what it found. Paths are relative to the root (the
authors' scripts open them from the repository's folder); 240 of the release's contain spaces.

A pair whose record is damaged (no ``structured_analysis``, a checklist item that is not an object
or whose question, answer or class is not a string) or whose video is missing or in no container
our decoders are given is skipped, named and counted, not a failed run.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

from loguru import logger

from lmms_comparative.benchmarks.vidic.scoring import UNKNOWN_CLASS
from lmms_comparative.benchmarks.vidic.table import HUB_REPO, ROOT_VARIABLE, SECTIONS
from lmms_comparative.data import hub, items, untrusted
from lmms_comparative.data.roots import local_root
from lmms_comparative.failures import DataError

CHECKLISTS = ("checklist/checklist.json", "checklist.json")
LAYOUT = (
    "checklist/checklist.json (or checklist.json), a JSON list of pairs with video1_path, video2_path and "
    "structured_analysis.{Similarities,Differences}[].{question, correct_answer, class}, and the videos at the "
    "paths it names (data/...mp4), relative to the root"
)
UNREADABLE_RECORD = "pair record unusable"
UNREADABLE_VIDEO = "video missing or unreadable"


def pair_key(video1_path: str, video2_path: str) -> str:
    """A pair's key: its two paths, as the authors' judge.py joins a response to its checklist
    (``(item["video1_path"], item["video2_path"])``)."""
    return f"{video1_path} | {video2_path}"


def _root() -> tuple[Path, str]:
    """(the root, its checklist file's path under it): ``VIDIC_ROOT``, else the hub release."""
    local = local_root(ROOT_VARIABLE, LAYOUT)
    if local is not None:
        for name in CHECKLISTS:
            if (local / name).is_file():
                return local, name
        raise DataError(f"{ROOT_VARIABLE}: no {' or '.join(CHECKLISTS)} under {local}. Expected {LAYOUT}.")
    return _hub_root()


@lru_cache(maxsize=1)
def _hub_root() -> tuple[Path, str]:
    snap = hub.snapshot(HUB_REPO, ROOT_VARIABLE)
    if snap.files is None:  # offline: the checklist the cache holds
        name = next((n for n in CHECKLISTS if hub.cached(snap, n)), None)
        if name is None:
            raise DataError(f"{HUB_REPO}: the cache holds no {' or '.join(CHECKLISTS)}: run once online.")
        return snap.folder, name
    name = next((n for n in CHECKLISTS if n in snap.files), None)
    if name is None:
        raise DataError(
            f"{HUB_REPO} lists no {' or '.join(CHECKLISTS)} at commit {snap.commit[:8]} (its files begin: "
            f"{', '.join(snap.files[:8])}); this loader knows the layout of the authors' repository only. Set "
            f"{ROOT_VARIABLE} to a local copy: {LAYOUT}."
        )
    hub.fetch(snap, [name], ROOT_VARIABLE, "ViDiC-1K checklist")
    return snap.folder, name


def _checklist_items(analysis, where: str) -> list[dict]:
    """The pair's checklist, Similarities first (judge.py ``process_object``'s order): each item's
    section, question, gold answer and class, as calculate.py reads them (a missing question is "",
    a missing answer "", a missing class "unknown"). ``ValueError`` naming what is unusable."""
    if not isinstance(analysis, dict):
        raise ValueError(f"{where}: structured_analysis is not an object")
    found = []
    for section in SECTIONS:
        questions = analysis.get(section, [])
        if not isinstance(questions, list):
            raise ValueError(f"{where}: structured_analysis.{section} is not a list")
        for number, q in enumerate(questions):
            if not isinstance(q, dict):
                raise ValueError(f"{where}: {section}[{number}] is not an object")
            entry = {
                "section": section,
                "question": q.get("question", ""),
                "correct_answer": q.get("correct_answer", ""),
                "class": q.get("class", UNKNOWN_CLASS),
            }
            bad = [k for k in ("question", "correct_answer", "class") if not isinstance(entry[k], str)]
            if bad:
                raise ValueError(f"{where}: {section}[{number}].{bad[0]} is not a string")
            found.append(entry)
    return found


def _video_problem(path: Path) -> str | None:
    """Why a video cannot be given to a model: missing, not a file, or not in a container our decoders take."""
    head = untrusted.file_head(path)
    if not head:
        return "missing, unreadable, empty or not a regular file"
    if untrusted.video_container(head) is None:
        return "not an MP4, Matroska or AVI file"
    return None


def pair_docs(with_videos: bool = True) -> list[dict]:
    """Every usable pair of the release, in file order, as docs: the key, the released paths and
    the resolved ones, and the checklist as JSON text (``checklist``). ``with_videos``: check each
    video (and, from the hub, fetch it) first."""
    root, name = _root()
    path = root / name
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise DataError(
            f"{ROOT_VARIABLE}: cannot read {path} ({type(exc).__name__}: {exc}). Expected {LAYOUT}."
        ) from exc
    if not isinstance(records, list) or not records:
        raise DataError(f"{path}: not a non-empty JSON list of pairs. Expected {LAYOUT}.")
    docs: list[dict] = []
    seen: set[str] = set()
    for index, record in enumerate(records):
        where = f"{path}, pair {index}"
        try:
            if not isinstance(record, dict):
                raise ValueError(f"{where}: not an object")
            v1, v2 = record.get("video1_path"), record.get("video2_path")
            if not isinstance(v1, str) or not isinstance(v2, str) or not v1 or not v2:
                raise ValueError(f"{where}: video1_path and video2_path must be strings")
            outside = [v for v in (v1, v2) if Path(v).is_absolute() or ".." in Path(v).parts]
            if outside:  # the release's paths are relative and stay under its root
                raise ValueError(f"{where}: {outside[0]!r} leads out of the root")
            checklist = _checklist_items(record.get("structured_analysis"), where)
        except ValueError as exc:
            items.skip(UNREADABLE_RECORD, str(exc))
            continue
        key = pair_key(v1, v2)
        if key in seen:  # judge.py keys responses by the pair: a second record of it would take the first's
            items.skip(UNREADABLE_RECORD, f"{where}: the pair {key} again")
            continue
        seen.add(key)
        docs.append(
            {
                "pair": key,
                "index": index,
                "video1_path": v1,
                "video2_path": v2,
                "video1": str(root / v1),
                "video2": str(root / v2),
                "checklist": json.dumps(checklist, ensure_ascii=False),
                "n_items": len(checklist),
            }
        )
    if with_videos:
        docs = _with_videos(root, docs)
    classes: dict[str, int] = {}
    for doc in docs:
        for q in json.loads(str(doc["checklist"])):
            classes[q["class"]] = classes.get(q["class"], 0) + 1
    logger.info(
        f"ViDiC-1K: {len(docs)} pair(s) from {path}, {sum(classes.values())} checklist item(s); classes: "
        + ", ".join(f"{c} {n}" for c, n in sorted(classes.items()))
    )
    return docs


def _with_videos(root: Path, docs: list[dict]) -> list[dict]:
    """The docs whose two videos can be given to a model; from the hub, the videos fetched first."""
    if not os.environ.get(ROOT_VARIABLE, "").strip():
        snap = hub.snapshot(HUB_REPO, ROOT_VARIABLE)
        wanted = [d[k] for d in docs for k in ("video1_path", "video2_path")]
        hub.fetch(snap, wanted, ROOT_VARIABLE, "ViDiC-1K videos", required=False)
    kept = []
    for doc in docs:
        problems = [f"{doc[k]}: {p}" for k in ("video1", "video2") if (p := _video_problem(Path(doc[k])))]
        if problems:
            items.skip(UNREADABLE_VIDEO, f"{doc['pair']}: " + "; ".join(problems))
        else:
            kept.append(doc)
    return kept
