#!/usr/bin/env python3
"""The editor driven by real X input events (xdotool), as a designer's mouse and keyboard.

    gui-input-test.py ALLIUM SAMPLE_MAP OUT

Runs itself again under xvfb-run, opens a copy of the sample .map in ALLIUM (which imports
it into OUT/sample.allium), and then, with the mouse and keys through the X server: B picks
the brush tool, a left drag in the top view draws a brush, Ctrl+Z and Ctrl+Shift+Z undo and
redo it, V picks the select tool, a left drag on the brush moves it, the Right arrow
nudges it, Ctrl+D copies it and Delete deletes the copy; then a click selects a brush,
Ctrl+C copies it, Ctrl+Shift+V pastes a copy in place and Ctrl+V one under the pointer
(each undone with Ctrl+Z).
After each step the map document itself (SQLite, read-only) must show the change; what the
editor draws is the self-test's business (gui-self-test.sh). Before those, W held over the
3D view (never clicked) and the Left arrow during a walk (after a click in the top view)
must change the 3D view's pixels, read with ImageMagick's import (skipped, visibly,
without it).

Exit status 0 when every check passed, 1 otherwise, 77 (skipped) without xvfb-run or
xdotool.
"""
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

TIMEOUT_S = 60


def skip(why):
    print(f"{why}: GUI input test skipped")
    sys.exit(77)


def outer():
    allium, sample, out = sys.argv[1:4]
    for tool in ("xvfb-run", "xdotool"):
        if not shutil.which(tool):
            skip(f"{tool} is not installed")
    shutil.rmtree(out, ignore_errors=True)
    for d in ("xdg/data", "xdg/config", "xdg/cache", "xdg/runtime"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    os.chmod(os.path.join(out, "xdg/runtime"), 0o700)
    env = dict(os.environ)
    env.update({
        "XDG_DATA_HOME": os.path.join(out, "xdg/data"),
        "XDG_CONFIG_HOME": os.path.join(out, "xdg/config"),
        "XDG_CACHE_HOME": os.path.join(out, "xdg/cache"),
        "XDG_RUNTIME_DIR": os.path.join(out, "xdg/runtime"),
        "LIBGL_ALWAYS_SOFTWARE": "1",
        "GDK_BACKEND": "x11",
        "GSETTINGS_BACKEND": "memory",
        "GTK_A11Y": "none",
    })
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    cmd = ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", sys.executable,
           os.path.abspath(__file__), "--inner", allium, sample, out]
    sys.exit(subprocess.call(cmd, env=env))


class Run:
    def __init__(self, document):
        self.document = document
        self.failures = []
        self.checks = 0

    def check(self, ok, what):
        self.checks += 1
        print(("ok - " if ok else "FAILED - ") + what, flush=True)
        if not ok:
            self.failures.append(what)
        return ok

    def query(self, sql):
        """One value from the document, or None while it cannot be read."""
        try:
            db = sqlite3.connect(f"file:{self.document}?mode=ro", uri=True, timeout=2)
            try:
                row = db.execute(sql).fetchone()
            finally:
                db.close()
            return row[0] if row else None
        except sqlite3.Error:
            return None

    def wait_for(self, sql, predicate, seconds=20):
        """Polls SQL until PREDICATE(value) holds; returns the last value."""
        end = time.monotonic() + seconds
        value = None
        while time.monotonic() < end:
            value = self.query(sql)
            if value is not None and predicate(value):
                return value
            time.sleep(0.1)
        return value


def xdo(*args):
    return subprocess.run(["xdotool", *map(str, args)], check=True, capture_output=True,
                          text=True).stdout.strip()


def drag(x0, y0, x1, y1, steps=12):
    """A left drag with the pointer moving as a hand would, in STEPS moves."""
    xdo("mousemove", x0, y0)
    time.sleep(0.2)
    xdo("mousedown", 1)
    time.sleep(0.1)
    for i in range(1, steps + 1):
        t = i / steps
        xdo("mousemove", round(x0 + t * (x1 - x0)), round(y0 + t * (y1 - y0)))
        time.sleep(0.03)
    time.sleep(0.1)
    xdo("mouseup", 1)


def key(name):
    xdo("key", "--clearmodifiers", name)


def hold(name, seconds):
    """Holds key NAME down for SECONDS (the X server repeats it, as a keyboard would)."""
    xdo("keydown", name)
    time.sleep(seconds)
    xdo("keyup", name)


def grab(x, y, w, h):
    """The screen's pixels in the rectangle, as raw RGB bytes (ImageMagick's import)."""
    return subprocess.run(["import", "-window", "root", "-crop", f"{w}x{h}+{x}+{y}",
                           "-depth", "8", "rgb:-"], check=True, capture_output=True).stdout


def steady(rect, seconds=15):
    """Waits until the rectangle stops changing (the light converging redraws the 3D
    view); its pixels then."""
    end = time.monotonic() + seconds
    last = grab(*rect)
    while time.monotonic() < end:
        time.sleep(0.5)
        now = grab(*rect)
        if now == last:
            return now
        last = now
    return last


def changed(a, b):
    """The share of the pixels that differ between two grabs of one rectangle."""
    pixels = len(a) // 3
    return sum(a[i:i + 3] != b[i:i + 3] for i in range(0, len(a), 3)) / max(pixels, 1)


def keys_reach_the_view_under_the_pointer(run, wx, wy, width, height):
    """W flies the 3D view under the pointer without a click first; during a walk, the
    arrow keys turn the walker though a click in the top view gave it the focus."""
    if not shutil.which("import"):
        print("# ImageMagick's import is not installed: the 3D view's pixels cannot be read, "
              "the key checks are skipped")
        return
    # The 3D view is the top left of the four: a rectangle inside it, under its header.
    view = (wx + round(width * 0.03), wy + round(height * 0.12),
            round(width * 0.25), round(height * 0.3))
    def holding_changes_view(name, seconds, what, wait_for_steady):
        before = steady(view, wait_for_steady)
        hold(name, seconds)
        time.sleep(0.5)
        share = changed(before, grab(*view))
        run.check(share > 0.3, f"{what} ({share:.0%} of the 3D view's pixels changed)")

    xdo("mousemove", view[0] + view[2] // 2, view[1] + view[3] // 2)
    holding_changes_view("w", 0.6, "W over the unclicked 3D view flew its camera", 15)
    key("g")
    time.sleep(1.0)
    # A click in the top view (where a designer draws during a walk) takes the focus.
    xdo("mousemove", wx + round(width * 0.52), wy + round(height * 0.85))
    time.sleep(0.2)
    xdo("click", 1)
    holding_changes_view("Left", 0.5, "during a walk the Left arrow turned the walker though "
                         "the top view had the focus", 5)
    key("Escape")
    time.sleep(0.5)


def inner():
    allium, sample, out = sys.argv[2:5]
    map_path = os.path.join(out, "sample.map")
    shutil.copy(sample, map_path)
    document = os.path.join(out, "sample.allium")
    run = Run(document)
    proc = subprocess.Popen([allium, map_path])
    try:
        steps(run, proc)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    print(f"gui input test: {run.checks - len(run.failures)} of {run.checks} checks passed")
    for f in run.failures:
        print(f"  - {f}")
    return 0 if not run.failures else 1


def steps(run, proc):
    window = None
    end = time.monotonic() + TIMEOUT_S
    while time.monotonic() < end and window is None and proc.poll() is None:
        try:
            window = xdo("search", "--name", "sample.allium").split()[0]
        except (subprocess.CalledProcessError, IndexError):
            time.sleep(0.2)
    if not run.check(window is not None, "the editor opened the map in a window"):
        return
    # The first compile is stored in the document's cache: the map is compiled and drawn.
    cached = run.wait_for("SELECT count(*) FROM cache", lambda n: n > 0, TIMEOUT_S)
    if not run.check(cached, "the map compiled (its world is in the document's cache)"):
        return
    time.sleep(1.0)
    geometry = dict(line.split("=") for line in
                    xdo("getwindowgeometry", "--shell", window).splitlines())
    wx, wy = int(geometry["X"]), int(geometry["Y"])
    width, height = int(geometry["WIDTH"]), int(geometry["HEIGHT"])
    xdo("windowfocus", "--sync", window)
    keys_reach_the_view_under_the_pointer(run, wx, wy, width, height)
    before = run.query("SELECT count(*) FROM brushes")
    run.check(before and before > 0, f"the map has brushes ({before})")

    # The top view is the top right of the four, left of the side panel (whose width
    # depends on its pages): a box near the view's middle, away from its header and edges.
    x0, y0 = wx + round(width * 0.52), wy + round(height * 0.30)
    # Large, so that its middle stays well inside it (and away from the resize handles on
    # its outline) should a banner come or go and move the views a little.
    x1, y1 = x0 + 160, y0 + 120
    xdo("mousemove", x0, y0)  # the view under the pointer gets the keys
    key("b")
    drag(x0, y0, x1, y1)
    count = run.wait_for("SELECT count(*) FROM brushes", lambda n: n == before + 1)
    run.check(count == before + 1, f"B and a drag in the top view drew a brush ({count} brushes)")
    new = run.query("SELECT max(id) FROM brushes")
    box = run.query(f"SELECT printf('%g %g %g %g %g %g', minx, miny, minz, maxx, maxy, maxz) "
                    f"FROM brushes WHERE id = {new}")
    print(f"# the new brush: {box}")
    grid = 16
    on_grid = box and all(float(v) % grid == 0 for v in box.split()[:2] + box.split()[3:5])
    run.check(bool(on_grid), f"its corners lie on the grid ({box})")

    key("ctrl+z")
    count = run.wait_for("SELECT count(*) FROM brushes", lambda n: n == before)
    run.check(count == before, "Ctrl+Z took it back")
    key("ctrl+shift+z")
    count = run.wait_for("SELECT count(*) FROM brushes", lambda n: n == before + 1)
    run.check(count == before + 1, "Ctrl+Shift+Z put it back")
    minx = run.query(f"SELECT minx FROM brushes WHERE id = {new}")
    # What the views show (and so what a drag can grab) is the compiled map: give the
    # redo's compile time to arrive (the sample takes about 0.1 s).
    time.sleep(1.5)

    # The select tool: a drag that starts on the (still selected) brush moves it right.
    key("v")
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    drag(cx, cy, cx + 40, cy)
    moved = run.wait_for(f"SELECT minx FROM brushes WHERE id = {new}",
                         lambda v: minx is not None and v > minx)
    run.check(moved is not None and minx is not None and moved > minx
              and (moved - minx) % grid == 0,
              f"V and a drag on the brush moved it right by whole grid steps "
              f"(min x {minx} -> {moved})")

    # The arrow keys nudge it a grid step in the view under the pointer.
    key("Right")
    nudged = run.wait_for(f"SELECT minx FROM brushes WHERE id = {new}",
                          lambda v: moved is not None and v > moved)
    run.check(nudged is not None and moved is not None and nudged - moved == grid,
              f"the Right arrow moved it one grid step (min x {moved} -> {nudged})")

    # Ctrl+D copies it beside itself and selects the copy, which Delete then deletes.
    time.sleep(1.0)
    key("ctrl+d")
    count = run.wait_for("SELECT count(*) FROM brushes", lambda n: n == before + 2)
    run.check(count == before + 2, f"Ctrl+D copied it ({count} brushes)")
    copy = run.query("SELECT max(id) FROM brushes")
    time.sleep(1.0)
    key("Delete")
    gone = run.wait_for(f"SELECT count(*) FROM brushes WHERE id = {copy}", lambda n: n == 0)
    count = run.query("SELECT count(*) FROM brushes")
    run.check(gone == 0 and count == before + 1 and copy != new,
              "Delete deleted the copy, and only it")

    # A click in the top view selects what is on top there; Ctrl+C copies it as .map text,
    # Ctrl+Shift+V pastes a copy in place (the same bounds as a brush of the map), Ctrl+V
    # with the pointer further left one under the pointer (the same size, whole grid steps
    # left, its height kept); Ctrl+Z takes each back.
    def bounds(row):
        b = run.query(f"SELECT printf('%g %g %g %g %g %g', minx, miny, minz, maxx, maxy, "
                      f"maxz) FROM brushes WHERE id = {row}")
        return [float(x) for x in b.split()] if b else None

    time.sleep(1.0)
    xdo("mousemove", cx + 46, cy)
    xdo("click", 1)
    time.sleep(0.5)
    key("ctrl+c")
    key("ctrl+shift+v")
    count = run.wait_for("SELECT count(*) FROM brushes", lambda n: n == before + 2)
    in_place = run.query("SELECT max(id) FROM brushes")
    b = bounds(in_place) or [0] * 6
    twins = run.query(f"SELECT count(*) FROM brushes WHERE id != {in_place} AND "
                      f"minx = {b[0]} AND miny = {b[1]} AND minz = {b[2]} AND maxx = {b[3]} "
                      f"AND maxy = {b[4]} AND maxz = {b[5]}")
    run.check(count == before + 2 and twins and twins >= 1,
              f"Ctrl+C and Ctrl+Shift+V pasted a copy in place of the brush clicked ({b})")
    key("ctrl+z")
    count = run.wait_for("SELECT count(*) FROM brushes", lambda n: n == before + 1)
    run.check(count == before + 1, "Ctrl+Z took the paste back")
    xdo("mousemove", x0 - 80, y0 + 60)
    time.sleep(0.3)
    key("ctrl+v")
    count = run.wait_for("SELECT count(*) FROM brushes", lambda n: n == before + 2)
    p = bounds(run.query("SELECT max(id) FROM brushes")) or [0] * 6
    same_size = all(p[3 + k] - p[k] == b[3 + k] - b[k] for k in range(3))
    run.check(count == before + 2 and same_size and p[0] < b[0] and (b[0] - p[0]) % grid == 0
              and p[2] == b[2],
              f"Ctrl+V pasted one under the pointer, whole grid steps left, height kept "
              f"({b} -> {p})")
    key("ctrl+z")
    count = run.wait_for("SELECT count(*) FROM brushes", lambda n: n == before + 1)
    run.check(count == before + 1, "and Ctrl+Z took it back")
    run.check(proc.poll() is None, "the editor is still running")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--inner":
        sys.exit(inner())
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    outer()
