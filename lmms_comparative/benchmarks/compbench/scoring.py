"""MLLM-CompBench answer parsing, scoring and chance level. Pure functions; no lmms-eval import.

The release repository (github RaptorMai/MLLM-CompBench) has no evaluation code. The authors'
scoring is in their working repository, github RaptorMai/CompBenchReview, ``val_test_split.py``
(``get_acc`` for Left/Right answers, ``get_acc_option`` for option answers; the same functions in
``val_test_ft_decom.py`` read MagicBrush/Spot-the-diff options from ``Modified_option``). Those
functions are the specification here; every rule below names the line it reproduces.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Sequence

NONE_OPTION = "None"


def parse_side(response: str | None) -> str | None:
    """ "Right", "Left", "Same" or None (CompBenchReview ``val_test_split.py``, ``get_acc``).

    Case-sensitive substring tests in the authors' order: "Right" or "Second" first, then "Left"
    or "First", then "Same" (accepted in every column, as there). So "right" or "The left image."
    is not parsed, "Leftmost" is Left, "Firstly" is Left and "Left image, right?" is Left.
    Anything else is an error, scored wrong and counted in the denominator.
    """
    if not isinstance(response, str):
        return None
    if "Right" in response or "Second" in response:
        return "Right"
    if "Left" in response or "First" in response:
        return "Left"
    if "Same" in response:
        return "Same"
    return None


def normalize_option(text: str) -> str:
    """CompBenchReview ``get_acc_option``: ``.lstrip(' ').rstrip(' ').lower().strip(punctuation)``.

    Only spaces are stripped (not newlines or tabs), and punctuation only at the two ends, after
    the spaces: "distanced white truck ." stays "distanced white truck " and matches no option.
    """
    return str(text).lstrip(" ").rstrip(" ").lower().strip(string.punctuation)


def option_choices(options: Iterable[str]) -> list[str]:
    """The normalised answers ``get_acc_option`` accepts: the options plus "none" (added for every
    option column there, Q-Bench2 included)."""
    return [normalize_option(o) for o in options] + [normalize_option(NONE_OPTION)]


def parse_option(response: str | None, options: Sequence[str]) -> str | None:
    """The normalised reply if it is one of the normalised options (or "none"), else None.

    CompBenchReview ``get_acc_option``: a reply containing "error" (after normalising) is an error,
    one equal to no option is invalid; both count in the denominator as wrong.
    """
    if not isinstance(response, str):
        return None
    pred = normalize_option(response)
    if "error" in pred or pred not in option_choices(options):
        return None
    return pred


def chance_level(choice_counts: Sequence[int]) -> float:
    """The paper's chance row for one column (Table 2): 1 / (mean number of choices).

    The choices are two for Left/Right, three with Same (VQAv2), the options plus "None" for
    existence (MagicBrush 8.6, Spot-the-diff 9.7 on the authors' annotations) and the options for
    Q-Bench2 (37.4). The mean is taken before the inverse, over the column's items, so it is not
    the mean of the per-item chances (which would make the Avg 43.3 instead of the paper's 43.1).
    """
    if not choice_counts:
        return float("nan")
    return len(choice_counts) / sum(choice_counts)


def two_stage_side(first: str, second: str) -> str:
    """CelebA's and NYU-Depth's second stage (CompBenchReview ``celebA_eval.py``, ``depth_eval.py``):
    no prompt but ``float()`` of each image's reply: "Left" if the first is larger, else "Right" (a
    tie is "Right"); a reply ``float()`` cannot read makes it "Error" (counted wrong). Kept as the
    authors ran it: NYU-Depth asks which object is *closer*, yet the larger distance wins "Left",
    which is how their 36.3% in Table 3 came about."""
    try:
        return "Left" if float(first) > float(second) else "Right"
    except (TypeError, ValueError):
        return "Error"


def depth_noun(question: str) -> str:
    """The object NYU-Depth's stage 1 asks about: the question's second word (``depth_eval.py``:
    ``pair['question'].split(' ')[1]``), so "Which tissue box ..." asks about the "tissue"."""
    words = str(question).split(" ")
    return words[1] if len(words) > 1 else ""
