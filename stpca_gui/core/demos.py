"""Seeded generators for the simulated data sets of the paper (section 4).

Three named demos are available through :func:`make_demo`:

``clusters-t2``
    Three isotropic wrapped-normal clusters on T² (section 4.1).
``clusters-t3``
    Three isotropic wrapped-normal clusters on T³ (section 4.2).
``wrapped-normal-t2``
    One anisotropic wrapped normal on T² (section 4.3).

A wrapped normal is obtained by drawing from the normal distribution on R^d and wrapping
every coordinate to [-π, π).  The paper does not state the clusters' standard deviation:
:data:`DEFAULT_CLUSTER_SD` (0.3) is ours, and ``make_demo(name, cluster_sd=...)`` (``stpca
demo NAME --cluster-sd X``) changes it. How it moves the explained variance, r̂ and the
stress, and which value the paper's numbers point to, is in ``docs/variance_gap.md``.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from stpca_gui.core._base.random import RandomStateLike, check_random_state
from stpca_gui.core.geometry.torus import wrap_angles

__all__ = [
    "CLUSTERS_T2_MEANS",
    "CLUSTERS_T3_MEANS",
    "CLUSTER_DEMOS",
    "DEFAULT_CLUSTER_SD",
    "SIMULATED_DEMO_NAMES",
    "WRAPPED_NORMAL_T2_COV",
    "WRAPPED_NORMAL_T2_MEAN",
    "DemoDataset",
    "list_simulated_demos",
    "make_clusters",
    "make_clusters_t2",
    "make_clusters_t3",
    "make_demo",
    "make_wrapped_normal",
    "make_wrapped_normal_t2",
    "sphere_clusters",
]

#: Cluster centres of section 4.1 (T²).
CLUSTERS_T2_MEANS: tuple[tuple[float, ...], ...] = ((-1.0, -2.0), (3.0, 0.5), (-0.8, 2.5))
#: Cluster centres of section 4.2 (T³).
CLUSTERS_T3_MEANS: tuple[tuple[float, ...], ...] = (
    (-1.0, -2.0, 0.0),
    (1.0, 1.0, -1.0),
    (0.0, -1.0, 3.0),
)
#: Mean and covariance of the anisotropic wrapped normal of section 4.3 (T²).
WRAPPED_NORMAL_T2_MEAN: tuple[float, float] = (-1.0, 0.0)
WRAPPED_NORMAL_T2_COV: tuple[tuple[float, float], tuple[float, float]] = ((2.0, 2.0), (2.0, 3.0))

#: The paper's simulations: the names :func:`make_demo` accepts, in display order. Every
#: demo of the app and the command line, the bundled real data sets too, is
#: ``stpca_gui.model.demos.DEMO_NAMES``.
SIMULATED_DEMO_NAMES: tuple[str, ...] = ("clusters-t2", "clusters-t3", "wrapped-normal-t2")
#: The demos made of clusters, whose standard deviation ``make_demo(cluster_sd=...)`` sets.
CLUSTER_DEMOS: tuple[str, ...] = ("clusters-t2", "clusters-t3")
#: Standard deviation (radians) of every coordinate of the clusters demos' clusters. The
#: paper does not state it; this is our choice (docs/variance_gap.md weighs it against the
#: paper's r̂, stress and explained variance).
DEFAULT_CLUSTER_SD = 0.3


def _readonly(a: NDArray) -> NDArray:
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class DemoDataset:
    """A simulated data set on the torus.

    Attributes
    ----------
    name : str
        Demo name (one of :data:`SIMULATED_DEMO_NAMES` for the named demos).
    angles : ndarray, shape (n, d)
        Angles in radians, wrapped to [-π, π). Stored read-only.
    labels : ndarray, shape (n,)
        Integer group labels (cluster index, all 0 for a single distribution). Read-only.
    description : str
        Human-readable description with the generating parameters.
    column_names : tuple of str
        One name per angle column.
    """

    name: str
    angles: NDArray[np.float64]
    labels: NDArray[np.int64]
    description: str
    column_names: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        angles = np.asarray(self.angles, dtype=np.float64)
        labels = np.asarray(self.labels)
        if angles.ndim != 2:
            raise ValueError(f"angles must be a 2-D array (n, d), got shape {angles.shape}")
        if labels.shape != (angles.shape[0],):
            raise ValueError(f"labels must have shape ({angles.shape[0]},), got {labels.shape}")
        if not np.issubdtype(labels.dtype, np.integer):
            raise ValueError(f"labels must be integers, got dtype {labels.dtype}")
        names = tuple(self.column_names) or _column_names(angles.shape[1])
        if len(names) != angles.shape[1]:
            raise ValueError(f"{len(names)} column names given for {angles.shape[1]} angle columns")
        object.__setattr__(self, "angles", _readonly(wrap_angles(angles)))
        object.__setattr__(self, "labels", _readonly(labels.astype(np.int64)))
        object.__setattr__(self, "column_names", names)

    @property
    def n_samples(self) -> int:
        """Number of points ``n``."""
        return int(self.angles.shape[0])

    @property
    def dim(self) -> int:
        """Torus dimension ``d``."""
        return int(self.angles.shape[1])


def _column_names(d: int) -> tuple[str, ...]:
    return tuple(f"theta{k + 1}" for k in range(d))


def _check_positive_int(value: object, name: str) -> int:
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if int(value) < 1:
        raise ValueError(f"{name} must be a positive integer, got {int(value)}")
    return int(value)


def _check_cluster_sd(value: object, name: str) -> float:
    """``value`` as a float, refused unless it is a positive finite real number."""
    message = (f"{name} (the clusters' standard deviation, radians) must be a positive "
               f"finite number, got {value!r}")
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise ValueError(message)
    sd = float(value)
    if not np.isfinite(sd) or sd <= 0:
        raise ValueError(message)
    return sd


def _fmt_vec(v: ArrayLike) -> str:
    return "(" + ", ".join(f"{x:g}" for x in np.asarray(v, dtype=float).ravel()) + ")"


def make_clusters(
    means: ArrayLike,
    n_per_cluster: int | Sequence[int] = 100,
    sd: float = DEFAULT_CLUSTER_SD,
    random_state: RandomStateLike = 0,
    *,
    name: str = "clusters",
) -> DemoDataset:
    """Mixture of isotropic wrapped-normal clusters on T^d.

    Parameters
    ----------
    means : array_like, shape (k, d)
        Cluster centres in radians (any real values; they are used before wrapping).
    n_per_cluster : int or sequence of k ints, default 100
        Points per cluster.
    sd : float, default 0.3
        Standard deviation of every coordinate of the (unwrapped) normal clusters.
    random_state : None, int or numpy.random.Generator, default 0
        Seed or generator.
    name : str, keyword-only
        Name stored in the result.

    Returns
    -------
    DemoDataset
        Points of cluster ``j`` (labels ``j``) in consecutive blocks, in the order of
        ``means``.

    Raises
    ------
    ValueError
        On a malformed ``means``, non-positive sizes or a non-positive / non-finite ``sd``.
    """
    mu = np.asarray(means, dtype=np.float64)
    if mu.ndim != 2 or mu.shape[0] < 1 or mu.shape[1] < 1:
        raise ValueError(f"means must be a (k, d) array with k, d >= 1, got shape {mu.shape}")
    if not np.all(np.isfinite(mu)):
        raise ValueError("means must be finite")
    k, d = mu.shape
    if isinstance(n_per_cluster, numbers.Integral) and not isinstance(n_per_cluster, bool):
        sizes = [_check_positive_int(n_per_cluster, "n_per_cluster")] * k
    else:
        sizes = [_check_positive_int(m, "n_per_cluster") for m in n_per_cluster]
        if len(sizes) != k:
            raise ValueError(f"n_per_cluster has {len(sizes)} entries for {k} clusters")
    sd_f = _check_cluster_sd(sd, "sd")
    rng = check_random_state(random_state)
    blocks = [mu[j] + sd_f * rng.standard_normal(size=(sizes[j], d)) for j in range(k)]
    labels = np.repeat(np.arange(k, dtype=np.int64), sizes)
    centres = ", ".join(_fmt_vec(m) for m in mu)
    size_txt = str(sizes[0]) if len(set(sizes)) == 1 else "/".join(map(str, sizes))
    description = (
        f"{k} isotropic wrapped-normal clusters on T^{d}: means {centres}, "
        f"{size_txt} points each, cluster sd {sd_f:g}"
    )
    return DemoDataset(
        name=name,
        angles=wrap_angles(np.vstack(blocks)),
        labels=labels,
        description=description,
        column_names=_column_names(d),
    )


def make_clusters_t2(
    n_per_cluster: int | Sequence[int] = 100,
    sd: float = DEFAULT_CLUSTER_SD,
    means: ArrayLike = CLUSTERS_T2_MEANS,
    random_state: RandomStateLike = 0,
) -> DemoDataset:
    """Demo ``clusters-t2``: three wrapped-normal clusters on T² (paper, section 4.1).

    ``n_per_cluster`` points (an int, or one per cluster) around each of ``means``
    (k × 2, default :data:`CLUSTERS_T2_MEANS`) with standard deviation ``sd``, seeded by
    ``random_state``; see :func:`make_clusters`.
    """
    return _paper_clusters(2, means, n_per_cluster, sd, random_state, "4.1")


def make_clusters_t3(
    n_per_cluster: int | Sequence[int] = 100,
    sd: float = DEFAULT_CLUSTER_SD,
    means: ArrayLike = CLUSTERS_T3_MEANS,
    random_state: RandomStateLike = 0,
) -> DemoDataset:
    """Demo ``clusters-t3``: the T³ analogue of :func:`make_clusters_t2` (paper, section 4.2),
    with ``means`` k × 3, default :data:`CLUSTERS_T3_MEANS`."""
    return _paper_clusters(3, means, n_per_cluster, sd, random_state, "4.2")


def _paper_clusters(d: int, means: ArrayLike, n_per_cluster: int | Sequence[int], sd: float,
                    random_state: RandomStateLike, section: str) -> DemoDataset:
    """The clusters demo on T^d of the paper's section ``section``."""
    mu = np.asarray(means, dtype=np.float64)
    torus = "T²" if d == 2 else "T³"
    if mu.ndim != 2 or mu.shape[1] != d:
        raise ValueError(f"means must have shape (k, {d}) on {torus}, got {mu.shape}")
    ds = make_clusters(mu, n_per_cluster, sd, random_state, name=f"clusters-t{d}")
    return _with_description(ds, f"Clusters on {torus} (paper §{section}; the paper does not "
                                 f"state the cluster sd). " + ds.description)


def make_wrapped_normal(
    mean: ArrayLike,
    cov: ArrayLike,
    n: int = 500,
    random_state: RandomStateLike = 0,
    *,
    name: str = "wrapped-normal",
) -> DemoDataset:
    """Sample of a wrapped normal distribution on T^d (labels all 0).

    Parameters
    ----------
    mean : array_like, shape (d,)
        Mean of the unwrapped normal, radians.
    cov : array_like, shape (d, d)
        Symmetric positive semi-definite covariance of the unwrapped normal.
    n : int, default 500
        Sample size.
    random_state : None, int or numpy.random.Generator, default 0
    name : str, keyword-only

    Returns
    -------
    DemoDataset

    Raises
    ------
    ValueError
        On shape mismatch, a non-symmetric or non-PSD covariance, or ``n < 1``.
    """
    mu = np.asarray(mean, dtype=np.float64)
    sigma = np.asarray(cov, dtype=np.float64)
    if mu.ndim != 1 or mu.size < 1:
        raise ValueError(f"mean must be a non-empty 1-D array, got shape {mu.shape}")
    d = mu.size
    if sigma.shape != (d, d):
        raise ValueError(f"cov must have shape ({d}, {d}), got {sigma.shape}")
    if not (np.all(np.isfinite(mu)) and np.all(np.isfinite(sigma))):
        raise ValueError("mean and cov must be finite")
    scale = max(1.0, float(np.max(np.abs(sigma))))
    if not np.allclose(sigma, sigma.T, rtol=0.0, atol=1e-12 * scale):
        raise ValueError("cov must be symmetric")
    if np.min(np.linalg.eigvalsh(sigma)) < -1e-10 * scale:
        raise ValueError("cov must be positive semi-definite")
    n = _check_positive_int(n, "n")
    rng = check_random_state(random_state)
    # Symmetric square root handles singular (PSD) covariances too.
    w, v = np.linalg.eigh(sigma)
    root = v * np.sqrt(np.clip(w, 0.0, None))
    x = mu + rng.standard_normal(size=(n, d)) @ root.T
    rows = "; ".join(", ".join(f"{c:g}" for c in row) for row in sigma)
    description = f"Wrapped normal on T^{d}: n = {n}, mean {_fmt_vec(mu)}, covariance [{rows}]"
    return DemoDataset(
        name=name,
        angles=wrap_angles(x),
        labels=np.zeros(n, dtype=np.int64),
        description=description,
        column_names=_column_names(d),
    )


def make_wrapped_normal_t2(
    n: int = 500,
    mean: ArrayLike = WRAPPED_NORMAL_T2_MEAN,
    cov: ArrayLike = WRAPPED_NORMAL_T2_COV,
    random_state: RandomStateLike = 0,
) -> DemoDataset:
    """Demo ``wrapped-normal-t2``: anisotropic wrapped normal on T² (paper, section 4.3).

    Parameters
    ----------
    n : int, default 500
    mean : array_like, shape (2,), default ``(-1, 0)``
    cov : array_like, shape (2, 2), default ``[[2, 2], [2, 3]]``
    random_state : None, int or numpy.random.Generator, default 0

    Returns
    -------
    DemoDataset
    """
    if np.asarray(mean).shape != (2,):
        raise ValueError(f"mean must have shape (2,) on T², got {np.asarray(mean).shape}")
    ds = make_wrapped_normal(mean, cov, n, random_state, name="wrapped-normal-t2")
    return _with_description(ds, "Anisotropic wrapped normal (paper §4.3). " + ds.description)


def sphere_clusters(n: int, d: int, sd: float = 0.15,
                    random_state: RandomStateLike = 0) -> NDArray[np.float64]:
    """Three clusters of points on the unit sphere S^d ⊂ R^{d+1}, e.g. to exercise PNS.

    Point i belongs to cluster i mod 3; each cluster is the exponential map of normal
    tangent noise (standard deviation ``sd``) at a random centre.

    Returns
    -------
    ndarray, shape (n, d + 1)
        Unit vectors.
    """
    rng = check_random_state(random_state)
    centers = rng.standard_normal((3, d + 1))
    centers /= np.linalg.norm(centers, axis=1, keepdims=True)
    x = np.empty((n, d + 1))
    for i, c in enumerate(centers):
        idx = np.arange(n) % 3 == i
        t = rng.standard_normal((int(idx.sum()), d + 1)) * sd
        t -= (t @ c)[:, None] * c
        nt = np.linalg.norm(t, axis=1, keepdims=True)
        x[idx] = np.cos(nt) * c + np.sin(nt) * t / nt
    return x


def _with_description(ds: DemoDataset, description: str) -> DemoDataset:
    return DemoDataset(ds.name, ds.angles, ds.labels, description, ds.column_names)


_DEMO_SUMMARIES: dict[str, str] = {
    "clusters-t2": f"Three wrapped-normal clusters on T² (100 points each, cluster sd "
                   f"{DEFAULT_CLUSTER_SD:g}; paper §4.1)",
    "clusters-t3": f"Three wrapped-normal clusters on T³ (100 points each, cluster sd "
                   f"{DEFAULT_CLUSTER_SD:g}; paper §4.2)",
    "wrapped-normal-t2": "Anisotropic wrapped normal on T², n = 500 (paper §4.3)",
}


def list_simulated_demos() -> list[tuple[str, str]]:
    """The simulated demos as ``(name, description)`` pairs, in
    :data:`SIMULATED_DEMO_NAMES` order."""
    return [(name, _DEMO_SUMMARIES[name]) for name in SIMULATED_DEMO_NAMES]


def make_demo(name: str, random_state: RandomStateLike = 0, *,
              cluster_sd: float | None = None) -> DemoDataset:
    """Generate a named demo data set with the paper's parameters.

    Parameters
    ----------
    name : str
        One of :data:`SIMULATED_DEMO_NAMES`.
    random_state : None, int or numpy.random.Generator, default 0
        Seed or generator; the same integer seed always gives the same data.
    cluster_sd : float, optional, keyword-only
        Standard deviation (radians) of every coordinate of the clusters of a demo in
        :data:`CLUSTER_DEMOS`; None means :data:`DEFAULT_CLUSTER_SD`. The paper does not
        state it. Refused for a demo without clusters.

    Returns
    -------
    DemoDataset
        Its description states the cluster sd.

    Raises
    ------
    ValueError
        If ``name`` is not a known demo (the message lists the valid names), if
        ``cluster_sd`` is not a positive finite number, or if it is given for a demo that
        has no clusters.
    """
    if name not in SIMULATED_DEMO_NAMES:
        raise ValueError(f"unknown demo {name!r}; valid names are: "
                         f"{', '.join(SIMULATED_DEMO_NAMES)}")
    if cluster_sd is not None and name not in CLUSTER_DEMOS:
        raise ValueError(f"the demo {name!r} has no clusters, so cluster_sd does not apply "
                         f"(demos with clusters: {', '.join(CLUSTER_DEMOS)})")
    sd = DEFAULT_CLUSTER_SD if cluster_sd is None else _check_cluster_sd(cluster_sd,
                                                                         "cluster_sd")
    if name == "clusters-t2":
        return make_clusters_t2(sd=sd, random_state=random_state)
    if name == "clusters-t3":
        return make_clusters_t3(sd=sd, random_state=random_state)
    return make_wrapped_normal_t2(random_state=random_state)
