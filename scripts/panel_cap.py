"""Which blocks and heads a figure draws when a model has many (docs/transformer.md §5).

A figure draws at most MAX_BLOCKS blocks and MAX_HEADS heads, evenly spaced with the first and the
last included, so that the figure of a deep model stays a few megapixels and quick to draw
(a depth-64 model's used to be 638 x 19 459 pixels and a 2 MB SVG); every head stays in
metrics.json and its matrix in heads/. The figure says which it shows.
"""
MAX_BLOCKS = 8
MAX_HEADS = 8


def shown(count, cap):
    """The indices drawn of `count` items: all of them up to `cap`, else `cap` evenly spaced."""
    if count <= cap:
        return list(range(count))
    return sorted({round(k * (count - 1) / (cap - 1)) for k in range(cap)})


def note(blocks_shown, blocks, heads_shown, heads):
    """One line saying what was left out; "" when everything is drawn."""
    parts = []
    if len(blocks_shown) < blocks:
        parts.append(f"blocks {', '.join(str(b + 1) for b in blocks_shown)} of {blocks}")
    if len(heads_shown) < heads:
        parts.append(f"heads {', '.join(str(k + 1) for k in heads_shown)} of {heads}")
    if not parts:
        return ""
    return ("showing " + " and ".join(parts) +
            " (evenly spaced; every head is in metrics.json and heads/)")
