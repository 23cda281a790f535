"""Atomic writes: the whole new file or the old one, never a part; the usual file mode."""

from __future__ import annotations

import os
import stat
import time

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


# ------------------------------------------------------------------- issue 20
def test_replacing_keeps_the_mode_and_follows_symlinks(tmp_path):
    """issue 20 item 7: a re-saved 0600 file became 0644; a link became a regular file."""
    target = tmp_path / "private.stpca"
    target.write_text("old")
    os.chmod(target, 0o600)
    atomic_write_text(target, "new")
    assert target.read_text() == "new" and target.stat().st_mode & 0o777 == 0o600
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    real = folder / "real.txt"
    real.write_text("old")
    os.chmod(real, 0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    atomic_write_text(link, "through the link")
    assert link.is_symlink() and real.read_text() == "through the link"
    assert real.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in folder.iterdir()) == ["real.txt"]  # no temporary left


def test_file_sets_keep_modes_and_links(tmp_path):
    from stpca_gui.files.atomic import atomic_file_set

    (tmp_path / "a.csv").write_text("old")
    os.chmod(tmp_path / "a.csv", 0o600)
    real = tmp_path / "real.csv"
    real.write_text("old")
    (tmp_path / "b.csv").symlink_to(real)
    with atomic_file_set(tmp_path, ["a.csv", "b.csv"]) as temporaries:
        for tmp in temporaries.values():
            tmp.write_text("new")
    assert (tmp_path / "a.csv").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "b.csv").is_symlink() and real.read_text() == "new"


def test_new_content_is_flushed_before_the_rename(tmp_path, monkeypatch):
    calls = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace",
                        lambda a, b: (calls.append("replace"), real_replace(a, b))[1])
    atomic_write_text(tmp_path / "f.txt", "text")
    assert calls[:2] == ["fsync", "replace"]


def test_orphaned_temporaries_are_removed_on_the_next_save(tmp_path):
    """issue 20 item 11: killed saves left hidden temporaries forever."""
    from stpca_gui.files.atomic import ORPHAN_AGE

    target = tmp_path / "work.stpca"
    old = time.time() - ORPHAN_AGE - 60
    orphans = [tmp_path / ".work.0123456789ab.tmp.stpca", tmp_path / ".work.abcdefabcdef.old.stpca"]
    recent = tmp_path / ".work.fedcba987654.tmp.stpca"  # maybe another save in progress
    unrelated = [tmp_path / ".other.0123456789ab.tmp.stpca", tmp_path / ".work.notours.stpca"]
    for path in [*orphans, recent, *unrelated]:
        path.write_text("half")
    for path in [*orphans, *unrelated]:
        os.utime(path, (old, old))
    atomic_write_text(target, "saved")
    assert not any(path.exists() for path in orphans)
    assert recent.exists() and all(path.exists() for path in unrelated)


def test_a_killed_writes_temporary_is_removed_by_the_next_write_at_once(tmp_path):
    """Issue 29, item 4: the temporary of a process killed while writing (here one that
    ends with os._exit inside the write) goes with the next write of the target, not 15
    minutes later; a temporary of a process still running stays."""
    import subprocess
    import sys

    from stpca_gui.files.atomic import atomic_path, atomic_write_text

    target = tmp_path / "scores.csv"
    code = ("import os, sys; from stpca_gui.files.atomic import atomic_path\n"
            "with atomic_path(sys.argv[1]) as tmp:\n"
            "    tmp.write_bytes(b'x' * 100000); os._exit(9)\n")
    done = subprocess.run([sys.executable, "-c", code, str(target)], timeout=120)
    assert done.returncode == 9
    orphans = [p for p in tmp_path.iterdir() if p.name != "scores.csv"]
    assert len(orphans) == 1 and orphans[0].stat().st_size == 100000
    with atomic_path(target) as mine:  # a write of this process in progress
        atomic_write_text(target, "new\n")
        assert mine.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.csv"]
