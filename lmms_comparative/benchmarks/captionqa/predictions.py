"""CaptionQA predictions made elsewhere: a captions file (``lmms-comparative score captionqa``).

Format ``captions``: one JSON object ``{image set id: caption}``, the dataset's ``id`` column as key,
e.g. ``{"nat_0001": "A red bus parked ...", ...}``: what the official ``caption.py`` writes and what
``lmms-comparative captionqa-export`` writes from a run. The QA stage then runs as in a run: every
question of every captioned image set goes to the reader (``CAPTIONQA_READER_*``), with the
official option order, the "Cannot answer" option and scores. The caption prompt is the folder
``caption.py`` writes the file to (``<output dir>/<prompt>/<model>.json``: ``simple``, ``short``,
``long``, ``taxonomy``), else ``--tasks`` names it (``captionqa_simple``, ..., or one domain's task).
An image set without a caption is counted as a failed caption, and as in qa.py its questions are
not asked.
"""

from __future__ import annotations

from pathlib import Path

from lmms_comparative.benchmarks.captionqa.table import PROMPTS, task_name
from lmms_comparative.data.replies import Options, Replies, is_json, needs_tasks, read_mapping
from lmms_comparative.record import PredictionsPart

_without_folder = needs_tasks("a captions file", ", ".join(task_name(p) for p in PROMPTS))


def read_captions(path: Path, options: Options) -> Replies:
    """Format ``captions`` (module docstring): the file's captions, for the prompt its folder names or
    ``--tasks`` gives."""
    if not options.tasks and path.resolve().parent.name.lower() in PROMPTS:  # caption.py's <out>/<prompt>/<model>.json
        return read_mapping(path, [task_name(path.resolve().parent.name.lower())])
    return _without_folder(path, options)


FORMATS = {"captions": read_captions}
DETECT = {"captions": is_json}


PART = PredictionsPart(formats=FORMATS, detect=DETECT)
