"""The bundle's entry point: the ``stpca-gui`` console script."""

import multiprocessing
import sys

from stpca_gui.gui.app import main

if __name__ == "__main__":
    # The app fits its launch demo in a child process (stpca_gui/gui/head_start.py); a
    # frozen child is this executable again, which this call turns into the child.
    multiprocessing.freeze_support()
    sys.exit(main())
