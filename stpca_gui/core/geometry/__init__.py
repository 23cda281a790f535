"""Angles on the torus: wrapping, geodesic distances, delay embeddings of angle series and
input validation, with the compiled kernels they use (shared by every step). The public
names are re-exported by :mod:`stpca_gui.core`."""
