"""PNS1's cyclic colours stand out on white (issue 31, item 6: twilight_shifted was near
white at PNS1 = 0, where the scores are densest)."""

from __future__ import annotations

import numpy as np

from stpca_gui.plotting.colors import CYCLIC_LEVELS, PointColoring, cyclic_colors


def _contrast_with_white(rgb: np.ndarray) -> np.ndarray:
    """WCAG 2 contrast ratio of sRGB colours against white."""
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    luminance = linear @ np.array([0.2126, 0.7152, 0.0722])
    return 1.05 / (luminance + 0.05)


def test_every_pns1_colour_shows_on_white_and_the_ends_meet():
    phases = np.linspace(-np.pi, np.pi, 721)
    rgba = cyclic_colors(phases)
    assert _contrast_with_white(rgba[:, :3]).min() >= 2.0  # twilight_shifted: 1.3
    # A cycle: the colours at −π and π are one, and the map is not one colour.
    np.testing.assert_allclose(rgba[0], rgba[-1], atol=0.05)
    assert len(np.unique(rgba, axis=0)) >= 0.9 * CYCLIC_LEVELS
    coloring = PointColoring("pns1", n=3, pns1=np.array([-3.0, 0.0, 3.0]))
    np.testing.assert_array_equal(coloring.palette[coloring.codes],
                                  cyclic_colors(np.array([-3.0, 0.0, 3.0])))
