"""The units of free energy the landscape is shown in (matplotlib-free, for the command
line's options and the app's choices)."""

from __future__ import annotations

from ..core import Interval

__all__ = ["AUTOMATIC_BINS", "AUTOMATIC_MAX_BINS", "BINS_RANGE", "BOLTZMANN", "ENERGY_UNITS",
           "TEMPERATURE_RANGE"]

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
#: Bins per axis the automatic choice gives at most.
AUTOMATIC_MAX_BINS = 150
#: How a landscape's bins are chosen when no number is given, in the words of the app's
#: tooltip, the command line's help and the docs (plotting.free_energy computes it).
AUTOMATIC_BINS = ("the smaller width of the Freedman–Diaconis rule 2·IQR·n^(−1/3) and "
                  "Sturges' range/(log₂ n + 1), as numpy's 'auto'; at most "
                  f"{AUTOMATIC_MAX_BINS}")
