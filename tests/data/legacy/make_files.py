"""Write the legacy model and session files of this folder (see README.md).

Run from the repository root with ``uv run python tests/data/legacy/make_files.py``. The files
committed here were written by stpca-gui at commit 3fdd8f4, before the core was split into
sub-packages (issue 21); the test ``tests/model/test_legacy_files.py`` checks that they still open.
Rerunning this script overwrites them with files of the current layout.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from stpca_gui.model import AppState, Dataset, FitParameters, run_analysis
from stpca_gui.model.session_file import save_session, session_from_state

HERE = Path(__file__).parent


def main() -> None:
    dataset = Dataset.from_demo("clusters-t3", random_state=0)
    parameters = FitParameters(n_curve_points=40)
    result = run_analysis(dataset, parameters)
    model = result.model
    model.save(HERE / "clusters_t3_model.stpca")

    state = AppState()
    state.set_dataset(dataset)
    state.set_result(result)
    state.selection.apply(np.arange(10), "add")
    save_session(session_from_state(state, parameters, {}), HERE / "clusters_t3_session.stpca")

    expected = {
        "angles": dataset.angles.tolist(),
        "radius": float(model.radius_),
        "scores": model.scores_.tolist(),
        "explained_variance_ratio": np.asarray(model.explained_variance_ratio_).tolist(),
        "transform_first_20": model.transform(dataset.angles[:20]).tolist(),
        "selected": list(range(10)),
    }
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main()
