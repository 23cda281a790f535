"""The recent-files list: order, duplicates, bound, persistence, corrupt stores."""

from __future__ import annotations

import json
import os

import pytest

from stpca_gui.model import (
    RecentFiles,
)


def test_recent_files_order_dedupe_bound_and_persistence(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "config" / "recent.json"  # the folder does not exist yet
    recent = RecentFiles(store)
    assert recent.paths() == []
    files = []
    for k in range(12):
        f = tmp_path / f"f{k}.csv"
        f.write_text("1,2\n")
        files.append(f)
        recent.add(f)
    assert len(recent) == 10
    assert recent.paths()[0] == str(files[11]) and recent.paths()[-1] == str(files[2])
    recent.add("f5.csv")  # relative spelling of an existing entry moves it to the front
    recent.add(tmp_path / "sub" / ".." / "f5.csv")
    assert recent.paths()[0] == str(files[5]) and len(recent) == 10
    assert recent.paths().count(str(files[5])) == 1
    assert files[5] in recent and "nope.csv" not in recent

    data = json.loads(store.read_text())
    assert data["recent"] == recent.paths()
    assert RecentFiles(store).paths() == recent.paths()
    assert not any(p.name.startswith(f".{store.stem}.") for p in store.parent.iterdir())

    files[11].unlink()
    files[9].unlink()
    assert recent.prune() == [str(files[11]), str(files[9])]
    assert len(recent) == 8 and RecentFiles(store).paths() == recent.paths()
    assert recent.remove(files[5]) and not recent.remove(files[5])
    recent.clear()
    assert RecentFiles(store).paths() == []


@pytest.mark.parametrize("content", [b"{not json", b"\xff\xfe\x00garbage", b'{"recent": 5}',
                                     b'[1, null, "", "/x/a.csv", "/x/a.csv"]', b"null"])
def test_recent_files_tolerates_corrupt_store(tmp_path, content):
    store = tmp_path / "recent.json"
    store.write_bytes(content)
    recent = RecentFiles(store)
    expected = [os.path.normpath(os.path.abspath("/x/a.csv"))] if b"/x/a.csv" in content else []
    assert recent.paths() == expected
    recent.add(tmp_path / "b.csv")  # and it can be overwritten with a good file
    assert json.loads(store.read_text())["recent"][0] == str(tmp_path / "b.csv")


def test_recent_files_missing_store_and_small_bound(tmp_path):
    recent = RecentFiles(tmp_path / "absent.json", max_entries=2, autosave=False)
    for name in "abc":
        recent.add(tmp_path / name)
    assert [os.path.basename(p) for p in recent] == ["c", "b"]
    assert not (tmp_path / "absent.json").exists()  # autosave off
    recent.save()
    assert RecentFiles(tmp_path / "absent.json").paths() == recent.paths()
