"""``stpca plot``: every figure of the app from a session, refusals naming what is wrong."""

from __future__ import annotations

import pytest
from image_content import assert_has_content

from stpca_gui.cli import main
from stpca_gui.core import make_demo


@pytest.fixture(scope="module")
def weighted_session(tmp_path_factory):
    """A session fitted from a table with trajectory, time and weight columns; the weight
    of row 5 (line 6) is negative in a second table's session."""
    folder = tmp_path_factory.mktemp("plot")
    demo = make_demo("clusters-t2", random_state=0)
    n = len(demo.angles)
    sessions = {}
    for name, bad in (("good", False), ("bad", True)):
        table = folder / f"{name}.csv"
        lines = ["trajectory,time,weight,a,b"]
        for k, (a, b) in enumerate(demo.angles):
            weight = -2.0 if bad and k == 4 else 1.0 + (k % 3)
            lines.append(f"run{k * 2 // n + 1},{k % (n // 2) * 10},{weight},{a},{b}")
        table.write_text("\n".join(lines) + "\n")
        session = folder / f"{name}.stpca"
        assert main(["fit", str(table), "--curve-points", "30", "--save-session",
                     str(session), "--out", str(folder / f"{name}-out")]) == 0
        sessions[name] = session
    return sessions


@pytest.mark.parametrize("kind", ["scores", "free-energy", "histogram", "time", "variance"])
def test_every_figure_is_written_with_content(weighted_session, tmp_path, kind, capsys):
    out = tmp_path / f"{kind}.png"
    assert main(["plot", str(weighted_session["good"]), kind, "--out", str(out),
                 "--color", "cluster", "--dpi", "80"]) == 0
    assert_has_content(out)
    assert f"wrote {out}" in capsys.readouterr().out


def test_vector_formats_by_suffix_and_free_energy_options(weighted_session, tmp_path):
    svg, pdf = tmp_path / "fe.svg", tmp_path / "fe.pdf"
    assert main(["plot", str(weighted_session["good"]), "free-energy", "--out", str(svg),
                 "--unit", "kJ/mol", "--temperature", "310", "--weights", "weight",
                 "--bins", "12"]) == 0
    text = svg.read_text()
    assert text.startswith("<?xml") and "kJ/mol at 310 K" in text
    assert "12 × 12 bins (set)" in text and "weights: weight" in text
    assert main(["plot", str(weighted_session["good"]), "time", "--out", str(pdf),
                 "--components", "2", "1"]) == 0
    assert pdf.read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize(("session", "options", "message"), [
    ("bad", ["--weights", "weight"], "weights column 'weight', row 6: -2.0 is negative"),
    ("good", ["--weights", "bias"], "no weights column 'bias' in the data; columns that can "
                                    "hold weights: weight"),
    ("good", ["--components", "1", "3"], "--components: each must lie in 1..2"),
])
def test_bad_options_are_refused_and_nothing_is_written(weighted_session, tmp_path, capsys,
                                                        session, options, message):
    out = tmp_path / "fe.png"
    assert main(["plot", str(weighted_session[session]), "free-energy", "--out", str(out),
                 *options]) == 1
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_never_over_the_session(weighted_session, tmp_path, capsys):
    session = weighted_session["good"]
    before = session.read_bytes()
    link = tmp_path / "figure.png"
    link.symlink_to(session)
    assert main(["plot", str(session), "scores", "--out", str(link)]) == 1
    assert "refusing to write the figure over the session" in capsys.readouterr().err
    assert session.read_bytes() == before



@pytest.mark.usefixtures("display")
def test_the_torus_is_rendered_off_screen(weighted_session, tmp_path):
    from stpca_gui.plotting.figures import can_render_off_screen

    if not can_render_off_screen():
        pytest.skip("no off-screen OpenGL here")
    out = tmp_path / "torus.png"
    assert main(["plot", str(weighted_session["good"]), "torus", "--out", str(out),
                 "--size", "4x3", "--dpi", "100"]) == 0
    assert_has_content(out)


@pytest.mark.parametrize(("options", "message"), [
    (["--bins", "100000"], "--bins: must be an integer in [1, 500], not '100000'"),
    (["--temperature", "-5"], "--temperature: must be a number in [1, 10000], not '-5'"),
    (["--temperature", "nan"], "--temperature: must be a number in [1, 10000], not 'nan'"),
])
def test_bins_and_temperature_beyond_the_apps_range_are_usage_errors(
        weighted_session, tmp_path, capsys, options, message):
    """10⁵ bins per axis asked for a 75 GiB histogram; a negative or NaN temperature drew
    a flipped or empty landscape."""
    out = tmp_path / "fe.png"
    with pytest.raises(SystemExit) as exc:
        main(["plot", str(weighted_session["good"]), "free-energy", "--out", str(out),
              "--unit", "kJ/mol", *options])
    assert exc.value.code == 2 and message in capsys.readouterr().err
    assert not out.exists()
