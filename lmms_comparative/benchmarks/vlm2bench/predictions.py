"""VLM²-Bench predictions made elsewhere (``lmms-comparative score vlm2bench``).

Items are found by ``uid`` (the release's ``q_id``, or ``vid`` for a video); both halves of a GC pair
share one ``q_id``, so a GC item's key adds its half: ``<q_id>#p`` (answer T) or ``<q_id>#n`` (F);
a second pair under the same ``q_id`` is ``<q_id>~2#p`` / ``<q_id>~2#n``, in file order (``records.repeat_uid``).

Format ``official``: the answer files of the official inference scripts (github
vlm2-bench/VLM2-Bench ``code/*/test/test_script_example/*.py``), JSON lines written as
``code/<gc|oc|pc/image>/test/test_res/test_<subtask>/<model>_<time>_answers.jsonl`` (video:
``code/pc/video/test/test_res/.../vid_<model>_<time>.jsonl``), one record per question::

    GC:      {"q_id": "12", "task": "...", "question": "...", "edit_prompt": "...",
              "model_answer": "T", "gt_answer": "T"}
    OC, PC:  {"q_id": "12_p", "type": "...", "question": "...", "model_answer": "...", "gt_answer": "F"}
    video:   {"vid": "..._ABA_...", "question": "...", ..., "model_answer": "...", "gt_answer": ""}

``model_answer`` is the reply; ``gt_answer`` is checked against the data. The subtask comes from
the path (``gc/.../test_mat``, ``oc/.../test_cpr``, ``pc/.../test_grp``, ``test_pc_v_open-ended``) or,
for a file moved elsewhere, from ``--tasks`` (one task, e.g. ``vlm2bench_oc_cpr``).

Format ``vlmevalkit``: VLMEvalKit's prediction file for VLM2Bench (``<model>_VLM2Bench.xlsx``, or
``.tsv`` / ``.csv`` with ``PRED_FORMAT``; github open-compass/VLMEvalKit ``vlmeval/inference.py``): the
dataset TSV's columns without ``image``, plus ``prediction``; one row per question with ``index``
(e.g. ``pc-cpr_1_p``), ``question``, ``answer``, ``category`` (gc-mat, gc-trk, oc-cpr, oc-cnt, oc-grp,
pc-cpr, pc-cnt, pc-grp) and ``prediction``. The index is read as the TSV's (``tsv.py``: without its
``<category>_``, GC without its half), so the file scores against either copy of the data.
An empty ``prediction`` is an empty reply (unparsed, wrong).
"""

from __future__ import annotations

import re
from pathlib import Path

from lmms_comparative.data.replies import Options, PredictionsError, Replies, read_jsonl
from lmms_comparative.record import PredictionsPart

_GC = ("gc_mat", "gc_trk")


_PATH_SUBTASK = re.compile(
    r"(?:^|/)(gc|oc|pc)(?:/image|/video)?/test/test_res/test_(mat|trk|cpr|cnt|grp|pc_v_open-ended)(?:/|$)"
)


def _subtask(path: Path, options: Options) -> str:
    if len(options.tasks) == 1 and options.tasks[0].startswith("vlm2bench_"):
        return options.tasks[0].removeprefix("vlm2bench_")
    match = _PATH_SUBTASK.search(path.resolve().as_posix())
    if match:
        family, name = match.groups()
        return "pc_vid" if name == "pc_v_open-ended" else f"{family}_{name}"
    raise PredictionsError(
        f"{path}: the path does not say which subtask the answers are for (the official scripts write them under "
        "code/<gc|oc|pc>/test/test_res/test_<subtask>/): name it with --tasks, e.g. --tasks vlm2bench_oc_cpr"
    )


def read_official(path: Path, options: Options) -> Replies:
    """Format ``official`` (module docstring): an official inference script's answers file, for the
    subtask its path or ``--tasks`` names."""
    from lmms_comparative.benchmarks.vlm2bench.records import SUBTASKS, half_of, repeat_uid

    subtask = _subtask(path, options)
    if subtask not in SUBTASKS:
        raise PredictionsError(f"{path}: {subtask!r} is not a VLM2-Bench subtask ({', '.join(SUBTASKS)})")
    task, kind = f"vlm2bench_{subtask}", SUBTASKS[subtask][2]
    out = Replies(tasks=[task], sources=[str(path)])
    seen: dict[
        tuple[str, str], int
    ] = {}  # GC: the n-th record of one q_id and answer is <q_id>~n, as the loader keys it
    for number, row in enumerate(read_jsonl(path), 1):
        where = f"{path}, line {number}"
        ident = row.get("vid" if kind == "vid" else "q_id")
        if ident is None or not isinstance(row.get("model_answer"), str):
            raise PredictionsError(
                f"{where}: an answer record needs {'vid' if kind == 'vid' else 'q_id'} and model_answer (a string)"
            )
        gt = str(row.get("gt_answer", "")).strip()
        key = f"{repeat_uid(str(ident), half_of(gt), seen)}#{half_of(gt)}" if kind == "tf_gc" else str(ident)
        out.add(task, key, row["model_answer"], where)
        if kind != "vid":
            out.expected.setdefault(task, {})[key] = {"gt": gt}
    return out


def _table(path: Path):
    import pandas as pd

    try:
        if path.suffix == ".xlsx":
            return pd.read_excel(path, dtype=str, keep_default_na=False)
        return pd.read_csv(path, sep="\t" if path.suffix == ".tsv" else ",", dtype=str, keep_default_na=False)
    except Exception as exc:  # noqa: BLE001 - pandas and its engines raise many types on a bad file
        raise PredictionsError(
            f"{path}: not a readable {path.suffix or 'table'} file ({exc.__class__.__name__}: {exc})"
        ) from None


def read_vlmevalkit(path: Path, options: Options) -> Replies:
    """Format ``vlmevalkit`` (module docstring): VLMEvalKit's prediction file for VLM2Bench."""
    from lmms_comparative.benchmarks.vlm2bench.records import SUBTASKS, half_of, repeat_uid
    from lmms_comparative.benchmarks.vlm2bench.tsv import _without_category

    table = _table(path)
    missing = [c for c in ("index", "answer", "category", "prediction") if c not in table.columns]
    if missing:
        raise PredictionsError(
            f"{path}: VLMEvalKit's prediction file has the columns index, answer, category and prediction; this one "
            f"lacks {', '.join(missing)}"
        )
    out = Replies(sources=[str(path)])
    seen: dict[str, dict] = {}  # per task, as the loader keys a second pair under one q_id (records.repeat_uid)
    for number, row in enumerate(table.to_dict(orient="records"), 2):
        where = f"{path}, row {number}"
        category = str(row["category"]).strip()
        subtask = category.lower().replace("-", "_")
        if subtask not in SUBTASKS or SUBTASKS[subtask][2] == "vid":
            raise PredictionsError(f"{where}: category {category!r} is not one of VLM2Bench's eight image subtasks")
        task, kind = f"vlm2bench_{subtask}", SUBTASKS[subtask][2]
        key = str(row.get("q_id") or "") or _without_category(str(row["index"]), category, subtask)
        answer = str(row["answer"]).strip()
        if kind == "tf_gc":
            pair = key.rsplit("_", 1)[0] if not row.get("q_id") else key
            key = f"{repeat_uid(pair, half_of(answer), seen.setdefault(task, {}))}#{half_of(answer)}"
        out.add(task, key, str(row["prediction"]), where)
        if kind == "cnt":
            answer = str(int(float(answer))) if re.fullmatch(r"\d+(\.0+)?", answer) else answer
        out.expected.setdefault(task, {})[key] = {"gt": answer}
        if task not in out.tasks:
            out.tasks.append(task)
    return out


def _looks_official(path: Path) -> bool:
    return path.suffix == ".jsonl"


def _looks_vlmevalkit(path: Path) -> bool:
    return path.suffix in (".xlsx", ".tsv", ".csv")


FORMATS = {"official": read_official, "vlmevalkit": read_vlmevalkit}
DETECT = {"official": _looks_official, "vlmevalkit": _looks_vlmevalkit}


PART = PredictionsPart(formats=FORMATS, detect=DETECT)
