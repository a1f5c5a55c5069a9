"""Render a maui-sim HTML report in a real headless browser and save a full-page screenshot.

    python benchmarks/render_report.py                      # a fresh compare report, then the PNG
    python benchmarks/render_report.py --html sim-report/index.html --png report.png

Without --html it runs `maui-sim compare` on a generated workload (2,000 jobs) under
config/easy.cfg and config/conservative.cfg into sim-report/render/ and renders that.
The browser is Chromium (`apt-get install chromium`, or any of chromium-browser,
google-chrome on PATH; --browser to name one). The page must load with the network off:
the script refuses a report that links anything outside itself. Prints the PNG's path and
the time the browser took. Not part of CI: a browser is a large install for one check.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']?(?!#|data:)[a-z]+:""", re.I)


def find_browser(name: str | None) -> str:
    for candidate in ([name] if name else BROWSERS):
        path = shutil.which(candidate)
        if path:
            return path
    sys.exit("render_report: no headless browser found (apt-get install chromium, or --browser PATH)")


def make_report(out: Path) -> Path:
    cmd = [sys.executable, "-m", "maui_py.cli.main", "simulate", "compare", "-c", "config/easy.cfg",
           "-c", "config/conservative.cfg", "--synthetic", "2000", "--out", str(out), "-q"]
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return out / "index.html"


def _browser_args(browser: str, width: int, height: int) -> list[str]:
    args = [browser, "--headless", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            "--disable-extensions", f"--window-size={width},{height}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.insert(1, "--no-sandbox")          # Chromium refuses to run as root otherwise
    return args


def page_height(browser: str, html: Path, width: int) -> int | None:
    """The page's height at `width` CSS pixels: Chromium's command line has no full-page
    screenshot, so a wrapper page (the report has no script of its own) loads the report in
    a frame and writes its scrollHeight into the DOM that --dump-dom prints."""
    wrapper = (f'<!doctype html><body><iframe id=f src="{html.resolve().as_uri()}" '
               f'style="width:{width}px;height:100px;border:0"></iframe><script>'
               "document.getElementById('f').onload=function(){var d=this.contentDocument;"
               "document.body.setAttribute('data-h',d?d.documentElement.scrollHeight:-1);};"
               "</script></body>")
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "measure.html"
        page.write_text(wrapper)
        args = _browser_args(browser, width, 800) + [
            "--allow-file-access-from-files", "--virtual-time-budget=5000", "--dump-dom", page.as_uri()]
        proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    m = re.search(r'data-h="(\d+)"', proc.stdout)
    return int(m.group(1)) if m else None


def screenshot(browser: str, html: Path, png: Path, width: int, height: int) -> float:
    """The page at width x height CSS pixels; the browser's wall time in seconds."""
    args = _browser_args(browser, width, height) + [f"--screenshot={png}", html.resolve().as_uri()]
    t0 = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 or not png.is_file():
        sys.exit(f"render_report: {browser} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--html", type=Path, help="report to render (default: make a fresh compare report)")
    ap.add_argument("--png", type=Path, default=ROOT / "sim-report" / "render" / "report.png")
    ap.add_argument("--browser", help="browser executable (default: the first of %s on PATH)" % ", ".join(BROWSERS))
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, help="page height in CSS pixels (default: measured, "
                                                 "so the screenshot holds the whole page)")
    args = ap.parse_args(argv)
    browser = find_browser(args.browser)
    html = args.html or make_report(ROOT / "sim-report" / "render")
    text = html.read_text()
    bad = EXTERNAL.findall(text)
    if bad:
        sys.exit(f"render_report: {html} links outside itself: {bad[:3]}")
    args.png.parent.mkdir(parents=True, exist_ok=True)
    height = args.height or min(page_height(browser, html, args.width) or 6000, 30000)
    seconds = screenshot(browser, html, args.png, args.width, height)
    print(f"{args.png} ({args.width}x{height}, {args.png.stat().st_size} bytes, {html.stat().st_size} bytes of HTML, "
          f"rendered in {seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
