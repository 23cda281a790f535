"""stpca-gui: Scaled Torus PCA for angular data — library, command line and desktop app."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("stpca-gui")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"
