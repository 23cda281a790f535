"""The sunspots births data set bundled with the package (the paper's section 5.1 data)."""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ._bundled import bundled_text, read_only

#: The bundled file (built by ``_build.py``) inside this package.
DATA_FILE = "sunspots_births.csv.xz"
#: Solar cycle of the paper's sunspots series.
PAPER_CYCLE = 23

SOURCE = (
    "Dataset `sunspots_births` of the R package rotasym 1.3.1 (GPL-3, E. García-Portugués), "
    "built from the Debrecen Photoheliographic Data (DPD, 1974-2018) and the Greenwich "
    "Photoheliographic Results (GPR, 1872-1976)."
)

DESCRIPTION = """\
Births (first observation) of sunspot groups, 1874-04-17 to 2018-06-19, in date order.

Columns kept from the rotasym data (the others, group id, date, area and distance to the disc
centre, are not bundled):

- cycle : solar cycle number (11 to 24).
- theta : heliographic longitude of the group's area-weighted centre, radians in [0, 2π).
- phi : heliographic latitude, radians.

Longitudes are given to 0.01°; timestamps and values repeat (cycle 23 has 5373 births but
only 4970 distinct longitudes), so code must cope with duplicate points. The paper studies
cycle 23 as the lag-3 series (θ_i, θ_{i+1}, θ_{i+2}) on T³, i = 1..5371.
"""


@dataclass(frozen=True, eq=False)  # arrays: compare the fields, not the objects
class Sunspots:
    """Sunspot group births: solar cycle, longitude and latitude of each, in date order.

    Attributes
    ----------
    cycle : ndarray of int64, shape (n,)
        Solar cycle number.
    theta : ndarray of float64, shape (n,)
        Heliographic longitude, radians in [0, 2π), exactly as in the source table.
    phi : ndarray of float64, shape (n,)
        Heliographic latitude, radians.
    description : str
        What the columns are and what to expect of them.
    source : str
        Where the data come from and their licence.

    Arrays are read-only, so one loaded instance can be shared.
    """

    cycle: NDArray[np.int64]
    theta: NDArray[np.float64]
    phi: NDArray[np.float64]
    description: str = field(default=DESCRIPTION, repr=False)
    source: str = field(default=SOURCE, repr=False)

    def __post_init__(self) -> None:
        sizes = {self.cycle.shape, self.theta.shape, self.phi.shape}
        if len(sizes) != 1 or self.cycle.ndim != 1:
            raise ValueError(f"cycle, theta and phi must be 1-D of one length, got {sizes}")
        for name in ("cycle", "theta", "phi"):
            object.__setattr__(self, name, read_only(getattr(self, name)))

    def __len__(self) -> int:
        return int(self.theta.size)

    @property
    def longitude_degrees(self) -> NDArray[np.float64]:
        """The longitudes as recorded, in degrees to 0.01° (θ · 180/π rounded to 2 decimals).

        The source table gives θ to 10 significant digits, rotasym holds ``lon / 180 * pi``
        to full precision; ``longitude_degrees / 180 * np.pi`` gives rotasym's doubles back
        (bit patterns matter only for code that is sensitive to the rounding of ties).
        """
        return np.round(self.theta * (180.0 / np.pi), 2)

    @property
    def cycles(self) -> tuple[int, ...]:
        """The cycle numbers present, ascending."""
        return tuple(int(c) for c in np.unique(self.cycle))

    def of_cycle(self, cycle: int) -> Sunspots:
        """The births of one solar cycle, in date order.

        Raises
        ------
        ValueError
            When no birth belongs to ``cycle``.
        """
        keep = self.cycle == cycle
        if not keep.any():
            raise ValueError(f"no sunspot births in cycle {cycle}; cycles are {self.cycles}")
        return Sunspots(self.cycle[keep], self.theta[keep], self.phi[keep],
                        self.description, self.source)


def load_sunspots(cycle: int | None = None) -> Sunspots:
    """Load the bundled sunspots births (51,303 groups; cycle 23 is the paper's data).

    Parameters
    ----------
    cycle : int, optional
        Keep only this solar cycle (e.g. ``PAPER_CYCLE`` = 23, 5373 births).

    Returns
    -------
    Sunspots
        Values equal, bit for bit, to parsing the source CSV's text as float64.

    Examples
    --------
    >>> from stpca_gui.core import lagged_embedding
    >>> series = lagged_embedding(load_sunspots(cycle=23).theta, 3)
    >>> series.shape
    (5371, 3)
    """
    text = bundled_text(DATA_FILE)
    table = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1, dtype=np.float64, ndmin=2)
    data = Sunspots(cycle=table[:, 0].astype(np.int64), theta=table[:, 1], phi=table[:, 2])
    return data if cycle is None else data.of_cycle(cycle)
