"""VLM²-Bench prompts: the video judge's, from the official code (vlm2-bench/VLM2-Bench, code/).

The question prompts are the release's own (each record's ``question``)."""

# eval_pc-v_open-ended.py: prompt_ab and prompt_aba, verbatim.
PROMPT_AB = """#Task
You are evaluating a model's ability to accurately distinguish between two different individuals, A and B, who appear sequentially in a video (first A, then B). Given a description, your task is to determine if the model explicitly identifies that the first person (A) and the second person (B) are different individuals.
#Return Format
You only need return a number after "Score:". If you think the model correctly identifies that the two appearances belong to different individuals, return "Score: 1". If you think the model fails to explicitly state that there are two different individuals, return "Score: 0".
#Description
{description}
"""
PROMPT_ABA = """#Task
You are evaluating a model's ability to accurately distinguish between two different individuals, A and B, who appear sequentially in a video following an ABA pattern (first A, then B, then A again). Given a description, your task is to determine whether the model explicitly identifies that: (1) A and B are different individuals, and (2) The person in the final scene is the same as the first (A).
#Return Format
You only need return a number after "Score:". (1) If the model correctly describes that the video follows an ABA sequence, explicitly recognizing that the first and last appearances belong to the same person (A), while the middle appearance is a different person (B), return "Score: 2".
(2) If the model correctly identifies that there are two different people in the video (A and B) but does not explicitly mention that the last scene returns to A, return "Score: 1".
(3) If the model fails to recognize that two different individuals appear (e.g., treats all appearances as the same person or does not distinguish between A and B), return "Score: 0".
#Description
{description}
"""
