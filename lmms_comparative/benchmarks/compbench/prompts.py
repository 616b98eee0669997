"""MLLM-CompBench prompts: paper appendix B.2, Table 7 (verbatim), and the release README's SoccerNet question."""

LEFT_RIGHT = "If you choose the first image, return Left, and if you choose the second image, return Right. Please only return either Left or Right without any other words, spaces, or punctuation."
# Table 7's wording for Gemini1.0-pro, which answered "Left" to everything with the one above.
FIRST_SECOND = "If you choose the first image, return First, and if you choose the second image, return Second. Please only return either First or Second without any other words, spaces, or punctuation."
CARS_QUESTION = "Based on these images, which car is newer in terms of its model year or release year? Note that this question refers solely to the year each car was first introduced or manufactured, not its current condition or usage."
EXISTENCE = (
    "What is the most obvious difference between the two images? Choose from the following options. If there is no obvious difference, choose None. Options: None, {options}. Please only return one of the options without any other words. "
)
# SoccerNet: the closed question of the release README ("SoccerNet has the following keys"), the
# one CompBenchReview soccer_label_eval.py asked GPT-4V; it is scored automatically. (The paper's
# Table 7 question ends at "Which frame happens first?" and was scored by human evaluators.)
SOCCER = "These are two frames related to {action} in a soccer match. Which frame happens first? Please only return one option from (Left, Right, None) without any other words. If these two frames are exactly the same, select None. Otherwise, choose Left if the first frame happens first and select Right if the second frame happens first."
QUANTITY = (
    "If the second image has more, return Right. If the first image has more, return Left. If both images have the same number, return Same. Please only return either Left or Right or Same without any other words, spaces, or punctuation."
)
QBENCH = "{question} Options: {options}"
