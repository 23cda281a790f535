"""Data sets shipped with the package (numpy only; no Qt, no plotting).

``load_sunspots`` returns the sunspot group births of the paper's section 5.1, from a small
compressed file inside the package, so the paper's analyses run from an installed wheel;
``load_small_rna`` the 190 RNA nucleotides of section 5.2, the same way.
"""

from ._adk_loop import ADK_LOOP
from ._small_rna import SmallRna, load_small_rna
from ._sunspots import PAPER_CYCLE, Sunspots, load_sunspots

__all__ = ["PAPER_CYCLE", "STRUCTURE_DEMO_NAMES", "SmallRna", "Sunspots", "load_small_rna",
           "load_sunspots"]

#: The demos read from bundled structure files (their descriptions:
#: :data:`stpca_gui.model.demos.STRUCTURE_DEMOS`). Here, light to import, because the app
#: decides on them before its window imports the numerics (the launch's head start).
STRUCTURE_DEMO_NAMES: tuple[str, ...] = (ADK_LOOP,)
