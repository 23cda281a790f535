"""Data sets shipped with the package (numpy only; no Qt, no plotting).

``load_sunspots`` returns the sunspot group births of the paper's section 5.1, from a small
compressed file inside the package, so the paper's analyses run from an installed wheel.
"""

from ._sunspots import PAPER_CYCLE, Sunspots, load_sunspots

__all__ = ["PAPER_CYCLE", "Sunspots", "load_sunspots"]
