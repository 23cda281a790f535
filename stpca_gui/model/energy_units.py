"""The units of free energy the landscape is shown in (matplotlib-free, for the command
line's options and the app's choices)."""

from __future__ import annotations

from ..core import Interval

__all__ = ["BINS_RANGE", "BOLTZMANN", "ENERGY_UNITS", "TEMPERATURE_RANGE"]

#: Molar gas constant per unit of energy (kT per mole at 1 K; CODATA 2018): F in that
#: unit is −R T ln p. "kT" has no temperature.
BOLTZMANN = {"kJ/mol": 0.008314462618, "kcal/mol": 0.0019872042586}
#: The units of F: kT, or a molar energy at a temperature.
ENERGY_UNITS = ("kT", *BOLTZMANN)
#: Temperatures (K) the landscape may be drawn at, as the app's box offers them.
TEMPERATURE_RANGE = Interval(float, 1.0, 10_000.0)
#: Bins per axis a landscape may be asked for, as the app's box offers them (its histogram
#: has BINS² cells).
BINS_RANGE = Interval(int, 1, 500)
