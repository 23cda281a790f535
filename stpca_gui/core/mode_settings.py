"""The settings of PNS1's mode clusters, declared once: the rule, the mode test's level and
the density its bootstrap resamples.

:class:`ModeClusterSettings` declares them with :func:`~stpca_gui.core._base.params.parameter`,
as the estimators declare theirs, and everything else is derived from that declaration: the
application's settings (``model.FitParameters``), the command line's ``--cluster-rule``,
``--mode-alpha`` and ``--mode-null``, the Parameters panel's editors, session files and
exported scripts. The
mode test's level is not PNS's: ``ScaledTorusPCA.alpha`` is the level of the tests that
choose the nested spheres ("PNS test level"); ``mode_alpha`` that of the torus uniformity
test and of Silverman's test for the number of PNS1's modes ("mode test level").
"""

from __future__ import annotations

from numpy.typing import ArrayLike

from ._base.params import Estimator, Interval, Options, estimator, parameter
from ._base.progress import CancelCheck
from .circstats.mode_clustering import MODE_RULES, ModeClustering
from .circstats.mode_test import DEFAULT_NULL, NULLS
from .circstats.silverman import DEFAULT_ALPHA
from .clusters import model_mode_clusters

__all__ = ["ModeClusterSettings"]


@estimator
class ModeClusterSettings(Estimator):
    """How PNS1 is clustered by the modes of its density (paper §5; ``docs/mode_test.md``).

    :meth:`clusters` applies them to a fitted
    :class:`~stpca_gui.core.stpca.ScaledTorusPCA`.
    """

    cluster_rule: str = parameter(
        "tested", Options(MODE_RULES, labels=("tested modes", "every mode (paper)")),
        doc="The rule of PNS1's clusters: \"tested\" keeps the modes a test supports, "
            "\"paper\" every mode of the plug-in kernel density estimate (untested, as in the "
            "paper). With \"tested\" the data are first tested for uniformity on the torus, "
            "then Silverman's critical-bandwidth test gives the number of modes.",
        label="Cluster rule", advanced=True)
    mode_alpha: float = parameter(
        DEFAULT_ALPHA, Interval(float, 0.0, 1.0, closed="neither"),
        doc="Significance level of the mode test (\"tested\" rule): of the uniformity test "
            "on the torus and of every step of the test for the number of PNS1's modes. Not "
            "the PNS test level, which chooses the nested spheres.",
        label="Mode test level", advanced=True)
    mode_null: str = parameter(
        DEFAULT_NULL, Options(NULLS, labels=("critical-bandwidth KDE", "von Mises mixture")),
        doc="What the mode test's bootstrap resamples (\"tested\" rule): \"critical_kde\", "
            "the kernel density estimate at the critical bandwidth (Silverman's; valid but "
            "conservative: a false extra cluster in fewer samples than the level says), or "
            "\"mixture\", a von Mises mixture fitted to PNS1 and projected onto the "
            "hypothesis (false extra clusters near the level, which can be clusters of one "
            "point, and more power at small n). docs/mode_test.md has the measurements.",
        label="Mode test null", advanced=True)

    def clusters(self, model: object, *, labels: ArrayLike | None = None,
                 stability: bool = True, paper: ModeClustering | None = None,
                 check: CancelCheck | None = None) -> ModeClustering:
        """The mode clusters of a fitted ScaledTorusPCA's PNS1 with these settings.

        ``labels``: true labels to compare with; ``stability``: each tested cluster's
        bootstrap stability; ``paper``: the paper rule's clusters of the same fit when the
        caller has them (returned as they are by the paper rule); ``check``: called now and
        then, may raise to cancel.
        """
        self._validate_params()
        if self.cluster_rule == "paper" and paper is not None:
            return paper
        return model_mode_clusters(model, method=self.cluster_rule, alpha=self.mode_alpha,
                                   null=self.mode_null, labels=labels, stability=stability,
                                   paper=paper, check=check)
