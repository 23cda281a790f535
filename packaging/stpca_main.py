"""The bundle's second entry point: the ``stpca`` command line, beside ``stpca-gui``."""

import sys

from stpca_gui.cli import main

if __name__ == "__main__":
    sys.exit(main())
