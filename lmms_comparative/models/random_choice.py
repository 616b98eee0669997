"""``random_choice``: a seeded uniform guess in each benchmark's own answer space. No weights.

It anchors every score at its chance level, and lets the whole pipeline (data, prompts, parsing,
aggregation, results files) run on a machine with nothing but CPUs. The guess for a document
depends only on the seed, the task name and the doc id, so it is the same in every run, process
and rank.

Each benchmark's record (``answer_spaces``, ``record.AnswerSpace``) says which kinds of answer its
prompts ask for and how to read the candidates off a prompt (lettered options, a benchmark's own
wording: its folder's ``answers.py``); they are tried in the record's order, and a task that is not
ours tries every registered kind. A T/F claim and its negation (the other half of a T/F pair whose
question differs only by "not") get opposite answers from one guess per pair: a consistent
guesser, whose chance is the paper's 50% (VLM²-Bench appendix D.1); other T/F questions are
guessed independently. A prompt that offers none is free-form (ViDi, captions): a short generic
caption drawn from a fixed list.
"""

from __future__ import annotations

import random
import re
from typing import Any, List, Sequence

from lmms_eval.api.instance import Instance
from lmms_eval.api.model import lmms
from loguru import logger
from tqdm import tqdm  # type: ignore[import-untyped]  # no stubs

from lmms_comparative.metrics.mcq import stable_seed
from lmms_comparative.models import HARNESS_SETTINGS
from lmms_comparative.record import AnswerSpace
from lmms_comparative.registry import BENCHMARKS, named_like

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


def answer_space(
    prompt: str, doc: dict | None = None, n_images: int | None = None, spaces: Sequence[AnswerSpace] | None = None
) -> tuple[str, list[str]]:
    """(kind, answers) for a prompt: the first of ``spaces`` (default: every registered benchmark's)
    that the prompt offers, or caption; answers the candidates a uniform guess draws from ([] for a
    caption)."""
    doc = doc or {}
    for space in every_space() if spaces is None else spaces:
        answers = space.candidates(prompt, doc, n_images)
        # A list read off the prompt counts from two entries; the fixed spaces when present.
        if len(answers) > 1 or (answers and space.fixed):
            return space.kind, answers
    return "caption", []


def every_space() -> tuple[AnswerSpace, ...]:
    """Every registered benchmark's answer spaces, each kind once, in the registry's order."""
    found: dict[str, AnswerSpace] = {}
    for benchmark in BENCHMARKS:
        for space in benchmark.answer_spaces:
            found.setdefault(space.kind, space)
    return tuple(found.values())


def task_answer_spaces(task: str) -> tuple[AnswerSpace, ...]:
    """The answer spaces of the benchmark a task belongs to (its registry record); every registered
    one for a task that is not ours."""
    benchmark = named_like(task)
    return benchmark.answer_spaces if benchmark else every_space()


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
        kind, answers = answer_space(prompt, doc, n_images, task_answer_spaces(task))
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
