"""Figures drawn in forked children: every one written before the report goes on, and a failure is not silent."""

import os

import matplotlib.pyplot as plt
import pytest
from orbench_plots.drawing import DrawingFailed, draw, drawing_in_parallel
from orbench_plots.style import save


def test_every_figure_is_written_by_a_child_before_the_block_ends(tmp_path):
    parent = os.getpid()
    paths = [tmp_path / f"f{k}.png" for k in range(5)]
    with drawing_in_parallel(limit=2):
        for k, path in enumerate(paths):
            fig, ax = plt.subplots()
            ax.plot([0, 1], [k, k + 1])
            save(fig, path)
            # The child has its own copy: closing it here does not stop it being written.
            assert plt.get_fignums() == []
    for path in paths:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pids = tmp_path / "pids"
    with drawing_in_parallel(limit=1):
        draw(lambda: pids.write_text(str(os.getpid())), pids)
    assert int(pids.read_text()) != parent


def test_a_figure_not_written_raises_naming_it(tmp_path):
    ok, bad = tmp_path / "ok.png", tmp_path / "missing-dir" / "bad.png"
    with pytest.raises(DrawingFailed, match="bad.png"):
        with drawing_in_parallel(limit=2):
            for path in (ok, bad):
                fig, ax = plt.subplots()
                ax.plot([0, 1])
                save(fig, path)
    assert ok.exists()


def test_outside_the_block_a_figure_is_drawn_here(tmp_path):
    pids = tmp_path / "pids"
    draw(lambda: pids.write_text(str(os.getpid())), pids)
    assert int(pids.read_text()) == os.getpid()
