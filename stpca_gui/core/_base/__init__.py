"""The core's foundations, shared by every step: parameter declarations and validation,
progress and cancel, random states, the kernel compiler and its thread pool, BLAS threads,
memory checks, row blocks of chunked arrays, the model-file class registry and the desktop
bundle's kernel cache. Private: the public names are re-exported by :mod:`stpca_gui.core`."""
