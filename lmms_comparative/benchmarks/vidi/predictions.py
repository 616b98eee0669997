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

from lmms_comparative.data.replies import is_json, needs_tasks
from lmms_comparative.record import PredictionsPart

FORMATS = {"descriptions": needs_tasks("a descriptions file", "vidi_granular or vidi_global")}
DETECT = {"descriptions": is_json}


PART = PredictionsPart(formats=FORMATS, detect=DETECT)
