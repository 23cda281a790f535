"""The package's own files, read and written safely: atomic writes (:mod:`.atomic`), the
hardened container of model files and sessions (:mod:`.container`) and the digests that
identify data (:mod:`.digest`). Standard library and numpy only; nothing of stpca_gui."""
