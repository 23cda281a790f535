"""The main window: data in, fit in the background, linked views out.

The window can be shown before the heavy libraries are loaded (``MainWindow(deferred=True)``,
what ``stpca-gui`` does): this module imports Qt only, and the rest is prepared in stages
after the window's first paint. *numerics* loads the numerical core and builds the panels,
menus and the fit controller; *plots* builds the matplotlib views; *torus* and *sphere* the
pyvista/VTK views, one at a time (the first render of each is a stall of its own). Each
stage's modules are imported in a background thread while the window stays
responsive, then its widgets are built in the GUI thread. A view not built yet shows a
placeholder saying so. Dialogs import what they need when opened.

Hence every import of more than Qt, the standard library and light modules is in the
method that needs it: a stage's in its ``_prepare_*`` method, the rest where they are used
after the *numerics* stage. The window's parts (opening data, the fits' status line,
sessions, exports, structures, script export, the tour, the live fit) see it only as a
:class:`~stpca_gui.gui.window_services.WindowServices`; the menus are a table
(:meth:`MainWindow._build_menus`, :mod:`~stpca_gui.gui.menus`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QStandardPaths, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from .. import __version__
from ..plotting.text import cut_at_clause, one_line
from .app_icon import application_icon
from .menus import SEPARATOR, add_menus, menu_action, toggle_action
from .proportional_splitter import ProportionalSplitter
from .startup import (
    COMPILING_NOTE,
    STAGE_MODULES,
    STAGES,
    BackgroundCheck,
    ModuleLoader,
    call_after_first_paint,
    kernels_cached,
)
from .views.slot import ViewSlot
from .window_services import WindowMessages

if TYPE_CHECKING:
    from ..model import AnalysisResult, Dataset
    from .compare_dialog import CompareMethodsDialog
    from .export_actions import ExportActions
    from .fit_status import FitStatus
    from .lagged_embedding import LaggedEmbeddingAction
    from .open_actions import OpenActions
    from .script_export_action import ScriptExportAction
    from .session_actions import SessionActions
    from .structure_dialog import StructureActions
    from .structure_exports import StructureExports
    from .tour import GuidedTour
    from .uniformity_dialog import UniformityDialog
    from .views.base import ViewFrame
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
#: The result table's share of the height the two share (the charts have the rest).
RESULT_SHARE = 0.42
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
        #: The window's parts (built with the numerics).
        self.sessions: SessionActions | None = None
        self.opening: OpenActions | None = None
        self.fit_status: FitStatus | None = None
        self.exports: ExportActions | None = None
        self.structures: StructureActions | None = None
        self.structure_exports: StructureExports | None = None
        self.script_export: ScriptExportAction | None = None
        self.lagged: LaggedEmbeddingAction | None = None
        #: The running guided tour, if any, and Help → Guided Tour.
        self.tour: GuidedTour | None = None
        self.tour_action: QAction | None = None
        self.views: dict[str, ViewFrame] = {}
        #: Said while the first fit after an install compiles the kernels (else ""); known
        #: once numba's cache has been looked at, off the GUI thread.
        self.compiling_note = ""
        scene, plot = PREPARING_SCENE, PREPARING_PLOT
        self.slots: dict[str, ViewSlot] = {
            "torus": ViewSlot(scene), "sphere": ViewSlot(scene),
            "scores": ViewSlot(plot), "free_energy": ViewSlot(plot), "time": ViewSlot(plot),
            "histogram": ViewSlot(plot), "variance": ViewSlot(plot),
            "diagnostics": ViewSlot(plot), "contributions": ViewSlot(plot),
        }
        self._kernel_check = BackgroundCheck(self)
        self._kernel_check.done.connect(self._note_kernel_cache)
        self._kernel_check.run(kernels_cached)
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

    def _note_kernel_cache(self, cached: bool) -> None:
        """Add the compiling note to the views still preparing, on a first launch."""
        if cached or self._closed:
            return
        self.compiling_note = COMPILING_NOTE
        for slot in self.slots.values():
            if slot.placeholder is not None:
                slot.placeholder.setText(f"{slot.placeholder.text()}\n({COMPILING_NOTE})")

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
        from .export_actions import ExportActions
        from .fit_controller import FitController
        from .fit_status import FitStatus
        from .lagged_embedding import LaggedEmbeddingAction
        from .live_fit import connect_live_fit
        from .open_actions import OpenActions
        from .panels import ParametersPanel, SummaryPanel
        from .script_export_action import ScriptExportAction
        from .session_actions import SessionActions
        from .structure_dialog import StructureActions
        from .structure_exports import StructureExports

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
        self.sessions = SessionActions(self)
        self.fit_status = FitStatus(self)
        self.exports = ExportActions(self, lambda: self.sessions.path)
        self.structures = StructureActions(self)
        self.opening = OpenActions(self, self.sessions, self.structures, self.recent)
        self.structure_exports = StructureExports(self)
        self.script_export = ScriptExportAction(self)
        self.lagged = LaggedEmbeddingAction(self)
        self._build_menus()
        self._build_toolbar()

        self.parameters.fit_requested.connect(self.fit)
        self.controller.succeeded.connect(self._on_result)
        self.controller.failed.connect(self._on_failure)
        self.controller.cancelled.connect(self._on_cancelled)
        connect_live_fit(self)
        self.state.selection.changed.connect(self._on_selection)
        self.state.selection.active_group_changed.connect(self._on_selection)
        self.state.dataset_changed.connect(self._on_dataset)
        if self.stage_label.text() == PREPARING:
            self.stage_label.setText("Ready")

    def _prepare_plots(self) -> None:
        from .views.diagnostics_view import DiagnosticsView
        from .views.free_energy_view import FreeEnergyView
        from .views.mpl_views import ContributionsView, HistogramView, ScoresView, VarianceView
        from .views.time_view import TimeView

        self.scores_view = ScoresView(self.state)
        self.free_energy_view = FreeEnergyView(self.state)
        self.time_view = TimeView(self.state)
        self.histogram_view = HistogramView(self.state)
        self.variance_view = VarianceView(self.state)
        self.diagnostics_view = DiagnosticsView(self.state)
        self.contributions_view = ContributionsView(self.state)
        self._place_views({"scores": self.scores_view, "free_energy": self.free_energy_view,
                           "time": self.time_view, "histogram": self.histogram_view,
                           "variance": self.variance_view,
                           "diagnostics": self.diagnostics_view,
                           "contributions": self.contributions_view})
        self.structure_exports.attach(self.scores_view, self.variance_view)

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
        # Variance explained and the fit diagnostics share the result column, one at a time.
        self.result_tabs = QTabWidget()
        self.result_tabs.addTab(self.slots["variance"], "Variance")
        self.result_tabs.addTab(self.slots["contributions"], "Angles")
        self.result_tabs.addTab(self.slots["diagnostics"], "Diagnostics")
        # The result table and the charts split what the parameters leave, RESULT_SHARE
        # of it for the table until the user moves the handle between them.
        self.result_split = ProportionalSplitter(Qt.Orientation.Vertical, RESULT_SHARE)
        self.result_split.addWidget(self.summary_slot)
        self.result_split.addWidget(self.result_tabs)
        self.result_split.setChildrenCollapsible(False)
        self.result_split.setStretchFactor(0, 1)
        self.result_split.setStretchFactor(1, 1)
        self.result_split.setSizePolicy(QSizePolicy.Policy.Preferred,
                                        QSizePolicy.Policy.Ignored)
        side_layout.addWidget(self.result_split, 1)
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
        # The views of two components share a place, one at a time.
        self.scores_tabs = QTabWidget()
        self.scores_tabs.addTab(self.slots["scores"], "Scores")
        self.scores_tabs.addTab(self.slots["free_energy"], "Free energy")
        self.scores_tabs.addTab(self.slots["time"], "Time")
        bottom.addWidget(self.scores_tabs)
        bottom.addWidget(self.slots["histogram"])
        # Both rows split evenly, in line: left to their size hints, a launch (whose views
        # arrive after the first layout) gave the tabs 612 pixels and the PNS1 distribution
        # 360 at 1280 × 800, its legend over half the plot.
        for row in (top, bottom):
            row.setSizes([600, 600])
        views = QSplitter(Qt.Orientation.Vertical)
        views.addWidget(top)
        views.addWidget(bottom)
        views.setSizes([520, 380])
        outer = QSplitter(Qt.Orientation.Horizontal)
        outer.addWidget(side)
        outer.addWidget(views)
        outer.setStretchFactor(1, 1)
        self.setCentralWidget(outer)

    def _build_menus(self) -> None:
        self.fit_action = menu_action(self, "&Fit", self.fit, shortcut="Ctrl+R")
        self.paper_antimodes_action = toggle_action(
            self, "Show the &paper rule's antimodes", self.state.set_show_paper_antimodes,
            tip="Add the antimodes of every mode of the plug-in KDE (the paper's rule, "
                "untested) to the PNS1 histogram, dotted, beside the tested ones")
        # Help → Guided Tour, enabled while there are data. (The tour's module loads when
        # the tour opens.)
        self.tour_action = menu_action(self, "Guided &Tour", self.open_tour, enabled=False,
                                       tip="Walk through ST-PCA step by step on the data shown")
        self.state.dataset_changed.connect(
            lambda dataset: self.tour_action.setEnabled(dataset is not None))
        sessions, selection, opening = self.sessions, self.state.selection, self.opening
        add_menus(self.menuBar(), [
            ("&File", [
                opening.open_action, self.structures.open_action, sessions.open_action,
                sessions.save_action, sessions.save_as_action, opening.recent_menu, SEPARATOR,
                self.exports.figure_menu, self.exports.results_action,
                self.structures.export_action, self.structure_exports.selection_action,
                self.script_export.action, SEPARATOR,
                menu_action(self, "&Quit", self.close, shortcut=QKeySequence.StandardKey.Quit),
            ]),
            ("D&ata", [self.lagged.action]),
            ("&Demos", opening.demo_actions),
            ("&Analysis", [
                self.fit_action, self.fit_status.cancel_action, SEPARATOR,
                menu_action(self, "Compare &methods…", self.compare_methods),
                menu_action(self, "&Uniformity tests…", self.uniformity_tests), SEPARATOR,
                self.paper_antimodes_action,
            ]),
            ("&Selection", [
                menu_action(self, "&Undo", selection.undo,
                            shortcut=QKeySequence.StandardKey.Undo),
                menu_action(self, "&Redo", selection.redo,
                            shortcut=QKeySequence.StandardKey.Redo),
                menu_action(self, "&Clear", selection.clear, shortcut="Ctrl+Shift+A"),
                ("Active &group", [menu_action(self, f"Group {k}", partial(self._set_group, k),
                                               shortcut=f"Ctrl+{k}") for k in range(1, 5)]),
            ]),
            ("&Help", [self.tour_action, menu_action(self, "&About", self._about)]),
        ])

    def _build_toolbar(self) -> None:
        from ..model import COLOR_MODES

        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("main-toolbar")
        toolbar.addAction(self.opening.open_action)
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
        # What the window is doing or last did; the fits' progress bar and Cancel join it
        # with the numerics (gui/fit_status.py).
        self.stage_label = QLabel("Ready")
        self.statusBar().addWidget(self.stage_label, 1)

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
        """Show a demo and fit it (:meth:`.OpenActions.load_demo`)."""
        self.opening.load_demo(name)

    def open_path(self, path: Path, *, interactive: bool = True) -> bool:
        """Open a table or a session (:meth:`.OpenActions.open_path`); whether data were
        loaded."""
        return self.opening.open_path(path, interactive=interactive)

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
        self.opening.remember_file(path)

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
        from ..model.angle_labels import describe_columns

        dataset = self.state.dataset
        if dataset is None:
            self.dataset_label.setText("No data loaded")
            return
        labels = (f", labels: {len(dataset.label_names())} groups" if dataset.has_labels
                  else "")
        # Text from the data: on one line each, cut when very long, and never markup. (Not
        # torus_scene's short_label: that module loads pyvista and VTK.)
        described = dataset.description or dataset.source
        # About two lines of the side column in bold: a structure's title naming its files
        # took four at 1280 × 800 and pushed the parameters' last rows out of view.
        title = escape(cut_at_clause(described, 110))
        self.dataset_label.setToolTip(escape(one_line(described, 2000)))
        # A summary at high d (issue 32): every name of 426 torsions would push the
        # parameter panel out of the window.
        columns = escape(one_line(describe_columns(dataset.column_names), 200))
        self.dataset_label.setText(
            f"<b>{title}</b><br>n = {dataset.n_samples}, d = {dataset.n_angles} ({columns})"
            f"{labels}")
        has_labels = dataset.has_labels
        self.color_combo.setCurrentIndex(0 if has_labels else 1)
        self.parameters.show_fit_cost(dataset.n_samples, dataset.n_angles)

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
        # The first fit after an install compiles the kernels before its first progress.
        self.stage_label.setText(f"Starting… ({self.compiling_note})" if self.compiling_note
                                 else "Starting…")
        self.compiling_note = ""
        self.controller.start(dataset, params)

    def cancel_fit(self) -> None:
        self.controller.cancel()

    def _on_result(self, result: AnalysisResult) -> None:
        if result.dataset is not self.state.dataset:
            return  # a result for data that is no longer shown
        self.state.set_result(result)
        self.fit_status.show_result(result)
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
    def export_window(self, path: Path) -> None:
        """Write the whole window to PNG or PDF
        (:meth:`~stpca_gui.gui.export_actions.ExportActions.export_window`)."""
        self.exports.export_window(path)

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
