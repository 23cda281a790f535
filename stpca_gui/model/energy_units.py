"""The units of free energy the landscape is shown in (matplotlib-free, for the command
line's options and the app's choices)."""

from __future__ import annotations

__all__ = ["BOLTZMANN", "ENERGY_UNITS"]

#: Molar gas constant per unit of energy (kT per mole at 1 K; CODATA 2018): F in that
#: unit is −R T ln p. "kT" has no temperature.
BOLTZMANN = {"kJ/mol": 0.008314462618, "kcal/mol": 0.0019872042586}
#: The units of F: kT, or a molar energy at a temperature.
ENERGY_UNITS = ("kT", *BOLTZMANN)
