"""The main window: data in, fit in the background, linked views out.

The window can be shown before the heavy libraries are loaded (``MainWindow(deferred=True)``,
what ``stpca-gui`` does): this module imports Qt only, and the rest is prepared in stages
after the window's first paint. *numerics* loads the numerical core and builds the panels,
menus and the fit controller; *plots* builds the matplotlib views; *torus* and *sphere* the
pyvista/VTK views, one at a time (the first render of each is a stall of its own). Each
stage's modules are imported in a background thread while the window stays
responsive, then its widgets are built in the GUI thread. A view not built yet shows a
placeholder saying so. Dialogs import what they need when opened.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QRect, QStandardPaths, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QImage, QKeySequence, QPainter, QPdfWriter
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from .. import __version__
from .app_icon import application_icon
from .startup import STAGE_MODULES, STAGES, ModuleLoader, call_after_first_paint
from .views.slot import ViewSlot
from .window_services import WindowMessages

if TYPE_CHECKING:
    from ..core import ProgressEvent
    from ..model import AnalysisResult, Dataset
    from .compare_dialog import CompareMethodsDialog
    from .session_actions import SessionActions
    from .tour import GuidedTour
    from .uniformity_dialog import UniformityDialog
    from .views.base import ViewFrame

FIGURE_FILTERS = "PNG image (*.png);;SVG vector (*.svg);;PDF document (*.pdf)"
WINDOW_FILTERS = "PNG image (*.png);;PDF document (*.pdf)"
#: What a view's place says until the view is built.
PREPARING_PLOT = "Preparing the plot…"
PREPARING_SCENE = "Preparing the 3-D view…"
PREPARING = "Preparing…"


def default_recent_path() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppConfigLocation)
    return Path(base or Path.home() / ".config" / "stpca-gui") / "recent.json"


#: The least heights of the result table's and the charts' places in the side column.
RESULT_MIN_HEIGHT = 100
CHART_MIN_HEIGHT = 170
#: Longest time closing the window waits for its background tasks to stop, in ms.
CLOSE_WAIT_MS = 500


class MainWindow(QMainWindow):
    """stpca-gui's main window.

    Parameters
    ----------
    recent_path : Path, optional
        File of the recent-files list (default: in the user's configuration folder).
    deferred : bool, default False
        Prepare the window in stages after its first paint (a fast start) instead of
        completely here. Until the *numerics* stage is done there is no state, controller,
        menu or parameter panel; :meth:`when_prepared` acts after a stage.
    """

    #: Emitted after a result has been drawn in every view (tests, screenshots).
    result_shown = Signal()
    #: Emitted when a fit ends without a result ("failed" or "cancelled").
    fit_ended = Signal(str)
    #: Emitted with a stage's name (one of :data:`STAGES`) when it is done.
    stage_done = Signal(str)
    #: Whether closing or replacing unsaved work asks first (the app sets it; tests and
    #: screenshots never wait on that question).
    asks_to_save = False

    def __init__(self, recent_path: Path | None = None, *, deferred: bool = False) -> None:
        super().__init__()
        self.setWindowTitle("stpca-gui — Scaled Torus PCA[*]")
        self.setWindowIcon(application_icon())
        self.setAcceptDrops(True)
        self._recent_path = recent_path
        #: File → Open/Save Session and the title's modified marker (built with the numerics).
        self.sessions: SessionActions | None = None
        #: The running guided tour, if any, and Help → Guided Tour.
        self.tour: GuidedTour | None = None
        self.tour_action: QAction | None = None
        self.views: dict[str, ViewFrame] = {}
        self.slots: dict[str, ViewSlot] = {
            "torus": ViewSlot(PREPARING_SCENE), "sphere": ViewSlot(PREPARING_SCENE),
            "scores": ViewSlot(PREPARING_PLOT), "histogram": ViewSlot(PREPARING_PLOT),
            "variance": ViewSlot(PREPARING_PLOT), "diagnostics": ViewSlot(PREPARING_PLOT),
        }
        self._done_stages: list[str] = []
        self._loader: ModuleLoader | None = None
        self._closed = False
        self._waiting: dict[str, list[Callable[[], None]]] = {stage: [] for stage in STAGES}
        self._build_layout()
        self._build_status_bar()
        self.messages = WindowMessages(self, self.stage_label)
        if deferred:
            self.stage_label.setText(PREPARING)
            self._loader = ModuleLoader(self)
            self._loader.loaded.connect(self._run_next_stage)
            call_after_first_paint(self, self._load_next_stage)
        else:
            for _ in STAGES:
                self._run_next_stage()

    # ------------------------------------------------------------------ stages
    def is_prepared(self, stage: str) -> bool:
        """Whether ``stage`` (one of :data:`STAGES`) is done."""
        return stage in self._done_stages

    def when_prepared(self, stage: str, callback: Callable[[], None]) -> None:
        """Call ``callback`` once ``stage`` is done: now if it is, else right after it."""
        if self.is_prepared(stage):
            callback()
        else:
            self._waiting[stage].append(callback)

    def when_ready(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the window is fully built: now if it is, else right after."""
        self.when_prepared(STAGES[-1], callback)

    def widget(self) -> MainWindow:
        """The window itself (its parts' parent for dialogs and dock panels)."""
        return self

    @property
    def last_message_box(self) -> QMessageBox | None:
        """The newest message box the window showed."""
        return self.messages.last_box

    def _load_next_stage(self) -> None:
        """Import the next stage's modules off the GUI thread; build it when they are in."""
        self._loader.load(STAGE_MODULES[STAGES[len(self._done_stages)]])

    def _run_next_stage(self) -> None:
        if self._closed:
            return  # closed while loading: nothing more to show
        stage = STAGES[len(self._done_stages)]
        getattr(self, f"_prepare_{stage}")()
        self._done_stages.append(stage)
        self.stage_done.emit(stage)
        waiting, self._waiting[stage] = self._waiting[stage], []
        for callback in waiting:
            callback()
        if self._loader is not None and len(self._done_stages) < len(STAGES):
            self._load_next_stage()

    def _prepare_numerics(self) -> None:
        from ..core import loaded_libraries
        from ..model import AppState, RecentFiles
        from .fit_controller import FitController
        from .live_fit import connect_live_fit
        from .panels import ParametersPanel, SummaryPanel

        # The core was imported off the GUI thread; its one search of the loaded BLAS
        # libraries happens here, in the GUI thread, before any fit (see core/_base/threads.py).
        loaded_libraries()
        self.state = AppState()
        self.controller = FitController(self)
        self.recent = RecentFiles(self._recent_path or default_recent_path())
        self.parameters = ParametersPanel()
        self.summary = SummaryPanel(self.state)
        self.parameters_slot.fill(self.parameters)
        self.summary_slot.fill(self.summary)
        from .session_actions import SessionActions

        self.sessions = SessionActions(self)
        self._build_menus()

        self.parameters.fit_requested.connect(self.fit)
        self.controller.progress.connect(self._on_progress)
        self.controller.succeeded.connect(self._on_result)
        self.controller.failed.connect(self._on_failure)
        self.controller.cancelled.connect(self._on_cancelled)
        self.controller.busy_changed.connect(self._on_busy)
        connect_live_fit(self)
        self.state.selection.changed.connect(self._on_selection)
        self.state.selection.active_group_changed.connect(self._on_selection)
        self.state.dataset_changed.connect(self._on_dataset)
        if self.stage_label.text() == PREPARING:
            self.stage_label.setText("Ready")

    def _prepare_plots(self) -> None:
        from .views.diagnostics_view import DiagnosticsView
        from .views.mpl_views import HistogramView, ScoresView, VarianceView

        self.scores_view = ScoresView(self.state)
        self.histogram_view = HistogramView(self.state)
        self.variance_view = VarianceView(self.state)
        self.diagnostics_view = DiagnosticsView(self.state)
        self._place_views({"scores": self.scores_view, "histogram": self.histogram_view,
                           "variance": self.variance_view,
                           "diagnostics": self.diagnostics_view})

    def _prepare_torus(self) -> None:
        from .views.vtk_views import TorusView

        self.torus_view = TorusView(self.state)
        self._place_views({"torus": self.torus_view})

    def _prepare_sphere(self) -> None:
        from .views.vtk_views import SphereView

        self.sphere_view = SphereView(self.state)
        self._place_views({"sphere": self.sphere_view})

    def _place_views(self, views: dict[str, ViewFrame]) -> None:
        for key, view in views.items():
            self.slots[key].fill(view)
            self.views[key] = view
            if self.state.dataset is not None:
                view.show_state()  # built after the data arrived: draw what is there

    # ------------------------------------------------------------------ layout
    def _build_layout(self) -> None:
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(4, 4, 4, 4)
        self.dataset_label = QLabel("No data loaded")
        self.dataset_label.setWordWrap(True)
        side_layout.addWidget(self.dataset_label)
        self.parameters_slot = ViewSlot("Preparing the parameters…")
        self.summary_slot = ViewSlot("")
        side_layout.addWidget(self.parameters_slot)
        side_layout.addWidget(self.summary_slot, 1)
        # Variance explained and the fit diagnostics share the result column, one at a time.
        self.result_tabs = QTabWidget()
        self.result_tabs.addTab(self.slots["variance"], "Variance")
        self.result_tabs.addTab(self.slots["diagnostics"], "Diagnostics")
        side_layout.addWidget(self.result_tabs, 1)
        # The result column takes the height the parameters leave (its size hints, a
        # table's and a figure's, would otherwise squeeze open More settings into scrolling
        # on a tall screen), and keeps a few rows and a chart's height.
        for widget, least in ((self.summary_slot, RESULT_MIN_HEIGHT),
                              (self.result_tabs, CHART_MIN_HEIGHT)):
            widget.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored)
            widget.setMinimumHeight(least)
        side.setMinimumWidth(300)
        side.setMaximumWidth(420)

        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(self.slots["torus"])
        top.addWidget(self.slots["sphere"])
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(self.slots["scores"])
        bottom.addWidget(self.slots["histogram"])
        views = QSplitter(Qt.Orientation.Vertical)
        views.addWidget(top)
        views.addWidget(bottom)
        views.setSizes([520, 380])
        outer = QSplitter(Qt.Orientation.Horizontal)
        outer.addWidget(side)
        outer.addWidget(views)
        outer.setStretchFactor(1, 1)
        self.setCentralWidget(outer)

    def _fill_export_menu(self) -> None:
        """One entry per view built so far, and the whole window."""
        self.export_menu.clear()
        for key, view in self.views.items():
            self.export_menu.addAction(QAction(
                f"{view.title_text}…", self,
                triggered=lambda _=False, k=key: self.export_view_dialog(k)))
        self.export_menu.addSeparator()
        self.export_menu.addAction(QAction("Whole window…", self,
                                           triggered=self.export_window_dialog))

    def _build_menus(self) -> None:
        from ..model import COLOR_MODES
        from ..model.demos import list_demos

        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self.open_action = QAction("&Open…", self, shortcut=QKeySequence.StandardKey.Open,
                                   triggered=self.open_file_dialog)
        file_menu.addAction(self.open_action)
        from .structure_dialog import StructureActions

        self.structures = StructureActions(self)
        self.structures.add_to(file_menu)
        self.sessions.add_menu_actions(file_menu)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self._refresh_recent_menu()
        file_menu.addSeparator()
        self.export_menu = file_menu.addMenu("Export &Figure")
        # Filled when opened, from the views built by then.
        self.export_menu.aboutToShow.connect(self._fill_export_menu)
        file_menu.addAction(QAction("Export &Results…", self, shortcut="Ctrl+E",
                                    triggered=self.export_results_dialog))
        file_menu.addAction(self.structures.export_action)
        from .script_export_action import ScriptExportAction

        self.script_export = ScriptExportAction(self)
        file_menu.addAction(self.script_export.action)
        file_menu.addSeparator()
        file_menu.addAction(QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit,
                                    triggered=self.close))

        data_menu = bar.addMenu("D&ata")
        data_menu.addAction(QAction("&Lagged embedding…", self,
                                    triggered=self.lagged_embedding_dialog))
        demo_menu = bar.addMenu("&Demos")
        for name, description in list_demos():
            demo_menu.addAction(QAction(f"{name} — {description}", self,
                                        triggered=lambda _=False, n=name: self.load_demo(n)))

        analysis = bar.addMenu("&Analysis")
        self.fit_action = QAction("&Fit", self, shortcut="Ctrl+R", triggered=self.fit)
        self.cancel_action = QAction("&Cancel fit", self, shortcut="Esc", triggered=self.cancel_fit,
                                     enabled=False)
        analysis.addAction(self.fit_action)
        analysis.addAction(self.cancel_action)
        analysis.addSeparator()
        analysis.addAction(QAction("Compare &methods…", self, triggered=self.compare_methods))
        analysis.addAction(QAction("&Uniformity tests…", self, triggered=self.uniformity_tests))
        analysis.addSeparator()
        self.paper_antimodes_action = QAction(
            "Show the &paper rule's antimodes", self, checkable=True,
            toolTip="Add the antimodes of every mode of the plug-in KDE (the paper's rule, "
                    "untested) to the PNS1 histogram, dotted, beside the tested ones",
            toggled=self.state.set_show_paper_antimodes)
        analysis.addAction(self.paper_antimodes_action)

        selection = bar.addMenu("&Selection")
        selection.addAction(QAction("&Undo", self, shortcut=QKeySequence.StandardKey.Undo,
                                    triggered=lambda: self.state.selection.undo()))
        selection.addAction(QAction("&Redo", self, shortcut=QKeySequence.StandardKey.Redo,
                                    triggered=lambda: self.state.selection.redo()))
        selection.addAction(QAction("&Clear", self, shortcut="Ctrl+Shift+A",
                                    triggered=lambda: self.state.selection.clear()))
        group_menu = selection.addMenu("Active &group")
        for k in range(1, 5):
            group_menu.addAction(QAction(f"Group {k}", self, shortcut=f"Ctrl+{k}",
                                         triggered=lambda _=False, g=k: self._set_group(g)))

        help_menu = bar.addMenu("&Help")
        from .tour import add_tour_action

        self.tour_action = add_tour_action(self, help_menu)
        help_menu.addAction(QAction("&About", self, triggered=self._about))

        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("main-toolbar")
        toolbar.addAction(self.open_action)
        toolbar.addAction(self.fit_action)
        toolbar.addSeparator()
        toolbar.addWidget(QLabel(" Colour by "))
        self.color_combo = QComboBox()
        for key, text in COLOR_MODES.items():
            self.color_combo.addItem(text, key)
        self.color_combo.currentIndexChanged.connect(
            lambda: self.state.set_color_mode(self.color_combo.currentData()))
        toolbar.addWidget(self.color_combo)
        # Whoever sets the colour mode (a session, the tour), the toolbar shows it.
        self.state.color_mode_changed.connect(self._show_color_mode)
        self.selection_label = QLabel("")
        toolbar.addSeparator()
        toolbar.addWidget(self.selection_label)

    def _build_status_bar(self) -> None:
        status = self.statusBar()
        self.stage_label = QLabel("Ready")
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.cancel_fit)
        status.addWidget(self.stage_label, 1)
        status.addPermanentWidget(self.progress)
        status.addPermanentWidget(self.cancel_button)

    # ------------------------------------------------------------------ data
    def set_dataset(self, dataset: Dataset, *, fit: bool = True) -> None:
        """Show a dataset (clearing the old result) and start fitting it; unsaved work
        it replaces is asked about first."""
        if not self.sessions.may_replace_work():
            return
        self.state.set_dataset(dataset)
        self.sessions.started_new_work()
        if fit:
            self.fit()

    def load_demo(self, name: str) -> None:
        from ..model import Dataset
        from ..model.demos import DEMO_NAMES

        if name not in DEMO_NAMES:
            self.messages.error(f"Unknown demo {name!r}", f"Demos: {', '.join(DEMO_NAMES)}")
            return
        self.set_dataset(Dataset.from_demo(name, random_state=0))

    def open_file_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open angle table", str(Path.home()),
            "Tables and sessions (*.csv *.tsv *.txt *.dat *.stpca);;All files (*)")
        if path:
            self.open_path(Path(path))

    def open_path(self, path: Path, *, interactive: bool = True) -> bool:
        """Open a table: through the import dialog, or with its suggestions when not
        interactive (command line). Returns whether a dataset was loaded."""
        from ..io import TableError
        from ..model.table_import import import_with_suggestions
        from .import_dialog import ImportDialog
        from .session_actions import looks_like_stpca_file

        if looks_like_stpca_file(Path(path)):
            return self.sessions.open_session(Path(path))
        if interactive:
            try:
                dialog = ImportDialog(path, self)
            except (TableError, OSError, ValueError) as exc:
                self.messages.error("Cannot open the file", str(exc))
                return False
            if dialog.exec() != ImportDialog.DialogCode.Accepted:
                return False
            dataset = dialog.dataset()
            assert dataset is not None
        else:
            try:
                dataset = import_with_suggestions(path)
            except (OSError, ValueError) as exc:
                self.messages.error("Cannot read the file", str(exc))
                return False
        if not self.sessions.may_replace_work():
            return False
        self.remember_file(path)
        if dataset.dropped:
            lines = ", ".join(str(line) for line, _ in dataset.dropped[:20])
            more = "" if len(dataset.dropped) <= 20 else f" and {len(dataset.dropped) - 20} more"
            self.messages.info(f"{len(dataset.dropped)} row(s) were skipped",
                       f"Rows with missing or non-numeric angles were skipped: lines "
                       f"{lines}{more}.\n\nFirst reason: {dataset.dropped[0][1]}")
        self.set_dataset(dataset)
        return True

    def lagged_embedding_dialog(self) -> None:
        dataset = self.state.dataset
        if dataset is None:
            self.messages.info("No data", "Open a table of angles first.")
            return
        column = 0
        if dataset.n_angles > 1:
            name, ok = QInputDialog.getItem(self, "Lagged embedding", "Angle series:",
                                            list(dataset.column_names), 0, False)
            if not ok:
                return
            column = dataset.column_names.index(name)
        lags, ok = QInputDialog.getInt(self, "Lagged embedding", "Lags k (torus T^k):", 3, 1, 50)
        if ok:
            self.apply_lagged_embedding(column, lags)

    def apply_lagged_embedding(self, column: int, lags: int) -> None:
        """Replace the data by the lag-k embedding of one of its columns, and fit it."""
        try:
            lagged = self.state.dataset.lagged(column, lags)
        except ValueError as exc:
            self.messages.error("Cannot build the lagged embedding", str(exc))
            return
        self.set_dataset(lagged)

    def _show_color_mode(self, mode: str) -> None:
        index = self.color_combo.findData(mode)
        if index >= 0 and index != self.color_combo.currentIndex():
            self.color_combo.setCurrentIndex(index)

    def open_tour(self) -> GuidedTour | None:
        """Start the guided tour of the data shown (or bring the running one to the front);
        None, with a message, when there are no data."""
        from .tour import GuidedTour

        if self.tour is not None:
            self.tour.panel.raise_()
            return self.tour
        if self.state.dataset is None:
            self.messages.info("No data", "Open a table of angles or choose a demo first.")
            return None
        self.tour = GuidedTour(self)
        self.tour.closed.connect(self._on_tour_closed)
        self.tour.start()
        return self.tour

    def _on_tour_closed(self) -> None:
        self.tour = None

    def remember_file(self, path: Path) -> None:
        """Add ``path`` to *File → Open Recent* (OSError when the list cannot be written)."""
        self.recent.add(path)
        self._refresh_recent_menu()

    def _refresh_recent_menu(self) -> None:
        self.recent_menu.clear()
        paths = self.recent.paths()
        for path in paths:
            self.recent_menu.addAction(QAction(str(path), self,
                                               triggered=lambda _=False, p=path: self.open_path(p)))
        self.recent_menu.setEnabled(bool(paths))

    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            event.acceptProposedAction()
            # Open after the drop returns, so the drag source is not blocked by the dialog
            # (and not before the window can read tables).
            path = Path(urls[0].toLocalFile())
            QTimer.singleShot(0, lambda: self.when_prepared(
                "numerics", lambda: self.open_path(path)))

    def _on_dataset(self, *_: object) -> None:
        dataset = self.state.dataset
        if dataset is None:
            self.dataset_label.setText("No data loaded")
            return
        labels = (f", labels: {len(dataset.label_names())} groups" if dataset.has_labels
                  else "")
        # Text from the data: on one line each, cut when very long, and never markup.
        from html import escape

        # Not torus_scene's short_label: importing it loads pyvista and VTK in the GUI
        # thread before the 3-D views' stage.
        from ..plotting.text import one_line

        title = escape(one_line(dataset.description or dataset.source, 160))
        columns = escape(", ".join(one_line(name, 40) for name in dataset.column_names))
        self.dataset_label.setText(
            f"<b>{title}</b><br>n = {dataset.n_samples}, d = {dataset.n_angles} ({columns})"
            f"{labels}")
        has_labels = dataset.has_labels
        self.color_combo.setCurrentIndex(0 if has_labels else 1)

    # ------------------------------------------------------------------ fitting
    def fit(self) -> None:
        dataset = self.state.dataset
        if dataset is None:
            self.messages.info("Nothing to fit", "Open a table of angles or choose a demo first.")
            return
        try:
            params = self.parameters.parameters()
        except ValueError as exc:
            self.messages.error("Invalid parameters", str(exc))
            return
        self.stage_label.setText("Starting…")
        self.controller.start(dataset, params)

    def cancel_fit(self) -> None:
        self.controller.cancel()

    def _on_busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.cancel_action.setEnabled(busy)
        if busy:
            self.progress.setRange(0, 100)
            self.progress.setValue(0)

    def _on_progress(self, event: ProgressEvent) -> None:
        from .progress_labels import stage_label

        name = stage_label(event.stage)
        if event.stage == "smds":
            # No known end; the text moves with every iteration. (An animated busy bar
            # would repaint the window continuously.)
            self.progress.setRange(0, 100)
            self.progress.setValue(0)
            text = (f"{name}: iteration {event.iteration}, stress {event.stress:.5f}"
                    if event.iteration else f"{name}…")
        else:
            self.progress.setRange(0, 100)
            self.progress.setValue(round(100 * event.fraction))
            text = event.message or name
        self.stage_label.setText(text)

    def _on_result(self, result: AnalysisResult) -> None:
        if result.dataset is not self.state.dataset:
            return  # a result for data that is no longer shown
        self.state.set_result(result)
        seconds = sum(result.stage_seconds.values())
        landmarks = f" ({result.landmark_note})" if result.landmark_note else ""
        self.stage_label.setText(
            f"Fitted in {seconds:.2f} s{landmarks}: r = {result.radius:.3f}, stress "
            f"{result.stress:.4f}, PNS1 {100 * result.sphere_ratio[0]:.1f} % (sphere)")
        # Shown once every view is there to draw it.
        self.when_ready(self.result_shown.emit)

    def _on_failure(self, message: str, details: str) -> None:
        self.stage_label.setText("Fit failed")
        self.messages.error("The fit failed", message, details)
        self.fit_ended.emit("failed")

    def _on_cancelled(self) -> None:
        self.stage_label.setText("Fit cancelled")
        self.fit_ended.emit("cancelled")

    def compare_methods(self) -> CompareMethodsDialog | None:
        """Open the method comparison for the current result (non-modal)."""
        if self.state.result is None:
            self.messages.info("Nothing to compare", "Fit the data first.")
            return None
        from .compare_dialog import CompareMethodsDialog

        dialog = CompareMethodsDialog(self.state, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def uniformity_tests(self) -> UniformityDialog | None:
        """Open the uniformity tests for a score or an angle column (non-modal)."""
        if self.state.dataset is None:
            self.messages.info("No data", "Open a table of angles or choose a demo first.")
            return None
        from .uniformity_dialog import UniformityDialog

        dialog = UniformityDialog(self.state, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    # ------------------------------------------------------------------ selection
    def _set_group(self, group: int) -> None:
        self.state.selection.active_group = group

    def _on_selection(self, *_: object) -> None:
        selected = self.state.selection.n_selected
        group = self.state.selection.active_group
        self.selection_label.setText(f" {selected:,} selected · active group {group} ")

    # ------------------------------------------------------------------ export
    def export_view(self, key: str, path: Path, dpi: int = 150) -> None:
        """Write one view to PNG, SVG or PDF (by extension)."""
        self.views[key].export(Path(path), dpi)

    def window_image(self) -> QImage:
        """The whole window as an image, with the 3-D views' renderings painted in."""
        image = self.grab().toImage()
        painter = QPainter(image)
        for view in self.views.values():
            picture = view.render_image()
            if picture is None or not view.isVisible():
                continue
            # VTK draws outside Qt's backing store: paint its own rendering over the grab.
            content = view.plotter.interactor
            origin = content.mapTo(self, QPoint(0, 0))
            painter.drawImage(QRect(origin, content.size()), picture)
        painter.end()
        return image

    def export_window(self, path: Path) -> None:
        """Write the whole window to PNG or PDF."""
        from ..io import atomic_path

        path = Path(path)
        image = self.window_image()
        suffix = path.suffix.lower()
        if suffix not in (".png", ".pdf"):
            raise ValueError(f"the whole window can be saved as PNG or PDF, not {suffix!r}")
        with atomic_path(path) as tmp:
            if suffix == ".png":
                if not image.save(str(tmp), "PNG"):
                    raise OSError(f"cannot write {path}")
            else:
                writer = QPdfWriter(str(tmp))
                writer.setResolution(150)
                painter = QPainter(writer)
                target = painter.viewport()
                scaled = image.scaled(target.size(), Qt.AspectRatioMode.KeepAspectRatio,
                                      Qt.TransformationMode.SmoothTransformation)
                painter.drawImage(0, 0, scaled)
                painter.end()

    def export_results(self, folder: Path) -> list[Path]:
        """Scores, embedding, principal curve, selection (CSV) and summary (JSON); never
        over the data set's source file or the open session."""
        from ..files.clash import check_outputs
        from ..io import RESULT_FILES, write_results

        result = self.state.result
        if result is None:
            raise ValueError("there is no result to export yet")
        dataset = result.dataset
        inputs = [("the open session", self.sessions.path or "")]
        if not dataset.is_demo:
            inputs.append(("the data set's source file", dataset.source))
        check_outputs([(f"the result file {name}", Path(folder) / name)
                       for name in (*RESULT_FILES, "selection.csv")], inputs)
        groups = self.state.selection.groups
        lines = ["row,group"] + [f"{r},{g}" for r, g in zip(dataset.row_ids, groups, strict=True)]
        # One set: when any file cannot be written, none of the old ones is replaced.
        return write_results(result.model, folder, dataset.column_names, dataset.row_ids,
                             labels=dataset.labels, provenance=dataset.provenance,
                             clusters=result.mode_clusters,
                             extra_files={"selection.csv": "\n".join(lines) + "\n"},
                             source=str(dataset.source))

    def export_view_dialog(self, key: str) -> None:
        view = self.views[key]
        if not view.has_content():
            self.messages.info("Nothing to export", "This view has nothing drawn yet.")
            return
        path, chosen = QFileDialog.getSaveFileName(self, f"Export {view.title_text}",
                                                   f"{view.export_stem}.png", FIGURE_FILTERS)
        if not path:
            return
        path = self._with_suffix(path, chosen)
        dpi = 150
        if path.suffix.lower() == ".png":
            dpi, ok = QInputDialog.getInt(self, "Resolution", "Dots per inch:", 150, 50, 1200)
            if not ok:
                return
        self._guarded(lambda: self.export_view(key, path, dpi), f"Exported {path}")

    def export_window_dialog(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(self, "Export window", "stpca-window.png",
                                                   WINDOW_FILTERS)
        if path:
            path = self._with_suffix(path, chosen)
            self._guarded(lambda: self.export_window(path), f"Exported {path}")

    def export_results_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export results to folder")
        if folder:
            self._guarded(lambda: self.export_results(Path(folder)),
                          f"Results written to {folder}")

    @staticmethod
    def _with_suffix(path: str, chosen_filter: str) -> Path:
        out = Path(path)
        if not out.suffix:
            ext = chosen_filter.split("*")[-1].rstrip(")") if "*" in chosen_filter else ".png"
            out = out.with_suffix(ext)
        return out

    def _guarded(self, action, success: str) -> None:
        try:
            action()
        except (OSError, ValueError) as exc:
            self.messages.error("Export failed", str(exc))
        else:
            self.statusBar().showMessage(success, 5000)

    # ------------------------------------------------------------------ messages
    def _about(self) -> None:
        self.messages.info("About stpca-gui",
                   f"stpca-gui {__version__}\nScaled Torus PCA (Zoubouloglou, García-Portugués "
                   "& Marron) for angular data.")

    # ------------------------------------------------------------------ lifecycle
    def closeEvent(self, event) -> None:
        # Every background task stops: the fit's and those of the open dialogs. Every stage
        # of a fit has cancel points, so they normally end within the short wait (and report
        # "cancelled"); one still running after it is let go of and kept alive until it ends
        # (gui/tasks.py), and the application waits for it before quitting (gui/app.py):
        # the window closes at once and Qt never destroys a running thread.
        if self.is_prepared("numerics") and not self.sessions.may_replace_work():
            event.ignore()
            return
        self._closed = True
        if self.is_prepared("numerics"):
            from .tasks import TaskRunner, stop_tasks

            stop_tasks(self.findChildren(TaskRunner), CLOSE_WAIT_MS)
        for key in ("torus", "sphere"):
            if key in self.views:
                self.views[key].close_plotter()
        super().closeEvent(event)
