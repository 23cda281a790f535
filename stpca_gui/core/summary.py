"""The summary of a fitted ST-PCA model: one list of facts for every place that reports one.

The command line prints it, the application's result panel shows it and ``summary.json``
stores it; each takes the same :class:`SummaryItem` s, so a fact is added in one place.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .circstats.rates import classification_rate_interval
from .diagnostics import model_flat_patch
from .smds.pair_stress import STRESS_PAIR_SAMPLE, pair_stress_is_exact

if TYPE_CHECKING:
    from .circstats.mode_clustering import ModeClustering
    from .stpca import ScaledTorusPCA

__all__ = ["MAX_GROUPS_PER_CLUSTER", "SummaryItem", "angle_names", "fit_summary",
           "mode_cluster_items", "stress_text", "summary_json", "superscript"]

_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def superscript(k: int) -> str:
    """``k`` in superscript digits for people's text, e.g. ``superscript(12) == "¹²"``."""
    return str(int(k)).translate(_SUPERSCRIPTS)


@dataclass(frozen=True)
class SummaryItem:
    """One fact about a fitted model.

    Attributes
    ----------
    key : str
        Name in ``summary.json``.
    label : str
        Name shown to people.
    value : object
        JSON-ready value: numbers, strings, booleans, None for "not available", and lists or
        dicts of those (never NaN, which is not JSON).
    text : str
        The value formatted for people.
    shown : bool
        Whether people see it (False for details only kept in the JSON file).
    """

    key: str
    label: str
    value: Any
    text: str
    shown: bool = True


def _number_or_none(value: float) -> float | None:
    """The value as a float, or None when it is NaN or infinite (neither is JSON)."""
    value = float(value)
    return value if math.isfinite(value) else None


def _numbers_or_none(values: Any) -> list[float | None]:
    return [_number_or_none(v) for v in np.ravel(values)]


#: Components listed in the one-line texts of the variance (the JSON holds them all).
SHOWN_COMPONENTS = 10


def stress_text(stress: float) -> str:
    """A stress with four significant digits: 0.0001234 stays readable (".5f" showed a
    fitted stress of 3e-6 as 0.00000)."""
    return f"{stress:.4g}"


def _percentages(ratios: np.ndarray) -> str:
    if np.all(np.isnan(ratios)):
        return "not computed"
    shown = ratios[:SHOWN_COMPONENTS]
    values = " / ".join("n/a" if math.isnan(v) else f"{100 * v:.1f}" for v in shown)
    rest = len(ratios) - len(shown)
    more = f"; PNS{len(shown) + 1}–{len(ratios)} {100 * np.nansum(ratios[len(shown):]):.1f}" \
        if rest > 0 else ""
    return f"{values}{more} % (PNS1 first)"


#: Angles named in the texts of what drives PNS1.
SHOWN_ANGLES = 5


def _torus_items(model: ScaledTorusPCA, names: Sequence[str]) -> list[SummaryItem]:
    """The torus variance of the computed components with their standard errors, the
    remaining variance, and which angles carry PNS1 (angle_contributions_)."""
    ratio = model.torus_explained_variance_ratio_
    se = getattr(model, "torus_explained_variance_ratio_se_", np.zeros_like(ratio))
    computed = int(getattr(model, "torus_variance_components_", np.count_nonzero(
        np.isfinite(ratio))))
    n, d = model.scores_.shape
    rows = getattr(model, "torus_variance_indices_", None)
    used = n if rows is None else len(rows)
    remaining = float(getattr(model, "torus_remaining_variance_ratio_", 0.0))
    remaining_se = float(getattr(model, "torus_remaining_variance_ratio_se_", 0.0))
    if computed == 0:
        text = "not computed"
    else:
        shown = min(computed, SHOWN_COMPONENTS)
        parts = [f"{100 * r:.1f}" + (f" ± {100 * e:.1f}" if used < n else "")
                 for r, e in zip(ratio[:shown], se[:shown], strict=True)]
        text = " / ".join(parts) + " % (PNS1 first"
        if computed < d:
            text += (f"; PNS{computed + 1}–{d} together {100 * remaining:.1f}"
                     + (f" ± {100 * remaining_se:.1f}" if used < n else "") + " %")
        text += ")" if used == n else f"; ± standard error, on {used:,} of {n:,} samples)"
    items = [
        SummaryItem("torus_explained_variance_ratio", "torus variance",
                    _numbers_or_none(ratio), text),
        SummaryItem("torus_explained_variance_ratio_se", "torus variance s.e.",
                    _numbers_or_none(se), "", shown=False),
        SummaryItem("torus_variance_components", "torus components", computed, str(computed),
                    shown=False),
        SummaryItem("torus_remaining_variance_ratio", "torus variance remaining",
                    {"ratio": _number_or_none(remaining), "se": _number_or_none(remaining_se)},
                    "", shown=False),
        SummaryItem("torus_variance_samples", "torus variance samples", used, f"{used:,}",
                    shown=False),
    ]
    contributions = getattr(model, "angle_contributions_", np.empty((0, d)))
    if len(contributions):
        items.append(SummaryItem(
            "angle_contributions", "PNS1 carried by",
            {"angles": list(names), "shares": [_numbers_or_none(row) for row in contributions]},
            _largest(contributions[0], names, "{:.0%}")))
    return items


def _largest(values: np.ndarray, names: Sequence[str], style: str) -> str:
    """The :data:`SHOWN_ANGLES` largest values with their angles' names."""
    order = [k for k in np.argsort(-np.nan_to_num(values, nan=-np.inf), kind="stable")
             if np.isfinite(values[k])][:SHOWN_ANGLES]
    listed = ", ".join(f"{names[k]} {style.format(values[k])}" for k in order)
    more = len(values) - len(order)
    return listed + (f" (largest {len(order)} of {len(values)})" if more > 0 else "")


def angle_names(d: int, names: Sequence[str] | None = None) -> list[str]:
    """The names of the d angles: ``names`` when it has d of them, else θ1 … θd."""
    if names is not None and len(names) == d:
        return [str(name) for name in names]
    return [f"θ{k + 1}" for k in range(d)]


def fit_summary(model: ScaledTorusPCA, names: Sequence[str] | None = None
                ) -> list[SummaryItem]:
    """The facts of a fitted :class:`~stpca_gui.core.stpca.ScaledTorusPCA`, in reading order;
    ``names`` are the angles' names (the table's columns; default θ1 … θd)."""
    smds, pns = model.smds_, model.pns_
    n, d = model.scores_.shape
    estimated = isinstance(model.radius, str)
    status = "converged" if smds.converged_ else "not converged"
    iterations = f"{smds.n_iter_} ({model.optimizer}, {status})"
    if not smds.converged_ and not getattr(smds, "cancelled_", False):
        iterations = (f"{smds.n_iter_} ({model.optimizer}, not converged: the stress still "
                      f"fell by more than tol = {model.tol:g} per step; refit with a larger "
                      f"max_iter (now {model.max_iter}) or tol — the scores are usable when "
                      "the stress had levelled off)")
    curve = model.principal_curve_
    breaks = int(curve.breaks.sum())
    exact = model.landmark_indices_ is None
    all_pairs = float(model.all_pairs_stress_)
    patch = model_flat_patch(model)
    names = angle_names(d, names)
    in_range = curve.in_data_range
    covered = 1.0 if in_range is None else float(np.mean(in_range))
    curve_ranges = np.degrees(curve.angle_ranges())
    return [
        SummaryItem("n_samples", "samples n", int(n), str(n)),
        SummaryItem("n_angles", "angles d", int(d), str(d)),
        *_landmark_items(model, n),
        SummaryItem("initial_radius", "start radius r*", _number_or_none(smds.initial_radius_),
                    f"{smds.initial_radius_:.4f}", shown=estimated),
        SummaryItem("radius", "fitted radius r̂" if estimated else "fixed radius r",
                    _number_or_none(model.radius_), f"{model.radius_:.4f}"),
        SummaryItem("stress", "stress" if exact else "stress on the landmarks",
                    _number_or_none(model.stress_),
                    f"{stress_text(model.stress_)} (start {stress_text(smds.initial_stress_)})"),
        SummaryItem("all_pairs_stress", "stress on all pairs",
                    _number_or_none(all_pairs), _all_pairs_text(all_pairs, n), shown=not exact),
        SummaryItem("initial_stress", "start stress", _number_or_none(smds.initial_stress_),
                    stress_text(smds.initial_stress_), shown=False),
        SummaryItem("flat_patch", "flat patch", patch.as_json(), patch.statement(),
                    shown=patch.flat),
        SummaryItem("smds_iterations", "SMDS iterations", int(smds.n_iter_), iterations),
        SummaryItem("smds_converged", "SMDS converged", bool(smds.converged_), status,
                    shown=False),
        SummaryItem("optimizer", "SMDS optimiser", model.optimizer, model.optimizer,
                    shown=False),
        SummaryItem("pns_mode", "PNS mode", model.pns_mode, model.pns_mode, shown=False),
        SummaryItem("sphere_types", "PNS spheres", list(pns.sphere_types_),
                    f"{_sphere_types_text(pns.sphere_types_)} ({model.pns_mode})"),
        _reduction_item(pns),
        SummaryItem("sphere_radii", "subsphere radii", _numbers_or_none(pns.radii_),
                    ", ".join(f"{r:.4f}" for r in pns.radii_), shown=False),
        SummaryItem("p_values", "PNS test p-values",
                    [[_number_or_none(p) for p in row] for row in pns.p_values_],
                    "", shown=False),
        SummaryItem("explained_variance_ratio", "sphere variance",
                    _numbers_or_none(model.explained_variance_ratio_),
                    _percentages(model.explained_variance_ratio_)),
        *_torus_items(model, names),
        SummaryItem("principal_curve_points", "principal curve", len(curve.angles),
                    f"{len(curve.angles)} points, {breaks} break(s)"
                    + ("" if covered == 1.0 else
                       f", {100 * covered:.0f} % of it within the data's PNS1 range")),
        SummaryItem("principal_curve_breaks", "curve breaks", breaks, str(breaks), shown=False),
        SummaryItem("principal_curve_data_range", "curve within the data", covered,
                    f"{100 * covered:.0f} %", shown=False),
        SummaryItem("principal_curve_angle_ranges", "curve moves most",
                    {"angles": names, "degrees": _numbers_or_none(curve_ranges)},
                    _largest(curve_ranges, names, "{:.0f}°"), shown=d > 3),
        SummaryItem("timings_seconds", "time per stage",
                    {stage: _number_or_none(t) for stage, t in model.timings_.items()},
                    ", ".join(f"{stage} {t:.2f} s" for stage, t in model.timings_.items())),
    ]


def _sphere_types_text(types: list[str]) -> str:
    """The sphere type of each level; beyond 10 levels, runs of one type as "great × 52"."""
    if len(types) <= 10:
        return ", ".join(types) or "–"
    runs = [(kind, len(list(run))) for kind, run in itertools.groupby(types)]
    return ", ".join(kind if count == 1 else f"{kind} × {count}" for kind, count in runs)


def _reduction_item(pns: Any) -> SummaryItem:
    """Which PNS levels were reduced to the leading principal directions (high d), and the
    share of the sphere variance they carry."""
    reduced = np.asarray(getattr(pns, "reduced_levels_", np.zeros(0, dtype=np.int64)))
    if reduced.size == 0:
        return SummaryItem("pns_reduced_levels", "PNS reduction", None,
                           "none (every level fitted)", shown=False)
    d = int(pns.n_components_)
    share = float(pns.reduced_variance_ratio_)
    value = {"first": int(reduced[0]) + 1, "last": int(reduced[-1]) + 1,
             "count": int(reduced.size), "variance_share": _number_or_none(share)}
    text = (f"levels {value['first']}–{value['last']} of {d - 1} reduced to the leading "
            f"principal directions ({100 * share:.1f} % of the sphere variance; "
            f"pns_exact_levels=\"all\" fits every level)")
    return SummaryItem("pns_reduced_levels", "PNS reduction", value, text)


def _landmark_items(model: ScaledTorusPCA, n: int) -> list[SummaryItem]:
    """How many samples spherical MDS was solved on: all (exact) or m landmarks."""
    m = int(model.n_landmarks_)
    if model.landmark_indices_ is None:
        return [SummaryItem("n_landmarks", "landmarks", m, f"none (exact fit on all {n:,})",
                            shown=False),
                SummaryItem("landmark_method", "landmark rule", None, "–", shown=False)]
    method = str(model.landmark_method)
    return [SummaryItem("n_landmarks", "landmarks", m, f"{m:,} of {n:,} ({method})"),
            SummaryItem("landmark_method", "landmark rule", method, method, shown=False)]


def _all_pairs_text(stress: float, n: int) -> str:
    """The all-pairs stress, saying whether it is exact or estimated from sampled pairs."""
    how = ("exact" if pair_stress_is_exact(n)
           else f"estimated from {STRESS_PAIR_SAMPLE:,} random pairs")
    return f"{stress_text(stress)} ({how})"


def summary_json(items: list[SummaryItem]) -> dict[str, Any]:
    """The items as a JSON-ready mapping (every item, shown or not)."""
    return {item.key: item.value for item in items}


def mode_cluster_items(clusters: ModeClustering, *, level: float = 0.95,
                       n_boot: int = 2000) -> list[SummaryItem]:
    """The facts of PNS1's mode clusters: the rule and its test, the sizes with each
    cluster's stability, and, with true labels, the classification rate with its bootstrap
    interval (:func:`~stpca_gui.core.circstats.rates.classification_rate_interval`)."""
    test = clusters.mode_test
    value: dict[str, Any] = {
        "rule": clusters.method, "n_clusters": clusters.n_clusters,
        "sizes": [int(s) for s in clusters.sizes],
        "modes": _numbers_or_none(clusters.modes),
        "antimodes": _numbers_or_none(clusters.antimodes if clusters.has_structure else []),
        "bandwidth": _number_or_none(clusters.bandwidth),
        "stability": None if clusters.stability is None
        else _numbers_or_none(clusters.stability),
    }
    if test is not None:
        value.update({
            "alpha": test.alpha, "k_hat": test.n_modes, "p_values": list(test.p_values),
            "raw_p_values": list(test.raw_p_values),
            "critical_bandwidths": list(test.critical_bandwidths),
            "calibration": test.calibration, "n_boot": test.n_boot, "k_max": test.k_max,
            "test": test.method,
            "excess_mass_p_values": list(test.excess_mass_p_values),
            "n_distinct": test.n_distinct, "note": test.note,
            "reached_k_max": test.reached_max,
            "torus_uniformity_p_value": test.uniformity_p_value,
            "structure": clusters.has_structure,
        })
    sizes = " / ".join(str(int(s)) for s in clusters.sizes)
    if clusters.stability is not None and clusters.has_structure:
        sizes += " (stability " + " / ".join(f"{s:.2f}" for s in clusters.stability) + ")"
    note = test.note if test is not None else ""
    small = clusters.small_clusters_text()
    items = [SummaryItem("mode_clusters", "PNS1 mode clusters", value, clusters.describe()),
             SummaryItem("mode_test_note", "mode test note", note, note, shown=bool(note)),
             SummaryItem("cluster_sizes", "cluster sizes", [int(s) for s in clusters.sizes],
                         sizes, shown=clusters.has_structure),
             SummaryItem("small_clusters", "small clusters",
                         [int(k) + 1 for k in clusters.small_clusters()], small,
                         shown=bool(small))]
    if clusters.confusion is not None and not _labels_are_classes(clusters):
        groups = clusters.confusion.counts.shape[1]
        items.append(SummaryItem(
            "classification_rate", "clusters vs labels", None,
            f"no classification rate: {groups} label groups for {clusters.n_clusters} "
            f"clusters are not classes the clusters could recover (at most "
            f"{MAX_GROUPS_PER_CLUSTER * clusters.n_clusters} are)"))
    elif clusters.confusion is not None:
        counts = clusters.confusion.counts
        rows, cols = np.nonzero(counts)
        weights = counts[rows, cols]
        interval = classification_rate_interval(np.repeat(rows, weights),
                                                np.repeat(cols, weights), level=level,
                                                n_boot=n_boot)
        items.append(SummaryItem(
            "classification_rate", "clusters vs labels",
            {"rate": interval.rate, "low": interval.low, "high": interval.high,
             "level": interval.level, "n_boot": interval.n_boot,
             "misclassified": interval.n_misclassified},
            f"{100 * interval.rate:.1f} % correctly classified against the "
            f"{counts.shape[1]} label groups ({interval.n_misclassified} "
            f"of {interval.n} wrong; {100 * level:.0f} % CI {100 * interval.low:.1f}–"
            f"{100 * interval.high:.1f} %)"))
    return items


#: Label groups per cluster beyond which the labels are not classes the clusters could
#: recover (residue names against three clusters), so no classification rate is given.
MAX_GROUPS_PER_CLUSTER = 2


def _labels_are_classes(clusters: ModeClustering) -> bool:
    """Whether the label groups are few enough to be classes: at most
    :data:`MAX_GROUPS_PER_CLUSTER` per cluster."""
    groups = clusters.confusion.counts.shape[1]
    return groups <= MAX_GROUPS_PER_CLUSTER * max(1, clusters.n_clusters)
