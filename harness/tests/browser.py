"""Headless Chromium (Debian's) for the tests that open a page as a reader would: the report, the user guide."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--virtual-time-budget=10000"]


def require_chromium() -> None:
    if shutil.which("chromium") is None:
        pytest.skip("Debian's chromium is not installed (make deps installs it)")


def rendered_body(page: Path, profile: Path) -> dict[str, str]:
    """The page as headless Chromium renders it: the <body> attributes its image check sets on load
    (data-images, data-images-loaded, data-images-broken)."""
    proc = subprocess.run(["chromium", *CHROMIUM_FLAGS, "--dump-dom", f"--user-data-dir={profile}", page.as_uri()],
                          capture_output=True, text=True, timeout=90)
    body = re.search(r"<body([^>]*)>", proc.stdout)
    assert body, f"chromium rendered no body: {proc.stderr[-500:]}"
    return dict(re.findall(r'([\w-]+)="([^"]*)"', body.group(1)))


def screenshot(page: Path, png: Path, profile: Path, size: str = "1280,1600") -> Path:
    """A PNG of the page as headless Chromium shows it in a window of `size` pixels."""
    proc = subprocess.run(["chromium", *CHROMIUM_FLAGS, f"--screenshot={png}", f"--window-size={size}",
                           "--hide-scrollbars", f"--user-data-dir={profile}", page.as_uri()],
                          capture_output=True, text=True, timeout=90)
    assert png.is_file(), f"chromium took no screenshot of {page}: {proc.stderr[-500:]}"
    return png
