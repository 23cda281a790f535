"""The ``stpca`` command line."""

from __future__ import annotations

import json
import os
import re
import stat

import numpy as np
import pytest

from stpca_gui.cli import main


def test_demo_prints_a_summary(capsys):
    assert main(["demo", "clusters-t2", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    stress = float(re.search(r"stress\s+(\S+) \(start", out).group(1))
    radius = float(re.search(r"fitted radius r̂\s+(\S+)", out).group(1))
    assert 0.0 < stress < 0.0065
    assert 1.2 < radius < 1.8
    assert re.search(r"samples n\s+300\n", out) and re.search(r"angles d\s+2\n", out)


def test_demo_results_get_the_usual_file_mode(tmp_path, capsys):
    previous = os.umask(0o022)
    try:
        assert main(["demo", "clusters-t2", "--seed", "1", "--out", str(tmp_path / "out")]) == 0
    finally:
        os.umask(previous)
    written = sorted((tmp_path / "out").iterdir())
    assert {p.name for p in written} >= {"scores.csv", "summary.json"}
    assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in written} == {oct(0o644)}


def test_demo_cluster_sd_is_passed_stated_and_saved(tmp_path, capsys):
    from stpca_gui.core import make_demo
    from stpca_gui.model.session_file import load_session

    session = tmp_path / "wide.stpca"
    assert main(["demo", "clusters-t2", "--cluster-sd", "0.5", "--curve-points", "30",
                 "--save-session", str(session), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert re.search(r"demo\s+clusters-t2 \(data seed 0\): .*cluster sd 0\.5\b", out)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["cluster_sd"] == 0.5
    loaded = load_session(session)
    dataset = loaded.dataset
    assert dataset.demo_options == {"cluster_sd": 0.5}
    # The session holds the clusters printed and written: rule, level, k̂ and p-values.
    clusters = loaded.result.mode_clusters
    assert clusters.method == "tested" and clusters.mode_test.alpha == 0.05
    assert list(clusters.mode_test.p_values) == summary["mode_clusters"]["p_values"]
    assert clusters.sizes.tolist() == summary["mode_clusters"]["sizes"]
    expected = make_demo("clusters-t2", cluster_sd=0.5).angles
    assert dataset.angles.tobytes() == expected.tobytes()


@pytest.mark.parametrize(("args", "message"), [
    (["wrapped-normal-t2", "--cluster-sd", "0.4"], "has no clusters"),
    (["clusters-t3", "--cluster-sd", "-1"], "must be a positive finite number"),
    (["adk-loop", "--cluster-sd", "0.4"], "the demo 'adk-loop' is real data"),
])
def test_demo_refuses_a_cluster_sd_it_cannot_use(args, message, capsys):
    assert main(["demo", *args]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_demos_are_listed(capsys):
    assert main(["demos"]) == 0
    out = capsys.readouterr().out
    for name in ("clusters-t2", "clusters-t3", "wrapped-normal-t2"):
        assert name in out


def test_bad_radius_is_an_error_not_a_traceback(capsys):
    # Declared parameters are checked when the command line is parsed: a usage error.
    with pytest.raises(SystemExit) as exc:
        main(["demo", "clusters-t2", "--radius", "-2"])
    assert exc.value.code == 2
    assert "--radius: must be 'auto' or a positive number, not '-2'" in capsys.readouterr().err


def test_unknown_demo_exits_with_usage_error():
    with pytest.raises(SystemExit) as exc:
        main(["demo", "no-such-demo"])
    assert exc.value.code == 2


def _write_clusters(path, *, degrees=False, delimiter=",", header=True, bad_line=None):
    from stpca_gui.core import make_demo

    data = make_demo("clusters-t2", random_state=0)
    values = np.rad2deg(data.angles) if degrees else data.angles
    lines = [delimiter.join(["phi", "psi", "group"])] if header else []
    for row, label in zip(values, data.labels, strict=True):
        lines.append(delimiter.join([f"{row[0]:.10f}", f"{row[1]:.10f}", f"c{label}"]))
    if bad_line is not None:
        lines[bad_line] = delimiter.join(["1.0", "oops", "c0"])
    path.write_text("\n".join(lines) + "\n")
    return data


def test_fit_writes_all_outputs(tmp_path, capsys):
    source = tmp_path / "angles.csv"
    data = _write_clusters(source, degrees=True)
    out = tmp_path / "result"
    code = main(["fit", str(source), "--columns", "phi,psi", "--label", "group", "--degrees",
                 "--out", str(out), "--pns-mode", "small", "--curve-points", "60"])
    assert code == 0, capsys.readouterr().err
    scores = np.genfromtxt(out / "scores.csv", delimiter=",", names=True)
    assert scores.shape == (300,)
    assert list(scores.dtype.names) == ["row", "label", "PNS1", "PNS2", "cluster"]
    np.testing.assert_array_equal(scores["row"], np.arange(2, 302))  # file lines
    # PNS1 separates the three clusters of the file.
    pc1 = scores["PNS1"]
    intervals = sorted((pc1[data.labels == k].min(), pc1[data.labels == k].max())
                       for k in range(3))
    assert intervals[0][1] < intervals[1][0] and intervals[1][1] < intervals[2][0]
    embedding = np.genfromtxt(out / "embedding.csv", delimiter=",", skip_header=1)
    np.testing.assert_allclose(np.linalg.norm(embedding[:, 1:], axis=1), 1.0, atol=1e-12)
    curve = np.genfromtxt(out / "principal_curve.csv", delimiter=",", names=True)
    assert curve.shape == (60,)
    assert set(curve.dtype.names) == {"pns1", "phi", "psi", "break_after", "stress"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_samples"] == 300 and summary["n_angles"] == 2
    assert summary["columns"] == ["phi", "psi"] and summary["degrees"] is True
    assert summary["sphere_types"] == ["small"]
    assert sum(summary["explained_variance_ratio"]) == pytest.approx(1.0)
    assert summary["explained_variance_ratio"][0] > 0.9
    assert {"numpy", "scipy", "numba", "stpca-gui"} <= set(summary["versions"])
    assert set(summary["timings_seconds"]) >= {"smds", "pns", "curve"}
    # PNS1's tested mode clusters: every row's cluster, k̂ with the p-value of every step,
    # sizes, stability and the rate against the labels with its bootstrap interval.
    clusters = summary["mode_clusters"]
    assert clusters["rule"] == "tested" and clusters["alpha"] == 0.05
    assert clusters["k_hat"] == clusters["n_clusters"] == 3
    assert all(p < 0.05 for p in clusters["p_values"][:2]) and clusters["p_values"][2] >= 0.05
    assert clusters["torus_uniformity_p_value"] < 1e-6
    assert sorted(clusters["sizes"]) == [100, 100, 100]
    assert np.bincount(scores["cluster"].astype(int))[1:].tolist() == clusters["sizes"]
    assert len(clusters["stability"]) == 3
    rate = summary["classification_rate"]
    assert rate["rate"] == 1.0 and rate["low"] <= 1.0 <= rate["high"] and rate["level"] == 0.95
    printed = capsys.readouterr().out
    assert "3 clusters — 3 modes (α = 0.05; k=1: p" in printed
    assert "100.0 % correctly classified" in printed and "95 % CI" in printed


def test_fit_paper_rule_and_level_are_options(tmp_path, capsys):
    source = tmp_path / "angles.csv"
    _write_clusters(source, degrees=True)
    out = tmp_path / "result"
    assert main(["fit", str(source), "--columns", "phi,psi", "--label", "group", "--degrees",
                 "--out", str(out), "--cluster-rule", "paper"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["mode_clusters"]["rule"] == "paper"
    assert "k_hat" not in summary["mode_clusters"]
    assert "paper rule: every mode" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        main(["fit", str(source), "--mode-alpha", "1.5"])
    assert exit_info.value.code == 2
    assert "--mode-alpha: must be a number in (0, 1), not '1.5'" in capsys.readouterr().err


def test_fit_reads_headerless_whitespace_tables(tmp_path, capsys):
    source = tmp_path / "angles.txt"
    _write_clusters(source, delimiter=" ", header=False)
    assert main(["fit", str(source), "--columns", "1,2", "--no-torus-variance"]) == 0
    assert re.search(r"samples n\s+300\n", capsys.readouterr().out)


def test_fit_names_file_line_and_column_of_bad_values(tmp_path, capsys):
    source = tmp_path / "bad.csv"
    _write_clusters(source, bad_line=5)
    assert main(["fit", str(source), "--columns", "phi,psi"]) == 1
    err = capsys.readouterr().err
    assert "bad.csv" in err and "line 6" in err and "'psi'" in err and "oops" in err
    assert "Traceback" not in err


def test_fit_can_drop_invalid_rows(tmp_path, capsys):
    source = tmp_path / "bad.csv"
    _write_clusters(source, bad_line=5)
    assert main(["fit", str(source), "--columns", "phi,psi", "--drop-invalid",
                 "--no-torus-variance"]) == 0
    captured = capsys.readouterr()
    assert "skipped" in captured.err and "line 6" in captured.err
    assert re.search(r"samples n\s+299\n", captured.out)


def test_fit_warns_about_probable_degrees(tmp_path, capsys):
    source = tmp_path / "deg.csv"
    _write_clusters(source, degrees=True)
    assert main(["fit", str(source), "--columns", "phi,psi", "--no-torus-variance"]) == 0
    assert "--degrees" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["fit", "/no/such/file.csv"], "no such file"),
    (["fit", "{source}", "--columns", "phi,omega"], "no column named 'omega'"),
    (["fit", "{source}", "--columns", "phi,psi", "--out", "/proc/forbidden"], "cannot"),
])
def test_fit_errors_are_messages(tmp_path, capsys, args, message):
    source = tmp_path / "angles.csv"
    _write_clusters(source)
    argv = [a.format(source=source) for a in args]
    if "--out" in argv:
        argv.append("--no-torus-variance")
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_tables_with_ragged_rows_and_duplicate_headers(tmp_path):
    from stpca_gui.io import TableError, read_angle_table

    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,b,c\n1,2,3\n4,5\n7,8,9,10\n0.5,0.25,1\n1,1,1\n")
    with pytest.raises(TableError, match=r"line 3, column 'c': missing value"):
        read_angle_table(ragged)
    table = read_angle_table(ragged, drop_invalid=True)
    # A row with more fields than the header is refused too (issue 29, item 3).
    assert table.angles.shape == (3, 3)
    assert [line for line, _ in table.dropped] == [3, 4]
    duplicated = tmp_path / "dup.csv"
    duplicated.write_text("phi,phi,psi\n1,2,3\n4,5,6\n7,8,9\n")
    with pytest.raises(TableError, match="more than one column named 'phi'"):
        read_angle_table(duplicated, ["phi", "psi"])
    nan_header = tmp_path / "nan.csv"
    nan_header.write_text("nan,psi\n1,2\n3,4\n5,6\n")
    assert read_angle_table(nan_header).column_names == ("nan", "psi")


def test_reproduce_quick_writes_a_report(tmp_path, capsys):
    # No --sunspots: the bundled data set is used, so this runs from an installed wheel too.
    out = tmp_path / "repro"
    assert main(["reproduce", "--quick", "--out", str(out)]) == 0
    report = (out / "report.md").read_text()
    lines = report.splitlines()
    summary = next(line for line in lines if "distinct published values checked" in line)
    assert summary.endswith("not reproduced (methods not available).")
    # Every published value once, with the procedure that reproduces it.
    assert "| Small RNA (§5.2) | r̂ | 1.49 | paper's procedure |" in report
    assert "| Simulations (§3.1) | clusters-t2 stress | 0.068 |" in report
    for demo in ("clusters-t2", "clusters-t3", "wrapped-normal-t2"):
        assert f"### {demo}" in report
    # The paper's r* is the uniform-angle reconstruction; the exact r* differs.
    assert "| r* | 1.515 | **differs**" in report
    assert "| 1.474 | agrees" in report and "| 1.791 | agrees" in report
    # Table 1: the longitudes' PAD agrees only with sphunif's tie convention; the paper's
    # procedure reproduces the ST-PCA score p-values to four digits.
    assert "| PAD | 0.3181 | **differs**" in report and "| 0.7554 | agrees" in report
    assert ("| ST-PCA (paper's procedure) | 0.0855 (0.0855) agrees | 0.1843 (0.1843) agrees | "
            "0.1273 (0.1273) agrees |") in report
    assert "Which conclusions depend on the optimiser:** at α = 0.05, Giné F_n" in report
    for method in ("complex dPCA", "Euclidean PCA", "aPCA", "dPCA+", "dPCA",
                   "T-PCA (SI), torus", "T-PCA (SO), sphere (hypothesis)"):
        assert f"| {method} |" in report
    # T-PCA's PNS1 rejects uniformity as in Table 1, whose 0 is read to its four decimals.
    assert [line.count("agrees") for line in lines
            if line.startswith(("| T-PCA (SI) | 0.0000 (0)", "| T-PCA (SO) | 0.0000 (0)"))
            ] == [2, 3]
    landmark_rows = [line.split("|")[1:-1] for line in lines
                     if line.startswith(("| mixed |", "| maxmin |", "| random |"))]
    assert len(landmark_rows) == 3 and "Landmark fits (m = 250)" in report
    assert all(float(row[1]) >= 0.99 for row in landmark_rows)  # PNS1 agreement
    assert "## Not reproduced" in report
    # The explained-variance gap: the sd sweep, the conventions, the subsamples, verdicts.
    # §5.2: the paper's procedure gives r̂ 1.49 and ST-PCA's 0.916 (16 misclassified).
    rna = report[report.index("## 3. Small RNA"):report.index("## 4. The explained")]
    assert "| r̂ | 2.390 | 1.494 | 1.49 | **differs**" in rna
    assert "| ST-PCA (paper's procedure) | 3 (3) agrees | 0.916 (" in rna
    assert "| 16 | 0.916 (16) | agrees |" in rna
    assert "T-PCA's cuts and orderings" in rna and "Are the differences" in rna
    assert (out / "rna_pns1.png").stat().st_size > 30_000
    gap = report[report.index("## 4. The explained-variance gap"):]
    assert "| clusters-t2 | 0.3 | paper |" in gap and "| clusters-t3 | 0.5 | lbfgs |" in gap
    assert "| clusters-t2 | stress | 0.068 (§3.1) |" in gap
    for key in ("T-a", "T-b", "T-f", "T-g", "T-u", "T-r", "S-c", "S-d", "S-e"):
        assert f"| {key} |" in gap
    # Section 2's subsample under T-b: PC3 > PC2 as in the paper.
    row = next(line for line in gap.splitlines() if line.startswith("| paper | T-b | "))
    pc = [float(v) for v in row.split("|")[3].split("/")]
    assert pc == pytest.approx([91.09, 2.56, 6.34], abs=0.05) and pc[2] > pc[1]
    assert "| sunspots subsamples | PC3 | 6.40 (Table 2) |" in gap
    assert "### Conclusion" in gap
    assert (out / "sunspots_scores.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "sunspots_pns1.png").stat().st_size > 10_000
    assert (out / "sunspots_pns1_methods.png").stat().st_size > 20_000


def test_every_offered_parameter_is_an_option_with_its_default():
    from stpca_gui.cli import build_parser
    from stpca_gui.core import ScaledTorusPCA

    parser = build_parser()
    args = parser.parse_args(["demo"])
    for spec in ScaledTorusPCA.parameter_specs():
        if spec.offered:
            assert getattr(args, spec.name) == spec.app_default, spec.name
    args = parser.parse_args(["demo", "--radius", "2.5", "--tol", "1e-7", "--alpha", "0.05",
                              "--n-bootstrap", "7", "--no-torus-variance", "--seed", "3"])
    assert (args.radius, args.tol, args.alpha, args.n_bootstrap, args.torus_variance,
            args.random_state) == (2.5, 1e-7, 0.05, 7, False, 3)


def test_bad_option_values_are_usage_errors(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--restarts", "many"])
    assert exc.value.code == 2
    assert "--restarts: must be an integer in [1, 1000], not 'many'" in capsys.readouterr().err


@pytest.mark.parametrize(("rows", "extra"), [
    # The same torus point written in whole turns, in degrees (issue 10, item 2).
    (["1,20", "361,20", "-359,20", "721,20"], ["--degrees"]),
    (["10,20", "370,20", "-350,20", "730,20"], ["--degrees"]),
    # A spread of 1e-9 rad.
    (["0.3,-1.2", "0.300000001,-1.199999998", "0.300000002,-1.199999996",
      "0.300000003,-1.199999999", "0.300000004,-1.199999997"], []),
])
def test_fit_of_one_repeated_point_is_an_error_not_nan(tmp_path, capsys, rows, extra):
    source = tmp_path / "same.csv"
    source.write_text("a,b\n" + "\n".join(rows) + "\n")
    out = tmp_path / "out"
    assert main(["fit", str(source), *extra, "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("stpca: error: all samples are the same point on the torus")
    assert "1e-06 rad" in err and "Traceback" not in err
    assert not (out / "summary.json").exists()


def test_fit_of_a_tiny_but_real_spread_has_no_nan(tmp_path, capsys):
    rng = np.random.default_rng(0)
    angles = np.array([0.3, -1.2]) + 1e-4 * rng.standard_normal((8, 2))
    source = tmp_path / "tiny.csv"
    source.write_text("a,b\n" + "\n".join(f"{a:.17g},{b:.17g}" for a, b in angles) + "\n")
    out = tmp_path / "out"
    assert main(["fit", str(source), "--out", str(out), "--curve-points", "20"]) == 0
    summary = (out / "summary.json").read_text()
    assert "NaN" not in summary
    ratios = json.loads(summary)["explained_variance_ratio"]
    assert np.all(np.isfinite(ratios)) and sum(ratios) == pytest.approx(1.0)


def test_fit_pns_exact_levels_and_torus_components_as_a_user_gives_them(tmp_path, capsys):
    """At d = 20 PNS fits the levels nearest PNS1 one by one and reduces the rest;
    ``--pns-exact-levels all`` fits every level. ``--torus-components 2`` computes the
    torus variance of two components and the share of the others together."""
    from stpca_gui.core.torsion_states import make_torsion_states

    data = make_torsion_states(150, 20, random_state=2)
    table = tmp_path / "t.csv"
    np.savetxt(table, data.angles, delimiter=",", comments="",
               header=",".join(f"t{k}" for k in range(20)))
    summaries, printed = {}, {}
    for levels in ("3", "all"):
        out = tmp_path / levels
        assert main(["fit", str(table), "--pns-mode", "great", "--pns-exact-levels", levels,
                     "--landmarks", "exact", "--curve-points", "20", "--torus-components",
                     "2", "--out", str(out)]) == 0
        printed[levels] = capsys.readouterr().out
        summaries[levels] = json.loads((out / "summary.json").read_text())
    reduced = summaries["3"]["pns_reduced_levels"]
    # Levels 2 … 19 − 3 reduced in one step; the 3 nearest PNS1 and level 1 fitted.
    assert (reduced["first"], reduced["last"], reduced["count"]) == (2, 16, 15)
    share = 100 * reduced["variance_share"]
    assert f"PNS reduction     levels 2–16 of 19 reduced to the leading principal " \
           f"directions ({share:.1f} % of the sphere variance" in printed["3"]
    assert summaries["all"]["pns_reduced_levels"] is None
    assert "PNS reduction" not in printed["all"]
    for summary, text in zip(summaries.values(), printed.values(), strict=True):
        torus = summary["torus_explained_variance_ratio"]
        assert summary["torus_variance_components"] == 2
        assert all(r is not None for r in torus[:2]) and all(r is None for r in torus[2:])
        assert "PNS3–20 together" in text
