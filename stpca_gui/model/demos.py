"""Every built-in demo: the paper's simulations (:mod:`stpca_gui.core.demos`) and its real data
sets bundled with the package (:mod:`stpca_gui.datasets`), listed once for the app's Demos
menu, ``stpca demo`` and ``stpca demos``.

The simulations live in the core (numpy only); a real data set cannot, because the core and
the bundled data sets are independent layers, so this model-level module joins them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..core.demos import SIMULATED_DEMO_NAMES, list_simulated_demos
from ..datasets import STRUCTURE_DEMO_NAMES, load_small_rna
from ..datasets._adk_loop import ADK_LOOP, ADK_LOOP_SELECTION, adk_loop_files
from ..io.structures import DihedralSettings

__all__ = ["ADK_LOOP", "DATA_DEMOS", "DEMO_NAMES", "SMALL_RNA", "STRUCTURE_DEMOS", "DataDemo",
           "data_demo", "list_demos", "structure_demo"]

#: The small RNA data set of the paper's §5.2.
SMALL_RNA = "small-rna"
#: The demos made of bundled real data, with their menu descriptions.
DATA_DEMOS: dict[str, str] = {
    SMALL_RNA: "Small RNA (paper §5.2): 190 nucleotides, the 7 angles the paper fits (T⁷), "
               "labelled by cluster I / II / V",
}
_STRUCTURE_DESCRIPTIONS = {
    ADK_LOOP: "AdK P-loop (MDAnalysisTests' adk_dims): 14 backbone torsions of residues "
              "7–13 per frame (T¹⁴), 98 frames in 2 runs",
}
#: The demos read from bundled structure files (:data:`stpca_gui.datasets.STRUCTURE_DEMO_NAMES`;
#: AdK's P-loop in two runs needs MDAnalysis), with their menu descriptions.
STRUCTURE_DEMOS: dict[str, str] = {name: _STRUCTURE_DESCRIPTIONS[name]
                                   for name in STRUCTURE_DEMO_NAMES}
#: Every demo name, simulations first.
DEMO_NAMES: tuple[str, ...] = (*SIMULATED_DEMO_NAMES, *DATA_DEMOS, *STRUCTURE_DEMOS)


@dataclass(frozen=True)
class DataDemo:
    """A demo of bundled real data: angles (radians), their names, labels and provenance."""

    name: str
    angles: NDArray[np.float64]
    column_names: tuple[str, ...]
    labels: NDArray[np.str_]
    description: str


def list_demos() -> list[tuple[str, str]]:
    """Every demo as ``(name, description)``, in :data:`DEMO_NAMES` order."""
    return [*list_simulated_demos(), *DATA_DEMOS.items(), *STRUCTURE_DEMOS.items()]


def structure_demo(name: str) -> tuple[str, list[str], DihedralSettings]:
    """The topology, trajectory files and reading settings of a demo of
    :data:`STRUCTURE_DEMOS` (files inside the package; source and licence in
    stpca_gui/datasets/data/README.md)."""
    if name != ADK_LOOP:
        raise ValueError(f"unknown structure demo {name!r}; structure demos: "
                         f"{', '.join(STRUCTURE_DEMOS)}")
    topology, runs = adk_loop_files()
    return str(topology), [str(p) for p in runs], DihedralSettings(
        select=ADK_LOOP_SELECTION, layout="per-frame")


def data_demo(name: str) -> DataDemo:
    """The demo ``name`` of :data:`DATA_DEMOS`.

    Raises
    ------
    ValueError
        For a name that is not a data demo (the message lists them).
    """
    if name != SMALL_RNA:
        raise ValueError(f"unknown data demo {name!r}; data demos: {', '.join(DATA_DEMOS)}")
    rna = load_small_rna()
    return DataDemo(
        name=name, angles=rna.fitted_angles, column_names=rna.fitted_columns,
        labels=rna.cluster,
        description=("Small RNA (paper §5.2): 190 nucleotides, the 7 angles "
                     f"{', '.join(rna.fitted_columns)} (radians), labelled by the cluster "
                     "I / II / V that the pseudotorsions η, θ show. Data: R package pscsne "
                     "(GPL-3), after Sargsyan et al. (2012) and Wadley et al. (2007)."))
