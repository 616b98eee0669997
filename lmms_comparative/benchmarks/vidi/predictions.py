"""ViDi predictions made elsewhere: descriptions per pair (``lmms-comparative score vidi``).

Format ``descriptions``: one JSON object ``{pair id: [description, ...]}``, the pair's folder name as
key and one description per sample (the paper samples at temperature 0.5 and averages five seeds:
five descriptions per pair are scored as ``--repeats 5``), e.g.
``{"0001": ["The man in the second image wears a hat.", ...]}``; a single string is one sample.
Every pair needs the same number of descriptions. ``--tasks`` names the setting the descriptions
were made in (``vidi_granular`` or ``vidi_global``; ``vidi_fewshot`` asks one question per left-out
sentence, keyed ``<pair id>#<k>``).
"""

from __future__ import annotations

from pathlib import Path

from lmms_comparative.predictions import Options, PredictionsError, Replies, read_mapping

KEY_COLUMNS = ("item_id",)


def read_descriptions(path: Path, options: Options) -> Replies:
    if not options.tasks:
        raise PredictionsError(f"{path}: a descriptions file does not say which prompt made it: name the task with --tasks (vidi_granular or vidi_global)")
    return read_mapping(path, list(options.tasks))


def _is_json(path: Path) -> bool:
    return path.suffix == ".json"


FORMATS = {"descriptions": read_descriptions}
DETECT = {"descriptions": _is_json}
