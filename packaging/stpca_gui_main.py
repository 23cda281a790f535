"""The bundle's entry point: the ``stpca-gui`` console script."""

import sys

from stpca_gui.gui.app import main

if __name__ == "__main__":
    sys.exit(main())
