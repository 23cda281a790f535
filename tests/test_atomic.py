"""Atomic writes: the whole new file or the old one, never a part; the usual file mode."""

from __future__ import annotations

import os
import stat

import pytest

from stpca_gui.files.atomic import atomic_path, atomic_write_text


@pytest.fixture
def umask_022():
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_file_gets_the_mode_the_umask_gives(tmp_path, umask_022):
    target = tmp_path / "table.csv"
    atomic_write_text(target, "a,b\n1,2\n")
    assert target.read_text() == "a,b\n1,2\n"
    assert mode(target) == 0o644


def test_other_umask_is_followed(tmp_path):
    previous = os.umask(0o077)
    try:
        with atomic_path(tmp_path / "private.bin") as tmp:
            tmp.write_bytes(b"\x00\x01")
    finally:
        os.umask(previous)
    assert mode(tmp_path / "private.bin") == 0o600


def test_existing_file_is_replaced_by_a_new_inode(tmp_path):
    target = tmp_path / "summary.json"
    target.write_text("old")
    old_inode = target.stat().st_ino
    kept_open = open(target, encoding="utf-8")  # a reader of the old file keeps reading it
    try:
        atomic_write_text(target, "new")
        assert kept_open.read() == "old"
    finally:
        kept_open.close()
    assert target.read_text() == "new"
    assert target.stat().st_ino != old_inode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json"]


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "figure.png"
    target.write_bytes(b"old image")
    with pytest.raises(RuntimeError, match="renderer failed"):
        with atomic_path(target) as tmp:
            assert tmp.parent == tmp_path and tmp.suffix == ".png" and tmp.name.startswith(".")
            tmp.write_bytes(b"half")
            raise RuntimeError("renderer failed")
    assert target.read_bytes() == b"old image"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["figure.png"]


def test_missing_folder_is_named_in_the_error(tmp_path):
    target = tmp_path / "absent" / "x.txt"
    with pytest.raises(OSError, match=r"cannot write .*absent"):
        atomic_write_text(target, "x")


def test_text_newlines_are_written_as_given(tmp_path):
    atomic_write_text(tmp_path / "crlf.txt", "a\r\nb\n")
    assert (tmp_path / "crlf.txt").read_bytes() == b"a\r\nb\n"


def test_refused_rename_names_the_target_and_leaves_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "summary.json"
    target.write_text("old")

    def refuse(source, destination):
        raise PermissionError(13, "Permission denied", str(source), None, str(destination))

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError) as info:
        atomic_write_text(target, "new")
    assert str(info.value) == f"cannot write {target}: Permission denied"
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]
    assert target.read_text() == "old"
