"""Predictions made elsewhere, scored as an lmms-eval run scores a model (``lmms-comparative
score``): ``replies`` reads the files (the formats every benchmark reads, item keys, the replay
file), ``run`` runs lmms-eval on them."""
