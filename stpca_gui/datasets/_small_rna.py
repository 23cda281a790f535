"""The small RNA data set bundled with the package (the paper's section 5.2 data)."""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ._bundled import bundled_text, read_only

#: The bundled file (built by ``_build.py``) inside this package.
DATA_FILE = "small_rna.csv.xz"
#: The nine angles, in the order of the table: six backbone dihedrals, the base angle χ and
#: the two pseudotorsions η, θ.
ANGLE_COLUMNS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "chi", "eta", "theta")
#: The angles the paper fits ST-PCA to (T⁷): all but the pseudotorsions.
FITTED_COLUMNS = ANGLE_COLUMNS[:7]
#: The pseudotorsions whose plane shows the clusters (and defines them).
PSEUDOTORSIONS = ("eta", "theta")
#: The C3'-endo clusters of Wadley et al. (2007), in the paper's order.
CLUSTERS = ("I", "II", "V")
#: The labelling rule's threshold on θ, in degrees.
THETA_THRESHOLD_DEGREES = -60.0

SOURCE = (
    "The small RNA data set: data-raw/rna/small_rna.csv of the R package pscsne (GPL-3, "
    "E. García-Portugués and L. A. Rodríguez García), the subset curated by Sargsyan, Wright & "
    "Lim (2012) from the data of Duarte & Pyle (1998) and Wadley et al. (2007), as used by "
    "Eltzner, Huckemann & Mardia (2018) and the ST-PCA paper (§5.2)."
)

DESCRIPTION = """\
190 RNA nucleotides, nine angles each: the six backbone dihedrals alpha, beta, gamma, delta,
epsilon, zeta, the base angle chi and the two pseudotorsions eta, theta (radians here; the
source table gives degrees in (−180, 180]).

cluster: the C3'-endo cluster of Wadley et al. (2007), I (59 rows), II (88) or V (43), by the
rule of pscsne's read-rna.R: I if θ > −60°; II if η > 0° and θ < −60°; V otherwise.
The ST-PCA paper fits the first seven angles only (T⁷) and asks whether the first principal
scores recover the clusters that the η–θ plane shows. Rows repeat (181 distinct of 190):
code must cope with duplicate points.
"""


def cluster_rule(eta: NDArray[np.float64], theta: NDArray[np.float64]) -> NDArray[np.str_]:
    """The clusters of the pseudotorsions (radians), by pscsne's rule: I if θ > −60°; II if
    η > 0° and θ < −60°; V otherwise."""
    theta_degrees = np.degrees(np.asarray(theta, dtype=np.float64))
    eta_degrees = np.degrees(np.asarray(eta, dtype=np.float64))
    return np.where(theta_degrees > THETA_THRESHOLD_DEGREES, "I",
                    np.where(eta_degrees > 0.0, "II", "V"))


@dataclass(frozen=True, eq=False)  # arrays: compare the fields, not the objects
class SmallRna:
    """The small RNA data set: nine angles per nucleotide and its cluster.

    Attributes
    ----------
    angles : ndarray of float64, shape (190, 9)
        The angles in radians (degrees · π/180, in (−π, π]), columns :data:`ANGLE_COLUMNS`.
    cluster : ndarray of str, shape (190,)
        "I", "II" or "V".
    column_names : tuple of str
        The names of the columns of ``angles``.
    fitted_columns : tuple of str
        The columns the paper fits (the first seven).
    description, source : str
        What the columns are; where the data come from and their licence.

    Arrays are read-only, so one loaded instance can be shared.
    """

    angles: NDArray[np.float64]
    cluster: NDArray[np.str_]
    column_names: tuple[str, ...] = ANGLE_COLUMNS
    fitted_columns: tuple[str, ...] = FITTED_COLUMNS
    description: str = field(default=DESCRIPTION, repr=False)
    source: str = field(default=SOURCE, repr=False)

    def __post_init__(self) -> None:
        n = self.cluster.shape[0] if self.cluster.ndim == 1 else -1
        if self.angles.shape != (n, len(self.column_names)):
            raise ValueError(f"angles must be (n, {len(self.column_names)}) with one cluster "
                             f"per row, got {self.angles.shape} and {self.cluster.shape}")
        if not set(self.fitted_columns) <= set(self.column_names):
            raise ValueError(f"fitted columns {self.fitted_columns} not all in "
                             f"{self.column_names}")
        object.__setattr__(self, "angles", read_only(self.angles))
        object.__setattr__(self, "cluster", read_only(self.cluster))

    def __len__(self) -> int:
        return int(self.angles.shape[0])

    def column(self, name: str) -> NDArray[np.float64]:
        """One angle column by name (radians)."""
        return self.angles[:, self.column_names.index(name)]

    @property
    def fitted_angles(self) -> NDArray[np.float64]:
        """The angles the paper fits, shape (190, 7), columns :attr:`fitted_columns`."""
        return self.angles[:, [self.column_names.index(name) for name in self.fitted_columns]]


def load_small_rna() -> SmallRna:
    """Load the bundled small RNA data set (190 nucleotides; the paper's §5.2).

    Returns
    -------
    SmallRna
        Angles in radians (the degrees of the source table times π/180), the clusters I / II
        / V, and the seven columns the paper fits.

    Examples
    --------
    >>> rna = load_small_rna()
    >>> rna.fitted_angles.shape
    (190, 7)
    >>> {name: int((rna.cluster == name).sum()) for name in CLUSTERS}
    {'I': 59, 'II': 88, 'V': 43}
    """
    degrees, cluster = read_bundled_table()
    return SmallRna(angles=np.radians(degrees), cluster=cluster)


def read_bundled_table() -> tuple[NDArray[np.float64], NDArray[np.str_]]:
    """The bundled table as parsed: the nine angles in degrees, and the clusters."""
    text = bundled_text(DATA_FILE)
    header = text.split("\n", 1)[0].split(",")
    if tuple(header) != (*ANGLE_COLUMNS, "cluster"):
        raise ValueError(f"{DATA_FILE}: unexpected columns {header}")
    table = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1, dtype=str, ndmin=2)
    return table[:, :len(ANGLE_COLUMNS)].astype(np.float64), table[:, -1].astype(str)
