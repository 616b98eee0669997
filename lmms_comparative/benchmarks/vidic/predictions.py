"""ViDiC-1K descriptions made elsewhere (``lmms-comparative score vidic``).

Format ``responses``: the authors' response file (response/example_response.json; every
inference/get_response_*.py writes it), one JSON list of records::

    [{"index": 0, "video1_path": "data/...mp4", "video2_path": "data/...mp4", "response": "..."}]

The authors' judge (judge/judge.py ``judge_checklist_multithreaded``) reads ``video1_path`` and
``video2_path`` (the join key with the checklist) and ``response`` (a missing one is ""; an object
is judged as ``json.dumps(..., ensure_ascii=False)``, anything else as ``str``); a later record of
the same pair replaces an earlier one, as its dict does. A record without the two paths stops the
run here, naming it (the authors' script stops on it too). A pair the file has no record for gets
no description: every checklist item of it is answered "error" and counts as wrong, as judge.py
counts it ("No model description").
"""

from __future__ import annotations

from pathlib import Path

from lmms_comparative.benchmarks.vidic.data import pair_key
from lmms_comparative.benchmarks.vidic.scoring import description_text
from lmms_comparative.benchmarks.vidic.table import TASK
from lmms_comparative.data.replies import Options, PredictionsError, Replies, read_json
from lmms_comparative.record import PredictionsPart
from lmms_comparative.tasklib.file_opening import text_opening

REQUIRED = ("video1_path", "video2_path")  # what judge.py reads of a record besides its response


def read_responses(path: Path, options: Options) -> Replies:
    """Format ``responses`` (module docstring): each record's description, by its pair's key."""
    wanted = list(options.tasks) or [TASK]
    unknown = [t for t in wanted if t != TASK]
    if unknown:
        raise PredictionsError(f"{path}: --tasks {', '.join(unknown)}: not a ViDiC-1K task ({TASK})")
    records = read_json(path)
    if not isinstance(records, list):
        raise PredictionsError(f"{path}: expected a JSON list of responses, got {type(records).__name__}")
    found: dict[str, tuple[str, str]] = {}
    for number, record in enumerate(records):
        where = f"{path}, record {number}"
        if not isinstance(record, dict) or any(k not in record for k in REQUIRED):
            raise PredictionsError(f"{where}: a record needs {', '.join(REQUIRED)} (the authors' judge.py reads them)")
        v1, v2 = record["video1_path"], record["video2_path"]
        if not isinstance(v1, str) or not isinstance(v2, str):
            raise PredictionsError(f"{where}: 'video1_path' and 'video2_path' must be strings")
        found[pair_key(v1, v2)] = (description_text(record.get("response", "")), where)  # the last record wins
    out = Replies(tasks=wanted, sources=[str(path)])
    for key, (text, where) in found.items():
        out.add(TASK, key, text, where)
    return out


def _looks_like_responses(path: Path) -> bool:
    """A ``.json`` file that opens with a list whose first record names ``video1_path``."""
    head = text_opening(path, ".json", 4096) or ""
    return head.lstrip().startswith("[") and '"video1_path"' in head and '"video2_path"' in head


FORMATS = {"responses": read_responses}
DETECT = {"responses": _looks_like_responses}
SIGNATURES = DETECT  # the fields are the authors' own: another benchmark's score names it


PART = PredictionsPart(formats=FORMATS, detect=DETECT, signatures=SIGNATURES)
