"""``random_choice``: a seeded uniform guess among the options a prompt offers. No weights.

It anchors every multiple-choice score at its chance level, and lets the whole pipeline (data,
prompts, parsing, aggregation, results files) run on a machine with nothing but CPUs. The guess
for a document depends only on the seed, the task name and the doc id, so it is the same in every
run, process and rank.

The options are read from the prompt: lines ``A. ...``, ``B. ...`` (the SubtleBench layout), or
``A) ...``. A prompt without them gets an empty answer, which the tasks count as unparseable.
"""

from __future__ import annotations

import random
import re
from typing import List

from lmms_eval.api.instance import Instance
from lmms_eval.api.model import lmms
from loguru import logger
from tqdm import tqdm

from lmms_comparative.metrics.mcq import stable_seed

_OPTION_LINE = re.compile(r"^\s*([A-Z])[.)]\s", re.MULTILINE)


def offered_letters(prompt: str) -> list[str]:
    """The option letters a prompt lists, in order, without repeats."""
    return list(dict.fromkeys(_OPTION_LINE.findall(prompt)))


class RandomChoice(lmms):
    is_simple = True
    supports_video = True  # it never looks at its inputs, so any task can run on it

    def __init__(self, seed: int | str = 0, load_visuals: bool | str = True, **kwargs) -> None:
        super().__init__()
        if kwargs:
            logger.warning(f"random_choice ignores model_args {sorted(kwargs)}")
        self.seed = int(seed)
        # Opening the images like a real model would makes a broken data root fail here too.
        self.load_visuals = str(load_visuals).lower() not in ("false", "0", "no")
        self.device = "cpu"

    def _answer(self, prompt: str, task: str, doc_id: int) -> str:
        letters = offered_letters(prompt)
        if not letters:
            return ""
        return random.Random(stable_seed(self.seed, task, doc_id)).choice(letters)

    def generate_until(self, requests: List[Instance]) -> List[str]:
        answers = []
        for request in tqdm(requests, disable=self.rank != 0, desc="random_choice"):
            context, _gen_kwargs, doc_to_visual, doc_id, task, split = request.args
            if self.load_visuals and doc_to_visual is not None:
                doc_to_visual(self.task_dict[task][split][doc_id])
            answers.append(self._answer(context if isinstance(context, str) else "", task, doc_id))
        return answers

    def loglikelihood(self, requests):
        raise NotImplementedError("random_choice only answers generation tasks")

    def generate_until_multi_round(self, requests):
        raise NotImplementedError("random_choice only answers single-round generation tasks")
