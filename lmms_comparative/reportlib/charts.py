"""Chart colours shared by every benchmark's charts."""

from __future__ import annotations

CHANCE_COLOUR, HUMAN_COLOUR = "crimson", "black"

# Model colours: the tab10 palette without its red (too near the chance marks) and its grey.
_PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf"]


def model_colours(n: int) -> list[str]:
    """``n`` distinct colours for the models of a chart, none near the chance (crimson) or human
    (black) marks: the palette above, or for more models evenly spaced hues that leave out the reds,
    alternating two brightness levels so that neighbours differ."""
    if n <= len(_PALETTE):
        return _PALETTE[:n]
    import colorsys

    colours = []
    for i in range(n):
        hue = 0.07 + 0.80 * i / n  # 0.07-0.87: orange round to violet, no red
        r, g, b = colorsys.hsv_to_rgb(hue, 0.75 if i % 2 else 0.55, 0.85 if i % 2 else 0.95)
        colours.append(f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}")
    return colours
