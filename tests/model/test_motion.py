"""model.motion: the frames nearest to evenly spaced points of a component (issue 33 item
5), on the clusters-t3 demo (T³)."""

from __future__ import annotations

import numpy as np
import pytest

from stpca_gui.core import ScaledTorusPCA
from stpca_gui.io.structures import StructureError
from stpca_gui.model import Dataset
from stpca_gui.model.motion import motion_frames
from stpca_gui.model.structures import export_motion


@pytest.fixture(scope="module")
def fitted():
    data = Dataset.from_demo("clusters-t3", random_state=0)
    return data.angles, ScaledTorusPCA(random_state=0).fit(data.angles)


def _distance(a, b):
    return np.sqrt(np.sum(np.angle(np.exp(1j * (np.asarray(a) - b))) ** 2, axis=-1))


@pytest.mark.parametrize("component", [1, 2, 3])
def test_each_frame_is_the_nearest_to_its_point_and_the_points_go_in_order(fitted,
                                                                            component):
    angles, model = fitted
    motion = motion_frames(model, angles, component, 12)
    assert len(motion.rows) == len(set(motion.rows.tolist())) >= 2
    for row, point, distance in zip(motion.rows, motion.targets, motion.distances,
                                    strict=True):
        every = _distance(angles, point)  # brute force, every frame
        assert row == int(np.argmin(every)) and distance == pytest.approx(every[row])
    if component == 1:  # along the data's arc of PNS1, in order
        assert np.all(np.diff(np.unwrap(motion.positions / model.pns_.circle_radius_)) > 0)
    else:  # the component's scores, every other score 0
        assert np.all(np.diff(motion.positions) > 0)
        scores = np.zeros((len(motion.positions), 3))
        scores[:, component - 1] = motion.positions
        assert np.allclose(motion.targets, model.inverse_transform(scores))


def test_frames_asked_for_are_found_where_the_data_allow(fitted):
    angles, model = fitted
    assert len(motion_frames(model, angles, 1, 30).rows) >= 30  # 300 frames: enough
    with pytest.raises(ValueError, match="--component 4: the fit has components 1…3"):
        motion_frames(model, angles, 4)


def test_pooled_rows_or_rows_without_frames_are_refused(fitted, tmp_path):
    angles, model = fitted
    n = len(angles)
    pooled = Dataset(angles=angles, column_names=("a", "b", "c"), source="pooled.csv",
                     provenance={"frame": np.zeros(n, dtype=int), "resid": np.arange(n)})
    with pytest.raises(StructureError, match="residues in frames"):
        export_motion(pooled, model, 1, tmp_path / "m.pdb")
    plain = Dataset(angles=angles, column_names=("a", "b", "c"), source="plain.csv")
    with pytest.raises(StructureError, match="no frame column"):
        export_motion(plain, model, 1, tmp_path / "m.pdb")
    assert list(tmp_path.iterdir()) == []


def test_frames_of_several_runs_without_a_run_column_are_refused_not_taken_from_the_first(
        tmp_path, monkeypatch):
    """Rows of two recorded runs whose trajectory column is gone (a table edited by hand)
    cannot be told apart: refused, as the representatives refuse them, rather than every
    frame taken from the first run (frame 3 of the second run written as frame 3 of the
    first)."""
    pytest.importorskip("MDAnalysis")
    from stpca_gui.model.structures import export_selection_frames, structure_demo_dataset

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    loop = structure_demo_dataset("adk-loop")
    assert len(loop.structure["trajectories"]) == 2
    provenance = {k: v for k, v in loop.provenance.items() if k != "trajectory"}
    edited = Dataset(angles=loop.angles, column_names=loop.column_names, source="loop.csv",
                     provenance=provenance, structure=loop.structure)
    selected = np.zeros(len(loop.angles), dtype=bool)
    selected[[52, 60]] = True  # frames 3 and 11 of the second run
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(StructureError, match="no trajectory column"):
        export_selection_frames(edited, selected, out / "sel.pdb", out / "sel_medoid.pdb")
    assert list(out.iterdir()) == []


def test_a_refused_output_is_refused_before_the_selections_medoid(fitted, tmp_path,
                                                                   monkeypatch):
    """The outputs are checked first: a user's file in the way (the app then asks whether
    to write anyway, and tries again) costs no medoid (m² distances of the selection)."""
    from stpca_gui.files.output_folder import ForeignFilesError
    from stpca_gui.model import structures

    angles, _ = fitted
    n = len(angles)
    data = Dataset(angles=angles, column_names=("a", "b", "c"), source="frames.csv",
                   provenance={"frame": np.arange(n)})
    (tmp_path / "sel.pdb").write_text("a user's file\n")
    medoids = []
    monkeypatch.setattr(structures, "torus_medoid",
                        lambda values: medoids.append(len(values)) or 0)
    with pytest.raises(ForeignFilesError):
        structures.export_selection_frames(data, np.ones(n, dtype=bool), tmp_path / "sel.pdb",
                                           tmp_path / "sel_medoid.pdb")
    assert medoids == []
    assert (tmp_path / "sel.pdb").read_text() == "a user's file\n"
