"""PyInstaller runtime hook: numba settings of the frozen app, set before numba is imported.

* The kernels are cached inside the bundle, at a path that does not depend on where the
  bundle lives (``stpca_gui/core/_base/bundle_cache.py``); numba's usual user-wide locator is the
  fallback when no cache directory of ours is writable.
* ``NUMBA_CPU_NAME=generic``: numba keys cached machine code on the CPU model and its
  features, so code compiled for the build machine's CPU would be recompiled on any other.
  Generic x86-64 code (no CPU features) is loaded everywhere.
"""

import os

os.environ.setdefault("NUMBA_CACHE_LOCATOR_CLASSES",
                      "stpca_gui.core._base.bundle_cache.BundleCacheLocator,UserWideCacheLocator")
os.environ.setdefault("NUMBA_CPU_NAME", "generic")
