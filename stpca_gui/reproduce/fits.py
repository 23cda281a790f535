"""The ST-PCA fits that the report's sections share: each data set is fitted once per
procedure, however many sections read it (the simulations' data sets appear in sections 1
and 3, the sunspots subsamples in sections 2 and 3)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ..core import ScaledTorusPCA, make_demo
from ..core.demos import CLUSTER_DEMOS, DEFAULT_CLUSTER_SD
from .paper import PROCEDURES

#: Table 2's subsample: 1000 lagged triples, numpy seed 0 (the paper's is unknown).
SUBSAMPLE_SIZE = 1000
SUBSAMPLE_SEED = 0


def subsample_rows(n: int, seed: int, size: int = SUBSAMPLE_SIZE) -> NDArray[np.intp]:
    """Rows of the seeded subsample of ``size`` out of ``n``, in series order."""
    return np.sort(np.random.default_rng(seed).choice(n, size, replace=False))


@dataclass
class ReportFits:
    """Fits of the demos and of the sunspots subsamples, computed on first use and kept.

    Parameters
    ----------
    series : ndarray, shape (N, 3)
        The sunspots lag-3 series whose subsamples :meth:`subsample` fits.
    """

    series: NDArray[np.float64]
    _fits: dict[tuple[Hashable, str], ScaledTorusPCA] = field(default_factory=dict,
                                                              repr=False)

    def _fit(self, key: Hashable, procedure: str,
             angles: Callable[[], NDArray[np.float64]]) -> ScaledTorusPCA:
        if (key, procedure) not in self._fits:
            model = ScaledTorusPCA(random_state=0, n_landmarks="exact", **PROCEDURES[procedure])
            self._fits[(key, procedure)] = model.fit(angles())
        return self._fits[(key, procedure)]

    def demo(self, name: str, seed: int, procedure: str,
             cluster_sd: float | None = None) -> ScaledTorusPCA:
        """The fit of demo ``name`` with data seed ``seed`` (model seed 0) by ``procedure``
        (a key of :data:`~stpca_gui.reproduce.paper.PROCEDURES`)."""
        sd = DEFAULT_CLUSTER_SD if cluster_sd is None and name in CLUSTER_DEMOS else cluster_sd
        return self._fit(("demo", name, seed, sd), procedure,
                         lambda: make_demo(name, random_state=seed, cluster_sd=sd).angles)

    def subsample(self, seed: int, procedure: str) -> ScaledTorusPCA:
        """The fit of the sunspots subsample with numpy seed ``seed`` by ``procedure``."""
        return self._fit(("subsample", seed), procedure,
                         lambda: self.series[subsample_rows(len(self.series), seed)])
