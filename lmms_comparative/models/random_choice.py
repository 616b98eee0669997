"""``random_choice``: a seeded uniform guess in each benchmark's own answer space. No weights.

It anchors every score at its chance level, and lets the whole pipeline (data, prompts, parsing,
aggregation, results files) run on a machine with nothing but CPUs. The guess for a document
depends only on the seed, the task name and the doc id, so it is the same in every run, process
and rank.

Each benchmark's record (``benchmarks/<name>/__init__.py``, ``answer_spaces``) says which kinds of
answer its prompts ask for; the task's prompt then gives the candidates. The kinds, in the order
they are tried:

- lettered option lines ``A. ...`` / ``A) ...`` (SubtleBench, CaptionQA on the image): a letter;
- grouping choices ``Choices: A) 1 and 3; B) None; ...`` (VLM²-Bench Grp): one choice as printed;
- ``Options: None, x, y`` (CompBench MagicBrush, Spot-the-diff, Q-Bench2): one option, "None"
  included where offered (the doc's own option list when it has one, so commas inside an option
  do not split it);
- ``return Left ... Right ... Same`` (CompBench): one of the words the prompt asks for;
- ``'T' or 'F'`` (VLM²-Bench T/F): T or F. A claim and its negation (the other half of a T/F pair
  whose question differs only by "not", the OC/PC Cpr pairs) get opposite answers from one guess
  per pair: a consistent guesser, whose chance is the paper's 50% (VLM²-Bench appendix D.1);
  the GC pairs ask two unrelated claims and are guessed independently (25%);
- a numerical answer (VLM²-Bench Cnt): a count in 1..N, N the number of images;
- a "Which frame/image ...?" question (CompBench SoccerNet's open question on a pair): First or
  Second;
- anything else is free-form (ViDi, CaptionQA captions, SubtleBench captions, VLM²-Bench VID):
  a short generic caption drawn from a fixed list.
"""

from __future__ import annotations

import random
import re
from typing import Any, List, Sequence

from lmms_eval.api.instance import Instance
from lmms_eval.api.model import lmms
from loguru import logger
from tqdm import tqdm

from lmms_comparative.metrics.mcq import stable_seed
from lmms_comparative.models import HARNESS_SETTINGS
from lmms_comparative.registry import named_like

_OPTION_LINE = re.compile(r"^\s*([A-Z])[.)]\s", re.MULTILINE)
# VLM²-Bench Grp (paper Tables 14 and 19): "Choices: A) 1 and 3; B) None; C) 2 and 3; D) 1 and 2."
_CHOICES = re.compile(r"Choices:\s*(.+?)\s*$", re.S)
_CHOICE = re.compile(r"(\(?[A-Z]\))\s*([^;()]*?)\s*(?=;|\(?[A-Z]\)|\.?\s*$)")
_INLINE_CHOICE = re.compile(r"\([A-Z]\)")
# CompBench Table 7: "... Choose from the following options. ... Options: None, a, b. Please only ..."
_OPTIONS = re.compile(r"Options:\s*(.+?)(?:\.\s+Please\b|\s*$)", re.S)
# CompBench Table 7: "If you choose the first image, return Left, ... return Right" (and Same).
_RETURN = re.compile(r"\breturn (Left|Right|Same|First|Second)\b")
# VLM²-Bench: OC/PC ask for "'T' or 'F'" (paper Tables 12, 17); the GC pairs ask "Is the answer '...'
# correct for the given question: '...'" and are scored against "T"/"F" (Tables 9-10).
_TRUE_FALSE = re.compile(
    r"'T' or 'F'|\bT or F\b|\bTrue or False\b|\bIs the answer '.*' correct for the given question\b", re.S
)
_COUNT = re.compile(r"numerical answer|answer with a number", re.I)
# A question (sentence start, question mark) about which of the two pictures.
_WHICH_OF_TWO = re.compile(r"(?:^|[.?!]\s+)Which (?:frame|image|picture|photo)\b[^.?!]*\?")
_NOT = re.compile(r"\bnot\s+", re.I)

CAPTION_SENTENCES = (
    "An object has a different colour in the second image.",
    "An object present in the first image is missing from the second.",
    "A new object appears in the second image.",
    "An object has moved to a different position.",
    "An object is larger in one image than in the other.",
    "The number of objects differs between the images.",
    "The lighting of the scene is different.",
    "The scene is viewed from a slightly different angle.",
    "A person is visible in the scene.",
    "The picture shows an indoor scene with several objects.",
    "The picture shows an outdoor scene.",
    "There is some text written on a sign.",
)


def offered_letters(prompt: str) -> list[str]:
    """The option letters a prompt lists as lines, in order, without repeats."""
    return list(dict.fromkeys(_OPTION_LINE.findall(prompt)))


def grouping_choices(prompt: str) -> list[str]:
    """``["A) 1 and 3", "B) None", ...]`` from a VLM²-Bench grouping question; [] if none."""
    match = _CHOICES.search(prompt)
    if match:
        segment = match.group(1)
    elif len(_INLINE_CHOICE.findall(prompt)) > 1:  # "(A) 1 and 2 (B) 1 and 3 ..." after the question
        segment = prompt[_INLINE_CHOICE.search(prompt).start() :]
    else:
        return []
    # The label as printed: the official answer "A) 1 and 3" is compared up to its ")".
    return [f"{label} {text}".strip() for label, text in _CHOICE.findall(segment)]


def listed_options(prompt: str, doc_options: Sequence[str] | None = None) -> list[str]:
    """The options after ``Options:``: the doc's list (plus "None" where the prompt offers it), or
    the prompt's comma-separated list."""
    match = _OPTIONS.search(prompt)
    if not match:
        return []
    listed = [o.strip() for o in match.group(1).split(",") if o.strip()]
    if doc_options:
        return (["None"] if listed and listed[0] == "None" else []) + [str(o) for o in doc_options]
    return listed


def _candidates(kind: str, prompt: str, doc: dict, n_images: int | None) -> list[str]:
    """The answers of ``kind`` that ``prompt`` offers ([] or one when it offers none of that kind)."""
    if kind == "letters":
        return offered_letters(prompt)
    if kind == "choices":
        return grouping_choices(prompt)
    if kind == "options":
        return listed_options(prompt, doc.get("options") if isinstance(doc.get("options"), list) else None)
    if kind == "words":
        return list(dict.fromkeys(_RETURN.findall(prompt)))
    if kind == "tf":
        return ["T", "F"] if _TRUE_FALSE.search(prompt) else []
    if kind == "count":
        return [str(k) for k in range(1, n_images + 1)] if _COUNT.search(prompt) and n_images else []
    if kind == "which":
        return ["First", "Second"] if _WHICH_OF_TWO.search(prompt) else []
    raise ValueError(f"unknown answer kind {kind!r}")


ANSWER_KINDS = ("letters", "choices", "options", "words", "tf", "count", "which")
_FIXED_KINDS = ("tf", "count", "which")


def answer_space(
    prompt: str, doc: dict | None = None, n_images: int | None = None, kinds: tuple[str, ...] = ANSWER_KINDS
) -> tuple[str, list[str]]:
    """(kind, answers) for a prompt: kind is one of ``kinds`` (tried in ``ANSWER_KINDS`` order) or
    caption; answers the candidates a uniform guess draws from ([] for a caption)."""
    doc = doc or {}
    for kind in ANSWER_KINDS:
        if kind in kinds:
            answers = _candidates(kind, prompt, doc, n_images)
            # A list read off the prompt counts from two entries; the fixed spaces when present.
            if len(answers) > 1 or (answers and kind in _FIXED_KINDS):
                return kind, answers
    return "caption", []


def task_answer_kinds(task: str) -> tuple[str, ...]:
    """The answer kinds of the benchmark a task belongs to (its registry record); all kinds for a
    task that is not ours."""
    benchmark = named_like(task)
    return benchmark.answer_spaces if benchmark else ANSWER_KINDS


def random_caption(rng: random.Random) -> str:
    """A short generic caption for free-form questions, drawn with ``rng``."""
    return " ".join(rng.sample(CAPTION_SENTENCES, 2))


def _without_negation(text: str) -> str:
    return _NOT.sub("", text)


class RandomChoice(lmms):
    """``--model random_choice``: a seeded uniform guess in each task's answer space (module docstring)."""

    is_simple = True
    supports_video = True  # it never looks at its inputs, so any task can run on it

    def __init__(self, seed: int | str = 0, load_visuals: bool | str = True, **kwargs) -> None:
        super().__init__()
        # lmms-eval's own settings (HARNESS_SETTINGS) are of no use here, and warning about the CLI's
        # defaults on every run helps no one.
        unknown = sorted(k for k in kwargs if k not in HARNESS_SETTINGS)
        if unknown:
            logger.warning(f"random_choice ignores model_args {unknown}")
        self.seed = int(seed)
        # Opening the images like a real model would makes a broken data root fail here too.
        self.load_visuals = str(load_visuals).lower() not in ("false", "0", "no")
        self.device = "cpu"
        self._partners: dict[tuple[str, str], dict[int, int]] = {}

    # ---- T/F pairs: a claim and its negation -----------------------------------------------------

    def _pair_partner(self, task: str, split: str, doc_id: int) -> dict | None:
        """The other half of this doc's T/F pair (docs sharing a ``pair_id``), or None."""
        try:
            docs = self.task_dict[task][split]
        except (AttributeError, KeyError, TypeError):
            return None
        if (task, split) not in self._partners:
            by_pair: dict[str, list[int]] = {}
            for i, doc in enumerate(docs):
                if isinstance(doc, dict) and doc.get("pair_id"):
                    by_pair.setdefault(str(doc["pair_id"]), []).append(i)
            self._partners[(task, split)] = {
                a: b for ids in by_pair.values() if len(ids) == 2 for a, b in (ids, ids[::-1])
            }
        partner = self._partners[(task, split)].get(doc_id)
        return docs[partner] if partner is not None else None

    def _true_false(self, rng: random.Random, task: str, doc: dict, partner: dict | None) -> str:
        question, other = str(doc.get("question", "")), str((partner or {}).get("question", ""))
        negation_pair = (
            partner is not None and question != other and _without_negation(question) == _without_negation(other)
        )
        if not negation_pair:
            return rng.choice(["T", "F"])
        # One guess per pair about the affirmative claim; its negation gets the opposite answer.
        belief = random.Random(stable_seed(self.seed, task, "pair", doc["pair_id"])).choice(["T", "F"])
        negated = len(_NOT.findall(question)) > len(_NOT.findall(other))
        return {"T": "F", "F": "T"}[belief] if negated else belief

    # ---- the guess ------------------------------------------------------------------------------

    def _answer(
        self,
        prompt: str,
        task: str,
        doc_id: int,
        doc: dict | None = None,
        n_images: int | None = None,
        split: str | None = None,
    ) -> str:
        rng = random.Random(stable_seed(self.seed, task, doc_id))
        kind, answers = answer_space(prompt, doc, n_images, task_answer_kinds(task))
        if kind == "caption":
            return random_caption(rng)
        if kind == "tf" and doc is not None and split is not None:
            return self._true_false(rng, task, doc, self._pair_partner(task, split, doc_id))
        return rng.choice(answers)

    def _doc(self, task: str, split: str, doc_id: int) -> dict | None:
        try:
            return self.task_dict[task][split][doc_id]
        except (AttributeError, KeyError, IndexError, TypeError):
            return None

    @staticmethod
    def _image_count(visuals: Any, doc: dict | None) -> int | None:
        """The number of images the question is about: the doc's own count where it has one (a
        pair given as one concatenated picture is still two), else the visuals handed over."""
        doc = doc or {}
        if doc.get("n_images"):
            return int(doc["n_images"])
        images = doc.get("images")
        if isinstance(images, list) and images:
            return len(images)
        if isinstance(visuals, (list, tuple)) and visuals and not any(isinstance(v, str) for v in visuals):
            return len(visuals)
        return None

    def generate_until(self, requests: List[Instance]) -> List[str]:
        answers = []
        for request in tqdm(requests, disable=self.rank != 0, desc="random_choice"):
            context, _gen_kwargs, doc_to_visual, doc_id, task, split = request.args
            doc = self._doc(task, split, doc_id)
            visuals = (
                doc_to_visual(doc) if self.load_visuals and doc_to_visual is not None and doc is not None else None
            )
            answers.append(
                self._answer(
                    context if isinstance(context, str) else "",
                    task,
                    doc_id,
                    doc,
                    self._image_count(visuals, doc),
                    split,
                )
            )
        return answers

    def loglikelihood(self, requests):
        raise NotImplementedError("random_choice only answers generation tasks")

    def generate_until_multi_round(self, requests):
        raise NotImplementedError("random_choice only answers single-round generation tasks")
