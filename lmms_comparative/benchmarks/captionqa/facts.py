"""CaptionQA: a caption, then a text-only reader answers the image's questions from it alone.

The facts of the record (``__init__.py`` adds the parts): what the parts themselves read.
"""

from lmms_comparative.data.replies import ItemKey
from lmms_comparative.record import Benchmark, ScoringCall

# qa.py: EVAL_MODEL, temperature=0.0, --max-tokens default 4. qa.py runs that open model itself
# (vLLM); here it is a server of the user's, by default where `vllm serve` listens (port 8000): no
# public API serves it, so api.openai.com (the other LLMs' default) would not do.
READER = ScoringCall(
    tuple(
        f"captionqa_{p}_*" for p in ("simple", "short", "long", "taxonomy")
    ),  # not captionqa_image (the model answers)
    "llm",
    "the CaptionQA reader",
    "CAPTIONQA_READER",
    {"model": "Qwen/Qwen2.5-72B-Instruct", "temperature": 0.0, "max_tokens": 4, "base_url": "http://localhost:8000/v1"},
)


FACTS = Benchmark(
    name="captionqa",
    title="CaptionQA",
    root_variable="CAPTIONQA_ROOT",
    hub_repo="Borise/CaptionQA",
    task_families=("captionqa_simple", "captionqa_short", "captionqa_long", "captionqa_taxonomy", "captionqa_image"),
    answer_spaces=("letters",),
    scoring_calls=(READER,),
    exports=tuple(
        (
            prompt,
            f"table3_{prompt}",
            tuple(
                (c, f"captionqa_{prompt}" if c == "overall" else f"captionqa_{prompt}_{c}")
                for c in ("overall", "natural", "document", "ecommerce", "embodiedai")
            ),
        )
        for prompt in ("simple", "short", "long", "taxonomy")
    ),
    smoke_task="captionqa_simple_natural",  # one small task: what the tests that touch every benchmark run
    item_key=ItemKey(("id",)),
    side_logs=("reader",),  # the reader's answer to every question (hooks.py)
)
