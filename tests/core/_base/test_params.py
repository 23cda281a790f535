"""Estimator parameters: one declaration gives __init__, get/set_params, docs and validation."""

from __future__ import annotations

import inspect
import pickle
import re

import numpy as np
import pytest

from stpca_gui.core import (
    ModeClusterSettings,
    PrincipalNestedSpheres,
    ScaledTorusPCA,
    SphericalMDS,
    TorusPCA,
    make_demo,
)
from stpca_gui.core._base.params import Boolean, Interval, Options
from stpca_gui.model import FitParameters

ESTIMATORS = (ScaledTorusPCA, SphericalMDS, PrincipalNestedSpheres, TorusPCA)


@pytest.mark.parametrize(("constraint", "good", "bad"), [
    (Interval(int, 3, None), [3, 10**9, np.int64(4)], [2, 3.0, True, "4", None]),
    (Interval(float, 0, 1, "neither"), [0.5, 1e-300, 0.999], [0.0, 1, float("nan"), False]),
    (Interval(float, 0, None, "left"), [0.0, 7], [-1e-9, float("inf")]),
    (Options(("a", "b")), ["a", "b"], ["A", "c", None, 1]),
    (Options(("bic",), case_insensitive=True), ["bic", "BIC"], ["bi"]),
    (Boolean(), [True, np.bool_(False)], [0, 1, "True"]),
])
def test_constraints_accept_exactly_their_values(constraint, good, bad):
    assert all(constraint.accepts(v) for v in good)
    assert not any(constraint.accepts(v) for v in bad)


@pytest.mark.parametrize(("constraint", "text"), [
    (Interval(int, 3, None), "an integer >= 3"),
    (Interval(int, 1, 100_000), "an integer in [1, 100000]"),
    (Interval(float, 0, None, "neither"), "a positive number"),
    (Interval(float, 0, 1, "neither"), "a number in (0, 1)"),
    (Options(("x", "y")), "one of 'x', 'y'"),
])
def test_constraints_describe_themselves(constraint, text):
    assert constraint.describe() == text


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_signature_defaults_and_get_params_come_from_the_declarations(cls):
    specs = cls.parameter_specs()
    signature = inspect.signature(cls)
    assert [s.name for s in specs] == list(signature.parameters)
    assert all(signature.parameters[s.name].default == s.default for s in specs
               if not isinstance(s.default, np.ndarray))
    assert cls().get_params() == {s.name: s.default for s in specs}
    # The numpydoc section is written from the same table.
    for spec in specs:
        assert f"\n    {spec.name} : " in cls.__doc__


def test_composite_reuses_the_steps_declarations():
    mine = {s.name: s for s in ScaledTorusPCA.parameter_specs()}
    assert mine["pns_mode"].constraints == PrincipalNestedSpheres.parameter_spec("mode").constraints
    assert mine["smds_init"].constraints == SphericalMDS.parameter_spec("init").constraints
    for name in ("radius", "n_init", "optimizer", "tol", "max_iter"):
        assert mine[name].constraints == SphericalMDS.parameter_spec(name).constraints
        assert mine[name].default == SphericalMDS.parameter_spec(name).default


def test_set_params_round_trip_repr_and_pickle():
    model = ScaledTorusPCA().set_params(radius=2.0, pns_mode="small", n_init=2)
    assert repr(model) == "ScaledTorusPCA(radius=2.0, pns_mode='small', n_init=2)"
    clone = ScaledTorusPCA(**model.get_params())
    assert clone.get_params() == model.get_params()
    assert pickle.loads(pickle.dumps(model)).get_params() == model.get_params()
    with pytest.raises(ValueError, match="has no parameter 'radiuss'"):
        model.set_params(radiuss=1.0)
    assert model.radius == 2.0  # a failed set_params changes nothing


@pytest.mark.parametrize(("cls", "params", "X"), [
    (ScaledTorusPCA, {"pns_mode": "tiny"}, "angles"),
    (ScaledTorusPCA, {"n_bootstrap": 0}, "angles"),
    (SphericalMDS, {"init": "pca"}, "angles"),
    (SphericalMDS, {"radius": 0.0}, "angles"),
    (PrincipalNestedSpheres, {"alpha": -0.1}, "sphere"),
])
def test_fit_validates_every_parameter_first(cls, params, X):
    angles = make_demo("clusters-t2", random_state=0).angles
    data = angles if X == "angles" else np.c_[np.cos(angles), np.ones(len(angles))]
    name = next(iter(params))
    with pytest.raises(ValueError, match=rf"^{cls.__name__}: {name} "):
        cls(**params).fit(data)


def test_case_insensitive_pns_mode_as_in_r():
    rng = np.random.default_rng(0)
    y = rng.standard_normal((40, 3))
    model = PrincipalNestedSpheres(mode="BIC").fit(y / np.linalg.norm(y, axis=1)[:, None])
    assert model.scores_.shape == (40, 2)


def test_app_parameters_are_the_offered_declarations():
    # FitParameters is written out by hand; its fields, their order and their defaults are
    # those of the offered declarations of the estimator and then of the mode clusters'
    # settings, so a new parameter fails here until the app's settings hold it too.
    offered = [s for owner in (ScaledTorusPCA, ModeClusterSettings)
               for s in owner.parameter_specs() if s.offered]
    params = FitParameters()
    assert list(vars(params)) == [s.name for s in offered]
    assert [getattr(params, s.name) for s in offered] == [s.app_default for s in offered]
    assert FitParameters.specs() == tuple(offered)
    assert params.random_state == 0  # the app's reproducible default, not the library's None
    assert "smds_init" not in vars(params)  # array-valued: library only
    assert (params.cluster_rule, params.mode_alpha, params.alpha) == ("tested", 0.05, 0.1)


def test_the_two_test_levels_are_told_apart():
    # PNS's test level (ScaledTorusPCA.alpha) and the mode test's are different settings
    # with different names, labels and flags.
    pns, mode = ScaledTorusPCA.parameter_spec("alpha"), ModeClusterSettings.parameter_spec(
        "mode_alpha")
    assert (pns.label, pns.flag, pns.default) == ("PNS test level", "--alpha", 0.1)
    assert (mode.label, mode.flag, mode.default) == ("Mode test level", "--mode-alpha", 0.05)
    assert "Not the mode test level" in pns.doc and "Not the PNS test level" in mode.doc
    rule = ModeClusterSettings.parameter_spec("cluster_rule")
    assert (rule.label, rule.flag, rule.options().values) == ("Cluster rule", "--cluster-rule",
                                                              ("tested", "paper"))
    null = ModeClusterSettings.parameter_spec("mode_null")
    assert (null.label, null.flag, null.options().values) == (
        "Mode test null", "--mode-null", ("critical_kde", "mixture"))
    assert FitParameters(mode_alpha=0.01, alpha=0.2).mode_cluster_settings().get_params() == {
        "cluster_rule": "tested", "mode_alpha": 0.01, "mode_null": "critical_kde"}
    assert FitParameters(mode_alpha=0.01, alpha=0.2).to_estimator().alpha == 0.2


@pytest.mark.parametrize(("changes", "message"), [
    ({"mode_alpha": 0.0}, "mode_alpha (Mode test level) must be a number in (0, 1); got 0.0"),
    ({"mode_alpha": 1.0}, "mode_alpha (Mode test level) must be a number in (0, 1); got 1.0"),
    ({"mode_alpha": "0.05"}, "mode_alpha (Mode test level) must be a number in (0, 1); "
                             "got '0.05'"),
    ({"cluster_rule": "every"}, "cluster_rule (Cluster rule) must be one of 'tested', "
                                "'paper'; got 'every'"),
    ({"mode_null": "kde"}, "mode_null (Mode test null) must be one of 'critical_kde', "
                           "'mixture'; got 'kde'"),
])
def test_mode_cluster_settings_are_validated_with_the_others(changes, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        FitParameters(**changes).validate()
    with pytest.raises(ValueError, match=re.escape(message)):
        FitParameters(**changes).mode_cluster_settings().clusters(object())


def test_app_parameters_pickle_and_compare_by_value():
    import pickle

    chosen = FitParameters(n_init=3, pns_mode="bic")
    assert pickle.loads(pickle.dumps(chosen)) == chosen != FitParameters()
    with pytest.raises(AttributeError):
        chosen.n_init = 4  # frozen: a run's settings cannot change after the fact
