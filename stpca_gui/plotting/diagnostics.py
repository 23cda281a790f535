"""Figures of the fit diagnostics: the Shepard diagram and the stress profile over r.

Qt-free builders drawing into a given matplotlib Figure; the numbers come from
:mod:`stpca_gui.core.diagnostics` (docs/diagnostics.md says how to read them).
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import LogFormatterSciNotation, NullFormatter

from ..core.diagnostics import FitDiagnostics, ShepardSample, StressProfile
from .colors import NEUTRAL, PALETTE, STRESS_COLOR_QUANTILE, stress_colormap, stress_scale_max
from .mpl_common import style_axes

#: Font sizes: the view lives in the narrow result column, so the text is small.
_TITLE = 9
_LABEL = 8
_SMALL = 7
#: Blue for data, vermillion for the fitted radius, orange for r*.
DATA_COLOR = PALETTE[4]
FITTED_COLOR = PALETTE[5]
START_COLOR = PALETTE[0]


def _compact(ax: Axes) -> None:
    style_axes(ax)
    ax.tick_params(labelsize=_SMALL)
    ax.xaxis.label.set_size(_LABEL)
    ax.yaxis.label.set_size(_LABEL)


def draw_shepard(ax: Axes, shepard: ShepardSample) -> None:
    """Sphere distance r̂θ against torus distance δ per pair, with the diagonal y = x.

    Points on the diagonal are pairs kept without distortion; below it, pairs drawn
    closer on the sphere than on the torus.
    """
    _compact(ax)
    torus, sphere = shepard.torus_distance, shepard.sphere_distance
    ax.scatter(torus, sphere, s=3, alpha=0.25, color=DATA_COLOR, linewidths=0,
               rasterized=True)
    top = float(max(torus.max(initial=0.0), sphere.max(initial=0.0))) * 1.03 or 1.0
    ax.plot([0.0, top], [0.0, top], color=NEUTRAL, linewidth=1.0, linestyle="--")
    ax.set_xlim(0.0, top)
    ax.set_ylim(0.0, top)
    ax.set_xlabel("torus distance δ (rad)")
    ax.set_ylabel("sphere distance r̂θ")
    how = "all " if shepard.exact else ""
    ax.set_title(f"Shepard diagram, {how}{shepard.torus_distance.size:,} pairs",
                 fontsize=_TITLE)
    # No legend: in the lower right it covered the pairs drawn closer on the sphere, the
    # usual distortion. The key goes top left, above the diagonal, where pairs are rare,
    # on a white box that keeps it readable over any.
    ax.text(0.03, 0.97, f"dashed: no distortion (r̂θ = δ)\nmean (δ − r̂θ)² = "
            f"{shepard.mean_squared_residual:.4g}", transform=ax.transAxes, va="top",
            fontsize=_SMALL, bbox={"facecolor": "white", "alpha": 0.85, "edgecolor": "none",
                                   "pad": 1.5})


def draw_stress_profile(ax: Axes, profile: StressProfile) -> None:
    """Stress against r (log axis) for the fitted configuration, with r̂ and r* marked."""
    _compact(ax)
    ax.plot(profile.radii, profile.stress, color=DATA_COLOR, linewidth=1.5,
            label="stress S(r)")
    ax.set_xscale("log")
    fitted, start = profile.fitted_radius, profile.initial_radius
    ax.axvline(fitted, color=FITTED_COLOR, linewidth=1.2,
               label=f"r̂ = {fitted:.4g} (stress {profile.stress_at(fitted):.3g})")
    ax.axvline(start, color=START_COLOR, linewidth=1.2, linestyle=":",
               label=f"r* = {start:.4g} (stress {profile.stress_at(start):.3g})")
    best = profile.best_radius
    if np.isfinite(best) and not np.isclose(best, fitted, rtol=1e-6):
        ax.plot([best], [profile.stress_at(best)], "v", color=FITTED_COLOR,
                label=f"best r for this configuration: {best:.4g}")
    ax.set_yscale("log")
    positive = profile.stress[profile.stress > 0]
    if positive.size:
        top = float(positive.max())
        ax.set_ylim(max(float(positive.min()) / 2, top * 1e-14), top * 2)
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_minor_formatter(NullFormatter())
    ax.xaxis.set_major_formatter(LogFormatterSciNotation(labelOnlyBase=False,
                                                         minor_thresholds=(2, 0.5)))
    ax.set_xlabel("sphere radius r (log scale)")
    ax.set_ylabel("stress")
    ax.set_title("Stress over r (configuration fixed)", fontsize=_TITLE)
    ax.legend(loc="best", fontsize=_SMALL, frameon=False)


def draw_point_stress(ax: Axes, rms: np.ndarray, scale_max: float) -> None:
    """Histogram of the per-point RMS distance error, bars in the colours of the
    "stress per point" colour mode (so it is that mode's key)."""
    _compact(ax)
    values = np.asarray(rms, dtype=np.float64)
    top = max(float(values.max(initial=0.0)), scale_max, 1e-300)
    # Tiny errors (a flat patch) are drawn in a power-of-ten unit named in the label,
    # rather than with an offset text that collides with the label.
    power = int(np.floor(np.log10(top))) if top < 1e-2 else 0
    unit = 10.0 ** power
    counts, edges = np.histogram(values / unit, bins=40, range=(0.0, top / unit))
    centres = 0.5 * (edges[:-1] + edges[1:])
    colors = stress_colormap()(np.clip(centres * unit / max(scale_max, 1e-300), 0.0, 1.0))
    ax.bar(centres, counts, width=np.diff(edges), color=colors, edgecolor="none")
    ax.axvline(scale_max / unit, color=NEUTRAL, linewidth=1.0, linestyle="--",
               label=f"colour scale top ({STRESS_COLOR_QUANTILE:.0%} quantile)")
    unit_text = f"$10^{{{power}}}$ rad" if power else "rad"
    ax.set_xlabel(f"RMS distance error per point ({unit_text})")
    ax.set_ylabel("samples")
    ax.set_title("Stress per point (colour key)", fontsize=_TITLE)
    ax.legend(loc="upper right", fontsize=_SMALL, frameon=False)


#: What the diagnostics view can show, with the names shown to people.
DIAGNOSTIC_PLOTS: dict[str, str] = {
    "shepard": "Shepard diagram",
    "profile": "stress over r",
    "points": "stress per point",
}


def draw_diagnostics(figure: Figure, diagnostics: FitDiagnostics, which: str = "shepard"
                     ) -> Axes:
    """One diagnostic plot (a key of :data:`DIAGNOSTIC_PLOTS`) filling ``figure``, which
    is cleared first; a flat patch is stated in the figure's title. Returns the axes."""
    if which not in DIAGNOSTIC_PLOTS:
        raise ValueError(f"unknown diagnostic plot {which!r}; expected one of "
                         f"{', '.join(DIAGNOSTIC_PLOTS)}")
    figure.clear()
    ax = figure.add_subplot(111)
    if which == "shepard":
        draw_shepard(ax, diagnostics.shepard)
    elif which == "profile":
        draw_stress_profile(ax, diagnostics.profile)
    else:
        rms = diagnostics.point_stress.rms_residual()
        draw_point_stress(ax, rms, stress_scale_max(rms))
    patch = diagnostics.flat_patch
    if patch.flat:
        figure.suptitle(f"Flat patch: ST-PCA ≈ Euclidean PCA of the patch\n(data within "
                        f"{np.degrees(patch.cap_angle):.1f}° on the sphere, r̂ = "
                        f"{patch.radius_ratio:.3g} r*)", fontsize=_SMALL, color=FITTED_COLOR)
    return ax
