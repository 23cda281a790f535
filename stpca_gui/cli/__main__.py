"""``python -m stpca_gui.cli``: the ``stpca`` command."""

import sys

from . import main

sys.exit(main())
