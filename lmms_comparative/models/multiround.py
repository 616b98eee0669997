"""``multiround``: the papers' multi-step protocols for every lmms-eval model.

A multi-step task (``subtlebench_twostep``, ``compbench_twostage``, ...) has lmms-eval's output type
``generate_until_multi_round``: its ``doc_to_messages(doc)`` gives the first round's messages, and
``doc_to_messages(doc, round_idx=k, previous_output=[...], previous_round_info=...)`` returns
``(messages, terminal, previous_output, round_info)`` for round k, built from the earlier rounds'
replies. lmms-eval 0.7.3's vLLM and SGLang chat classes run that protocol themselves; its ``openai``
and Hugging Face classes raise ``NotImplementedError``. This class runs it for any of them:

    lmms-eval --model multiround --model_args inner=openai,model_version=gpt-4o,base_url=... \\
        --tasks subtlebench_twostep

``inner`` names the model that answers; every other model_arg (and ``--batch_size``, ``--device``)
is the inner model's. Each round is one batch: all docs' round-k requests go to the inner model's
``generate_until`` together (its own batching, concurrency and retries apply). A chat inner model
gets the round's messages (system turn included); a simple one gets the text parts joined by a blank
line (system first, as our tasks' ``doc_to_text`` do) and the round's images. Every round's reply is
returned, in order, so the samples log holds them all (``resps``) and the task scores the last.
Single-round tasks in the same run go to the inner model as they are.
"""

from __future__ import annotations

from typing import Any, List

from lmms_eval.api.instance import Instance, unwrap_generation_output
from lmms_eval.api.model import lmms
from loguru import logger
from tqdm import tqdm  # type: ignore[import-untyped]  # tqdm ships no type information

from lmms_comparative.failures import ModelCapabilityError, stop_run
from lmms_comparative.models import HARNESS_SETTINGS
from lmms_comparative.tasklib import flatten


def _build_inner(name: str, kwargs: dict) -> lmms:
    from lmms_eval import models

    if name == "multiround":
        stop_run(
            ModelCapabilityError(
                "multiround: inner=multiround would wrap itself; name the model that answers (inner=openai, "
                "inner=qwen2_5_vl, ...)"
            )
        )
    harness = {k: kwargs.pop(k) for k in HARNESS_SETTINGS if k in kwargs}
    args = ",".join(f"{k}={v}" for k, v in kwargs.items())
    return models.get_model(name).create_from_arg_string(args, harness)


class MultiRound(lmms):
    """``--model multiround --model_args inner=<model>,...``: runs a multi-round task's rounds through any lmms-eval
    model (docs/protocols.md)."""

    is_simple = False  # our tasks hand it their doc_to_messages, with the rounds

    def __init__(self, inner: str = "", **kwargs) -> None:
        self._task_dict: dict = {}
        super().__init__()
        if not inner:
            stop_run(
                ModelCapabilityError(
                    "multiround: name the model that answers with model_args inner=<model> (e.g. "
                    "inner=openai,model_version=gpt-4o)"
                )
            )
        self.inner_name = inner
        self.inner = _build_inner(inner, dict(kwargs))
        self.inner.task_dict = self._task_dict

    # The evaluator sets task_dict on the model it holds and reads rank, world size and the
    # accelerator from it: all of them are the inner model's.
    @property
    def task_dict(self):
        return self._task_dict

    @task_dict.setter
    def task_dict(self, value):
        self._task_dict = value
        if "inner" in self.__dict__:  # lmms.__init__ sets it before the inner model exists
            self.inner.task_dict = value

    @property
    def rank(self):
        return self.inner.rank

    @property
    def world_size(self):
        return self.inner.world_size

    def __getattr__(self, name: str) -> Any:
        if name in ("inner", "_task_dict") or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.inner, name)

    # ---- requests as the inner model takes them ------------------------------------------------

    def _request(
        self, messages: list[dict], gen_kwargs: dict, doc_id: int, task: str, split: str, metadata
    ) -> Instance:
        text, visuals = flatten(messages)
        arguments: tuple[Any, ...]
        if getattr(self.inner, "is_simple", True):
            arguments = (text, dict(gen_kwargs), lambda _doc, _v=visuals: _v, doc_id, task, split)
        else:
            arguments = (text, lambda _doc, _m=messages: _m, dict(gen_kwargs), doc_id, task, split)
        return Instance(request_type="generate_until", arguments=arguments, idx=0, metadata=metadata)

    def generate_until(self, requests: List[Instance]) -> List[str]:
        if not getattr(self.inner, "is_simple", True):
            return self.inner.generate_until(requests)
        converted = []
        for request in requests:
            _ctx, doc_to_messages, gen_kwargs, doc_id, task, split = request.args
            converted.append(
                self._request(
                    doc_to_messages(self.task_dict[task][split][doc_id]),
                    gen_kwargs,
                    doc_id,
                    task,
                    split,
                    request.metadata,
                )
            )
        return self.inner.generate_until(converted)

    def generate_until_multi_round(self, requests: List[Instance]) -> List[List[str]]:
        states = []
        for request in requests:
            _ctx, doc_to_messages, gen_kwargs, doc_id, task, split = request.args
            states.append(
                {
                    "request": request,
                    "doc": self.task_dict[task][split][doc_id],
                    "outputs": [],
                    "info": None,
                    "done": False,
                }
            )
        round_idx = 0
        progress = tqdm(total=len(states), disable=self.rank != 0, desc="multiround")
        while True:
            batch, waiting = [], []
            for state in states:
                if state["done"]:
                    continue
                _ctx, doc_to_messages, gen_kwargs, doc_id, task, split = state["request"].args
                if round_idx == 0:
                    messages = doc_to_messages(state["doc"])
                else:
                    payload = doc_to_messages(
                        state["doc"],
                        round_idx=round_idx,
                        previous_output=list(state["outputs"]),
                        previous_round_info=state["info"],
                    )
                    if not (isinstance(payload, tuple) and len(payload) == 4) or payload[1]:
                        state["done"] = True
                        progress.update(1)
                        continue
                    messages, _terminal, _previous, state["info"] = payload
                batch.append(self._request(messages, gen_kwargs, doc_id, task, split, state["request"].metadata))
                waiting.append(state)
            if not batch:
                break
            logger.info(f"multiround: round {round_idx + 1}, {len(batch)} request(s) to {self.inner_name}")
            for state, output in zip(waiting, self.inner.generate_until(batch)):
                text, _tokens = unwrap_generation_output(output)  # API classes return a GenerationResult
                state["outputs"].append(text if isinstance(text, str) else str(text))
            round_idx += 1
        progress.close()
        return [state["outputs"] for state in states]

    def loglikelihood(self, requests):
        return self.inner.loglikelihood(requests)
