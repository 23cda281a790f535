"""An output folder written as a whole (issue 29, item 1): never over an input, never over
or beside a user's files unless allowed, its own stale files of an earlier run removed."""

from __future__ import annotations

import json
import os

import pytest

from stpca_gui.files.clash import OutputClashError
from stpca_gui.files.output_folder import (
    MANIFEST_NAME,
    ForeignFilesError,
    check_output_folder,
    output_folder,
)


def _write(folder, texts, **options):
    options.setdefault("kind", "test")
    with output_folder(folder, texts, **options) as temporaries:
        for name, tmp in temporaries.items():
            tmp.write_text(texts[name], encoding="utf-8")
    return sorted(p.name for p in folder.iterdir())


def test_a_new_folder_gets_the_files_and_a_manifest_of_them(tmp_path):
    out = tmp_path / "new" / "out"
    assert _write(out, {"a.csv": "1\n", "b.csv": "2\n"}) == [MANIFEST_NAME, "a.csv", "b.csv"]
    manifest = json.loads((out / MANIFEST_NAME).read_text())
    import hashlib
    assert manifest["writers"]["test"]["a.csv"]["sha256"] == hashlib.sha256(b"1\n").hexdigest()


def test_a_rerun_replaces_its_files_and_removes_its_stale_ones(tmp_path):
    _write(tmp_path, {f"cluster_{k}.pdb": f"{k}\n" for k in range(8)} | {"clusters.csv": "x"})
    assert _write(tmp_path, {f"cluster_{k}.pdb": "new\n" for k in range(3)}
                  | {"clusters.csv": "y"}) == [
        MANIFEST_NAME, "cluster_0.pdb", "cluster_1.pdb", "cluster_2.pdb", "clusters.csv"]
    assert (tmp_path / "clusters.csv").read_text() == "y"


def test_other_writers_files_stay_and_are_not_foreign(tmp_path):
    _write(tmp_path, {"scores.csv": "s"}, kind="results")
    _write(tmp_path, {"clusters.csv": "c"}, kind="representatives")
    _write(tmp_path, {"scores.csv": "t"}, kind="results")
    assert (tmp_path / "clusters.csv").read_text() == "c"


@pytest.mark.parametrize("name", ["clusters.csv", "notes.txt"])
def test_a_folder_holding_a_users_file_is_refused_and_nothing_changes(tmp_path, name):
    (tmp_path / name).write_text("mine")
    with pytest.raises(ForeignFilesError, match=f"did not write.*{name}.*--overwrite"):
        _write(tmp_path, {"clusters.csv": "c"})
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    assert (tmp_path / name).read_text() == "mine"


def test_overwrite_replaces_files_named_like_an_output_and_keeps_the_others(tmp_path):
    (tmp_path / "clusters.csv").write_text("mine")
    (tmp_path / "notes.txt").write_text("mine")
    _write(tmp_path, {"clusters.csv": "c"}, overwrite=True)
    assert (tmp_path / "clusters.csv").read_text() == "c"
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_an_own_file_edited_since_is_foreign_and_never_removed_as_stale(tmp_path):
    _write(tmp_path, {"a.csv": "1", "b.csv": "2"})
    (tmp_path / "b.csv").write_text("edited by hand")
    with pytest.raises(ForeignFilesError, match=r"b\.csv"):
        _write(tmp_path, {"a.csv": "3"})
    _write(tmp_path, {"a.csv": "3"}, overwrite=True)
    assert (tmp_path / "b.csv").read_text() == "edited by hand"


def test_a_tampered_or_foreign_manifest_makes_every_file_foreign(tmp_path):
    _write(tmp_path, {"a.csv": "1"})
    (tmp_path / MANIFEST_NAME).write_text('{"writers": {"test": {"../x": 3}}}')
    with pytest.raises(ForeignFilesError, match=r"a\.csv"):
        _write(tmp_path, {"a.csv": "2"})


@pytest.mark.parametrize("link", ["same", "hard", "symbolic"])
def test_an_input_is_never_replaced_even_with_overwrite(tmp_path, link):
    source = tmp_path / "in" / "topology.pdb"
    source.parent.mkdir()
    source.write_text("atoms")
    out = tmp_path / "in" if link == "same" else tmp_path / "out"
    if link != "same":
        out.mkdir()
        (os.link if link == "hard" else os.symlink)(source, out / "cluster_0.pdb")
    with pytest.raises(OutputClashError, match="refusing to write the output"):
        _write(out, {"cluster_0.pdb" if link != "same" else "topology.pdb": "x"},
               inputs=[("the topology", source)], overwrite=True)
    assert source.read_text() == "atoms"


def test_an_input_listed_as_an_earlier_output_is_not_removed_as_stale(tmp_path):
    _write(tmp_path, {"cluster_0.pdb": "0", "cluster_5.pdb": "5"})
    _write(tmp_path, {"cluster_0.pdb": "new"}, inputs=[("a trajectory",
                                                         tmp_path / "cluster_5.pdb")])
    assert (tmp_path / "cluster_5.pdb").read_text() == "5"


def test_the_check_before_long_work_writes_nothing(tmp_path):
    (tmp_path / "x").write_text("mine")
    with pytest.raises(ForeignFilesError):
        check_output_folder(tmp_path, ["a.csv"])
    check_output_folder(tmp_path / "new", ["a.csv"])
    assert not (tmp_path / "new").exists()


def test_placed_among_a_users_files_only_replaced_files_count(tmp_path):
    (tmp_path / "thesis.tex").write_text("mine")
    (tmp_path / "analysis.py").write_text("old script")
    _write(tmp_path, {"analysis.py": "s", "analysis-data.csv": "d"}, whole_folder=False,
           chosen=["analysis.py"])
    (tmp_path / "other-data.csv").write_text("mine")
    with pytest.raises(ForeignFilesError, match=r"other-data\.csv"):
        _write(tmp_path, {"other.py": "s", "other-data.csv": "d"}, whole_folder=False,
               chosen=["other.py"])
    assert (tmp_path / "thesis.tex").read_text() == "mine"


def test_each_file_is_read_once_per_writing_even_when_touched(tmp_path, monkeypatch):
    import stpca_gui.files.output_folder as module

    _write(tmp_path, {f"cluster_{k}.pdb": f"{k}\n" for k in range(4)})
    for k in range(4):  # touched (e.g. copied without their times): the digest decides
        os.utime(tmp_path / f"cluster_{k}.pdb", ns=(0, 10**9 * (k + 1)))
    hashed = []
    real = module.file_sha256
    monkeypatch.setattr(module, "file_sha256", lambda path: hashed.append(path.name)
                        or real(path))
    assert _write(tmp_path, {"cluster_0.pdb": "new\n"}) == [MANIFEST_NAME, "cluster_0.pdb"]
    # Checked: the four earlier files (three then removed as stale); recorded: the new one.
    earlier = [name for name in hashed if not name.startswith(".")]
    assert sorted(earlier) == [f"cluster_{k}.pdb" for k in range(4)]
    assert len(hashed) == 5 and hashed[-1].startswith(".cluster_0.")
