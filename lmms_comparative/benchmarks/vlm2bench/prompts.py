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


# ---- Prompting strategies (paper §4, Fig. 5; appendix F.2, Tables 23 and 24, Figure 11) -------------
# The official code has none of them (github vlm2-bench/VLM2-Bench, code/: the test scripts leave
# their system prompt empty), so the text is the paper's, verbatim ("question' s" and "every
# details" included). The paper prints the question on its own line above the instruction; the
# joiner is not published: we send the official "\n" + question, a blank line, then the instruction.
COT_NORMAL = "Let's think 'step by step' to answer this question, you need to output the thinking process of how you get the answer."
COT_SPECIAL = """Use the following 4 steps to answer the question:

Step 1. Understand the Question
- Identify the question's purpose.
- Check for any format requirements.

Step 2. Perceive (List Elements)
- List every details in each image respectively.
- Note positions and attributes of elements.

Step 3. Connect (Compare & Reason)
- Compare corresponding elements in each image.
- List all the unchanged elements and the changed element.

Step 4. Conclude (Answer the Question)"""
# Figure 11; h and w are the dot matrix's size (the paper never gives them: 6 by 6 here, the
# default of the method it follows, github THUNLP-MT/Scaffold). The text conversion of the paper runs
# each step's bullets together on one line; they are kept as printed.
VP_GRID = """Here's the instruction you need to strictly follow to approach this question:

Two images are provided, each overlaid with a grid of dots arranged in a matrix with dimensions {h} by {w}. Each dot on this grid is assigned a unique set of three-dimensional coordinates labeled as (t, x, y). The first coordinate, "t," distinguishes the two images— "1" for the first image, "2" for the second. The remaining coordinates, "x" and "y," specify each dot's location, where within any column x increases from top to bottom, and within any row y increases from left to right.

This labeling system is intended to help you identify, reference, connect, and compare objects across both images. Now, use the following 4 steps to answer the question.

Step 1. Understand the Question - Identify the question' s purpose. - Check for any format requirements.

Step 2. Perceive (List Elements and coordinates) - For all the objects in the 'Options' of the question, identify them in each image separately, double check their existence. If the object exists then output its nearest coordinates. - Output format like 'Image1: apple at coordinates (1, 2, 3)... Image2: banana at coordinates (2, 4, 5)'

Step 3. Connect (Compare & Reason) - Use the grid coordinates to connect objects across the two images, observing any similarities or differences at the same (x, y) positions.

Step 4. Conclude (Answer the Question) - If a specific output format is required (e.g., "MY_ANSWER: ..."), follow it exactly. Include the transparent thinking process in your answer, and make sure you output the final *ONE* answer after 'MY_ANSWER:', just like 'MY_ANSWER: D) '"""
STRATEGY_PROMPTS = {"cot": COT_NORMAL, "cot_special": COT_SPECIAL, "vp_grid": VP_GRID}
