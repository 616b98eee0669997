"""VLM²-Bench: link matching cues across images or a video (T/F, counting, grouping, description).

The facts of the record (``__init__.py`` adds the parts): what the parts themselves read.
"""

from lmms_comparative.data.replies import ItemKey
from lmms_comparative.record import Benchmark, ScoringCall

# eval_pc-v_open-ended.py: gpt-4o, max_tokens=300 and no temperature (the API's default applies;
# the engine sends ``"temperature": null``, which servers read as not set).
JUDGE = ScoringCall(
    ("vlm2bench_pc_vid",),
    "llm",
    "the VLM2-Bench video description judge",
    "VLM2BENCH_JUDGE",
    {"model": "gpt-4o", "temperature": None, "max_tokens": 300},
)


def doc_key(fields: dict) -> str:
    """``uid``; for a GC T/F item ``uid#half``."""
    return f"{fields['uid']}#{fields.get('half', '')}" if fields.get("kind") == "tf_gc" else str(fields["uid"])


FACTS = Benchmark(
    name="vlm2bench",
    title="VLM2-Bench",
    root_variable="VLM2BENCH_ROOT",
    hub_repo="Sterzhang/vlm2-bench",
    task_families=(
        "vlm2bench",
        "vlm2bench_image",
        "vlm2bench_gc",
        "vlm2bench_oc",
        "vlm2bench_pc",
        "vlm2bench_pc_vid",
        "vlm2bench_cot",
        "vlm2bench_cotspecial",
        "vlm2bench_vpgrid",
    ),
    answer_spaces=("choices", "tf", "count"),
    scoring_calls=(JUDGE,),
    exports=(
        (
            "",
            "table1",
            tuple(
                (c, "vlm2bench" if c == "overall" else f"vlm2bench_{c}")
                for c in (
                    "gc_mat",
                    "gc_trk",
                    "oc_cpr",
                    "oc_cnt",
                    "oc_grp",
                    "pc_cpr",
                    "pc_cnt",
                    "pc_grp",
                    "pc_vid",
                    "overall",
                )
            ),
        ),
    ),
    smoke_task="vlm2bench_oc_cnt",  # one small task: what the tests that touch every benchmark run
    item_key=ItemKey(("uid", "kind", "half"), doc_key),
)
