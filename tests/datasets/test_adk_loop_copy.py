"""The structure demo is read from a copy in the user's cache, never from the package."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from stpca_gui.datasets._adk_loop import ADK_LOOP_FILES, adk_loop_files


def test_the_demo_is_read_from_a_cache_copy_and_the_package_gains_no_file(tmp_path,
                                                                          monkeypatch):
    pytest.importorskip("MDAnalysis")
    from structure_files import quiet_universe

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    package = Path(str(resources.files("stpca_gui.datasets").joinpath("data")))
    before = sorted(p.name for p in package.iterdir())
    topology, runs = adk_loop_files()
    assert topology.parent.parent == tmp_path / "stpca-gui"
    assert [p.name for p in (topology, *runs)] == list(ADK_LOOP_FILES)
    for copy in (topology, *runs):
        assert copy.read_bytes() == (package / copy.name).read_bytes()
    universe = quiet_universe(topology, *runs)
    assert universe.trajectory.n_frames == 98
    universe.trajectory.close()
    # MDAnalysis wrote its offset indexes beside the copies, not into the package.
    assert any(p.name.endswith("_offsets.npz") for p in topology.parent.iterdir())
    assert sorted(p.name for p in package.iterdir()) == before
    assert adk_loop_files() == (topology, runs)  # the copy is made once
