"""Tiny, randomly initialised vision-language checkpoints, built offline for the end-to-end tests.

No VLM weights can be downloaded in the tests, yet the lmms-eval model classes users run
(``qwen2_5_vl``, ``qwen2_vl``) must be exercised for real: their processors, chat templates,
image and video paths. So each checkpoint is made here from a transformers config (two layers,
hidden size 64), with a byte-level BPE tokenizer trained with ``tokenizers`` on a few sentences and
carrying the model family's special tokens and chat template, and the family's image and video
processor settings. Everything is written with ``save_pretrained`` and loaded back by
``from_pretrained`` inside lmms-eval, exactly as a downloaded checkpoint would be.

The language-model head is zeroed: every logit is equal, greedy decoding picks token id 0, a
plain byte ("!"), so every answer is the same garbage string and must be counted as unparsed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import eval_args, read_run, run_cli

# tests/processor_hook: a sitecustomize that records what a model class hands its processor.
HOOK = Path(__file__).resolve().parents[1] / "processor_hook"

# The Qwen2-VL family's special tokens (tokenizer_config.json of Qwen/Qwen2.5-VL-*-Instruct).
QWEN_SPECIAL = [
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
    "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
    "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>",
]  # fmt: skip

# Our rendition of the Qwen2-VL chat template: ChatML turns; an image or video part becomes
# <|vision_start|><|image_pad|><|vision_end|> (the processor expands the pad to the patch count).
QWEN_CHAT_TEMPLATE = (
    "{% set image_count = namespace(value=0) %}{% set video_count = namespace(value=0) %}"
    "{% for message in messages %}"
    "{% if loop.first and message['role'] != 'system' %}<|im_start|>system\nYou are a helpful "
    "assistant.<|im_end|>\n{% endif %}"
    "<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}<|im_end|>\n"
    "{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}"
    "{% set image_count.value = image_count.value + 1 %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif content['type'] == 'video' or 'video' in content %}"
    "{% set video_count.value = video_count.value + 1 %}<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}"
    "{% endfor %}<|im_end|>\n{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

_CORPUS = [
    "Which image shows more objects? Answer with the letter of the option.",
    "Describe the differences between the two images in detail.",
    "Are these the same person? Answer T or F. How many distinct objects are there?",
    "A caption of the image: shapes on a white background, red green blue circles and squares.",
    "The first image and the second image. Left Right Same None. 0 1 2 3 4 5 6 7 8 9",
]


def _tokenizer(out: Path):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tok.train_from_iterator(_CORPUS * 4, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", additional_special_tokens=QWEN_SPECIAL
    )
    fast.chat_template = QWEN_CHAT_TEMPLATE
    fast.save_pretrained(out)
    return PreTrainedTokenizerFast.from_pretrained(out)


def _qwen_configs(tokenizer, family: str) -> dict:
    ids = {name: tokenizer.convert_tokens_to_ids(name) for name in QWEN_SPECIAL}
    vocab = (len(tokenizer) + 63) // 64 * 64
    text = dict(
        vocab_size=vocab, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=4096, rope_scaling={"type": "mrope", "mrope_section": [2, 3, 3]},
        bos_token_id=ids["<|endoftext|>"], eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"],
    )  # fmt: skip
    vision = dict(
        depth=2,
        embed_dim=32,
        hidden_size=32,
        num_heads=2,
        intermediate_size=64,
        mlp_ratio=2,
        patch_size=14,
        spatial_merge_size=2,
        temporal_patch_size=2,
    )
    if family == "qwen2_5_vl":
        vision.update(out_hidden_size=64, window_size=56, fullatt_block_indexes=[1])
    else:
        vision["hidden_size"] = 64  # Qwen2-VL's merger projects to the vision config's hidden_size
    return dict(
        text_config=text, vision_config=vision, tie_word_embeddings=False,
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"],
        bos_token_id=ids["<|endoftext|>"], eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"],
    )  # fmt: skip


def build_qwen_vl(out: str | Path, family: str = "qwen2_5_vl", seed: int = 0) -> Path:
    """A tiny Qwen2.5-VL (``family="qwen2_5_vl"``) or Qwen2-VL (``"qwen2_vl"``) checkpoint."""
    import torch
    import transformers as tf

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    tokenizer = _tokenizer(out)
    if family == "qwen2_5_vl":
        config_cls, model_cls, processor_cls = (
            tf.Qwen2_5_VLConfig,
            tf.Qwen2_5_VLForConditionalGeneration,
            tf.Qwen2_5_VLProcessor,
        )
    else:
        config_cls, model_cls, processor_cls = tf.Qwen2VLConfig, tf.Qwen2VLForConditionalGeneration, tf.Qwen2VLProcessor
    model = model_cls(config_cls(**_qwen_configs(tokenizer, family))).eval()
    with torch.no_grad():
        model.lm_head.weight.zero_()
    model.generation_config = tf.GenerationConfig(
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id
    )
    model.save_pretrained(out)
    # Small pixel budgets keep the tests fast; the fixture images are 64x64.
    image_processor = tf.Qwen2VLImageProcessor(
        min_pixels=28 * 28, max_pixels=112 * 112, patch_size=14, merge_size=2, temporal_patch_size=2
    )
    video_processor = tf.Qwen2VLVideoProcessor(
        min_pixels=28 * 28, max_pixels=112 * 112, patch_size=14, merge_size=2, temporal_patch_size=2
    )
    processor = processor_cls(
        image_processor=image_processor,
        tokenizer=tokenizer,
        video_processor=video_processor,
        chat_template=QWEN_CHAT_TEMPLATE,
    )
    processor.save_pretrained(out)
    return out


def recorded_env(env: dict, record: Path) -> dict:
    """``env`` with the processor hook on the module path, writing what each request hands the
    processor under ``record`` (made here)."""
    record.mkdir()
    return dict(env, TINY_VLM_RECORD=str(record), PYTHONPATH=f"{HOOK}:{env.get('PYTHONPATH', '')}")


def records(record: Path) -> list[dict]:
    """What the processor hook wrote under ``record``: one row per processor call."""
    return [json.loads(line) for p in sorted(record.glob("*.jsonl")) for line in p.read_text().splitlines()]


def tiny_multiround(model: str, task: str, tmp_path: Path, env: dict) -> tuple[dict, dict[str, list[dict]], list[dict]]:
    """``--model multiround`` around a tiny ``model`` checkpoint (``qwen2_5_vl``, ``qwen2_vl``) on two
    items of ``task``, greedy, the processor's inputs recorded: the results, the samples and the
    records."""
    pytest.importorskip("decord")  # lmms-eval's Qwen classes import it
    checkpoint = build_qwen_vl(tmp_path / "ckpt", model)
    env = recorded_env(env, tmp_path / "record")
    args = f"inner={model},pretrained={checkpoint},device=cpu,device_map=cpu,min_pixels=784,max_pixels=12544"
    proc = run_cli(
        eval_args(
            "multiround",
            task,
            tmp_path / "out",
            *("--limit", "2", "--gen_kwargs", "max_new_tokens=4,temperature=0"),
            model_args=args,
        ),
        env=env,
    )
    results, samples = read_run(tmp_path / "out", proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return results, samples, records(tmp_path / "record")
