"""Competing dimension-reduction methods for toroidal data (paper, sections 1 and 5).

The paper compares ST-PCA with the following methods. The first five are "standard PCA" in
some Euclidean or complex representation of the data, and their percentages of variance are
eigenvalue / trace of that representation's covariance matrix; T-PCA goes through a sphere,
as ST-PCA does:

``Euclidean PCA``
    Ordinary PCA of the raw angles in [-π, π), ignoring periodicity.
``aPCA``
    Angular PCA (Riccardi et al., 2009): each angle is centred at its circular mean, the
    deviations are wrapped to [-π, π) and ordinary PCA is applied to them.
``dPCA``
    Dihedral PCA (Mu et al., 2005): PCA of the 2d-dimensional embedding
    (cos θ_1, sin θ_1, …, cos θ_d, sin θ_d).
``complex dPCA``
    Complex dihedral PCA (Altis et al., 2007): eigen-decomposition of the Hermitian
    covariance matrix of z_k = exp(iθ_k).
``dPCA+``
    Dihedral PCA on the torus (Sittel et al., 2017): the periodic boundary of every angle is
    moved to its region of lowest density ("maximal gap shifting"), then ordinary PCA is
    applied to the shifted angles themselves (no sine/cosine embedding).
``T-PCA (SI)``, ``T-PCA (SO)``
    Torus PCA (Eltzner, Huckemann & Mardia, 2018; :mod:`~stpca_gui.core.tpca`): the torus is
    deformed onto S^d and principal nested spheres are fitted. Its percentages are shares of
    the torus variance of the paper's §3.5 (``convention="torus"``, as the paper's Table 2
    reports them); the sphere (PNS) shares are kept too.

Every method has the signature ``method(angles, *, check=None) -> BaselineResult`` (``check``
a :data:`~stpca_gui.core._base.progress.CancelCheck`, called between its steps and, for T-PCA,
inside its fit, so that a comparison can be cancelled midway) and is listed in
:data:`BASELINES` under its display name, so a caller can run all of them on the same data
(see :func:`run_baselines`); ``BaselineResult.convention`` says which variance its
percentages are shares of (:data:`CONVENTIONS`).  Covariances use the unbiased 1/(n-1)
normalisation; this changes no percentage.  The PCA variants order their scores by
decreasing variance (PC1 first) and sign every real loading vector so that its entry of
largest magnitude is positive.

One module per job: the result (:mod:`~stpca_gui.core.baselines.result`), the PCAs of a
Euclidean or complex representation (:mod:`~stpca_gui.core.baselines.euclidean`), dPCA+ and
its gap cuts (:mod:`~stpca_gui.core.baselines.dpca_plus`), the T-PCA wrapper
(:mod:`~stpca_gui.core.baselines.tpca_baseline`) and the registry and runner
(:mod:`~stpca_gui.core.baselines.runner`); every public name is importable from here.
"""

from .dpca_plus import dihedral_pca_plus, maximal_gap_cuts
from .euclidean import angular_pca, complex_dihedral_pca, dihedral_pca, euclidean_pca
from .result import CONVENTIONS, BaselineResult
from .runner import BASELINES, BASELINES_STAGE, run_baselines
from .tpca_baseline import torus_pca

__all__ = [
    "BASELINES",
    "BASELINES_STAGE",
    "CONVENTIONS",
    "BaselineResult",
    "angular_pca",
    "complex_dihedral_pca",
    "dihedral_pca",
    "dihedral_pca_plus",
    "euclidean_pca",
    "maximal_gap_cuts",
    "run_baselines",
    "torus_pca",
]
