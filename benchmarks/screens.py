"""The documentation's images, made from the current code: re-run before a release.

    uv run python benchmarks/screens.py                      # every image (~5 min on 2 cores)
    uv run python benchmarks/screens.py structure-phi-psi    # the images whose name has this
    uv run python benchmarks/screens.py --out /tmp/shots     # elsewhere, to compare first
    uv run python benchmarks/screens.py --list

Without ``DISPLAY`` the script starts its own Xvfb (as the tests do). :data:`IMAGES` names
every image under docs/images/ and the README's screenshot with what makes it; a new image
is one entry there. tests/docs/test_doc_images.py checks that every image the pages show exists
and that :data:`IMAGES` and :data:`MADE_ELSEWHERE` know every file of docs/images/ and
docs/reproduction/. Look at every image after making it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from _common import REPO_ROOT, make_logger

log = make_logger("screens")

#: Seconds a fit may take before an image is given up.
FIT_TIMEOUT_S = 600
#: Milliseconds the views get to finish drawing before a window is grabbed.
SETTLE_MS = 500
GUI = Path(sys.executable).with_name("stpca-gui")


@dataclass(frozen=True)
class Image:
    """One documentation image: where it goes (from the repository's root), what makes it
    (a function writing the PNG it is given) and what it shows."""

    path: str
    make: Callable[[Path], None]
    shows: str


# ------------------------------------------------------------------------------ data
def noise_200k() -> object:
    """2·10⁵ points on T²: three von Mises clusters (20 % each) in 40 % uniform noise,
    imported from a CSV as a user would (docs/mode_test.md)."""
    from stpca_gui.model.table_import import ImportChoices, import_table

    rng = np.random.default_rng(0)
    n, parts, labels = 200_000, [], []
    for k, (a, b) in enumerate([(-2.0, 2.0), (0.5, -1.0), (2.2, 0.8)]):
        parts.append(np.column_stack([rng.vonmises(a, 6.0, n // 5),
                                      rng.vonmises(b, 6.0, n // 5)]))
        labels += [f"c{k + 1}"] * (n // 5)
    parts.append(rng.uniform(-np.pi, np.pi, (n - len(labels), 2)))
    labels += ["noise"] * (n - len(labels))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "noise200k.csv"
        with path.open("w") as table:
            table.write("phi,psi,group\n")
            for (a, b), label in zip(np.vstack(parts), labels, strict=True):
                table.write(f"{a:.6f},{b:.6f},{label}\n")
        return import_table(path, ImportChoices(columns=("phi", "psi"), label_column="group"))


def demo(name: str) -> Callable[[], object]:
    def load() -> object:
        from stpca_gui.model import Dataset

        return Dataset.from_demo(name)
    return load


def adk_pooled() -> object:
    """Backbone φ/ψ of MDAnalysisTests' AdK trajectory, every second frame, labelled by
    residue class: the data of docs/structures.md's walk-through."""
    from MDAnalysisTests.datafiles import DCD, PSF

    from stpca_gui.io.structures import DihedralSettings
    from stpca_gui.model.structures import read_structure_dataset

    return read_structure_dataset(PSF, [DCD], DihedralSettings(stride=2))


def tight_patch() -> np.ndarray:
    """A tight anisotropic Gaussian patch of T⁴ (n = 200, sd 0.3, 0.18, … rad): the flat
    patch of docs/diagnostics.md (as tests/core/test_diagnostics.py's ``tight_cluster``)."""
    from stpca_gui.core import wrap_angles

    rng = np.random.default_rng(1)
    return wrap_angles(rng.normal(size=(200, 4)) * 0.3 * 0.6 ** np.arange(4) + 1.0)


# ------------------------------------------------------------------------ makers
def window(load: Callable[[], object], *, colour: str | None = None, view: str | None = None,
           paper_antimodes: bool = False, size: tuple[int, int] = (1500, 950),
           dpi: int = 110, settings: dict[str, object] | None = None
           ) -> Callable[[Path], None]:
    """The app's window (or one of its views, at ``dpi``) on the data ``load`` gives, once
    fitted with the Parameters panel's ``settings`` (the app's defaults otherwise),
    coloured by ``colour``, with the paper rule's antimodes if asked."""
    def make(out: Path) -> None:
        from PySide6.QtCore import QEventLoop, QTimer
        from PySide6.QtWidgets import QApplication

        from stpca_gui.gui.main_window import MainWindow

        app = QApplication.instance() or QApplication(["stpca-gui"])
        main = MainWindow(recent_path=Path("/nonexistent/recent.json"))
        main.resize(*size)
        if settings:
            from stpca_gui.model import FitParameters

            main.parameters.set_parameters(FitParameters(**settings))
        main.show()
        loop = QEventLoop()
        main.result_shown.connect(loop.quit)
        main.fit_ended.connect(lambda outcome: loop.quit())
        QTimer.singleShot(FIT_TIMEOUT_S * 1000, loop.quit)
        main.set_dataset(load())
        loop.exec()
        if main.state.result is None:
            raise RuntimeError(f"{out.name}: the fit did not end with a result")
        if colour is not None:
            main.state.set_color_mode(colour)
        main.paper_antimodes_action.setChecked(paper_antimodes)
        settle = QEventLoop()
        QTimer.singleShot(SETTLE_MS, settle.quit)
        settle.exec()
        app.processEvents()
        if view is None:
            main.export_window(out)
        else:
            main.exports.export_view(view, out, dpi=dpi)
        main.close()
        app.processEvents()
    return make


_TOURS: dict[str, Path] = {}


def tour_step(demo_name: str, step: str, size: str = "1600x1000") -> Callable[[Path], None]:
    """One step of ``stpca-gui --demo NAME --tour-export DIR`` (``step-NN-<name>.png``);
    the tour is exported once per run."""
    def make(out: Path) -> None:
        if demo_name not in _TOURS:
            folder = Path(tempfile.mkdtemp(prefix="stpca-tour-"))
            subprocess.run([str(GUI), "--demo", demo_name, "--tour-export", str(folder),
                            "--size", size], check=True, timeout=FIT_TIMEOUT_S,
                           capture_output=True)
            _TOURS[demo_name] = folder
        shutil.copyfile(_TOURS[demo_name] / f"{step}.png", out)
    return make


def diagnostics(angles: Callable[[], np.ndarray], **fit: object) -> Callable[[Path], None]:
    """The three fit diagnostics side by side (Shepard diagram, stress over r, stress per
    point), each drawn as the app's diagnostics view draws it (350 × 300 px)."""
    def make(out: Path) -> None:
        import matplotlib.image
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        from stpca_gui.core import ScaledTorusPCA
        from stpca_gui.core.diagnostics import fit_diagnostics
        from stpca_gui.plotting.diagnostics import DIAGNOSTIC_PLOTS, draw_diagnostics

        found = fit_diagnostics(ScaledTorusPCA(random_state=0, **fit).fit(angles()))
        panels = []
        for which in DIAGNOSTIC_PLOTS:
            figure = Figure(figsize=(3.5, 3.0), dpi=100, layout="constrained")
            canvas = FigureCanvasAgg(figure)
            draw_diagnostics(figure, found, which)
            canvas.draw()
            panels.append(np.asarray(canvas.buffer_rgba()))
        matplotlib.image.imsave(out, np.hstack(panels))
    return make


def compact_png(path: Path) -> None:
    """Rewrite a PNG with a palette of at most 256 colours (no dithering): a third of the
    size of the screenshots' full colour, no visible change."""
    from PIL import Image as PillowImage

    image = PillowImage.open(path).convert("RGB")
    image.quantize(256, method=PillowImage.Quantize.MEDIANCUT,
                   dither=PillowImage.Dither.NONE).save(path, optimize=True)


# ------------------------------------------------------------------------ the images
IMAGES: tuple[Image, ...] = (
    Image("resources/screenshot.png", window(demo("clusters-t3"), size=(1400, 880)),
          "the window on the clusters-t3 demo (README, metainfo)"),
    Image("docs/images/structure-phi-psi.png", window(adk_pooled, colour="label"),
          "docs/structures.md: AdK's pooled φ/ψ by residue class, the PNS1 clusters"),
    Image("docs/images/diagnostics-clusters-t2.png",
          diagnostics(lambda: demo("clusters-t2")().angles),
          "docs/diagnostics.md: the three diagnostics of the clusters-t2 demo"),
    Image("docs/images/diagnostics-flat-patch.png", diagnostics(tight_patch, torus_variance=False),
          "docs/diagnostics.md: the three diagnostics of a flat patch"),
    Image("docs/images/mode_test_noise_200k.png", window(noise_200k, colour="cluster"),
          "docs/mode_test.md: 2·10⁵ points in background noise, by tested mode cluster"),
    Image("docs/images/mode_test_small_rna.png", window(demo("small-rna"), colour="cluster"),
          "docs/mode_test.md: the small RNA data by tested mode cluster"),
    Image("docs/images/mode_test_small_rna_labels.png", window(demo("small-rna"),
                                                               colour="label"),
          "docs/mode_test.md: the small RNA data by true cluster (legend I, II, V)"),
    Image("docs/images/mode_test_small_rna_histogram_paper.png",
          window(demo("small-rna"), colour="cluster", view="histogram", paper_antimodes=True),
          "docs/mode_test.md: the small RNA histogram with the paper rule's antimodes"),
    Image("docs/images/mode_test_mixture_lone_point.png",
          window(demo("clusters-t2"), colour="cluster", view="histogram",
                 settings={"mode_null": "mixture"}),
          "docs/mode_test.md: the clusters-t2 demo's PNS1 with the mixture null: a lone point "
          "becomes a fourth cluster"),
    Image("docs/images/tour-step-03-smds.png", tour_step("clusters-t3", "step-03-smds"),
          "docs/app.md: step 3 of the guided tour"),
    Image("docs/images/tour-step-06-curve.png", tour_step("clusters-t3", "step-06-curve"),
          "docs/app.md: step 6 of the guided tour"),
)

#: Images of the documentation made by a generator of their own, and that generator.
MADE_ELSEWHERE: dict[str, str] = {
    "docs/reproduction/rna_pns1.png": "stpca reproduce --out docs/reproduction",
    "docs/reproduction/sunspots_pns1.png": "stpca reproduce --out docs/reproduction",
    "docs/reproduction/sunspots_pns1_methods.png": "stpca reproduce --out docs/reproduction",
    "docs/reproduction/sunspots_scores.png": "stpca reproduce --out docs/reproduction",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="*", help="make only the images whose path has one of "
                                                "these in it")
    parser.add_argument("--out", type=Path, default=None,
                        help="write into this folder instead of the documentation's")
    parser.add_argument("--list", action="store_true", help="list the images and exit")
    args = parser.parse_args(argv)
    chosen = [image for image in IMAGES
              if not args.only or any(word in image.path for word in args.only)]
    if args.list:
        for image in IMAGES:
            print(f"{image.path}: {image.shows}")
        for path, command in MADE_ELSEWHERE.items():
            print(f"{path}: by `{command}`")
        return 0
    if not chosen:
        parser.error(f"no image matches {args.only}")
    from _gui_env import started_display

    display = started_display("screens")
    if display is None:
        return 1
    os.environ.setdefault("STPCA_HEAD_START", "0")  # every fit in the app's own process
    try:
        for image in chosen:
            out = REPO_ROOT / image.path if args.out is None else args.out / Path(image.path).name
            out.parent.mkdir(parents=True, exist_ok=True)
            log(f"{image.path} …")
            image.make(out)
            compact_png(out)
            log(f"wrote {out}")
    finally:
        for folder in _TOURS.values():
            shutil.rmtree(folder, ignore_errors=True)
        display.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
