"""cdp.py — a minimal Chrome DevTools Protocol client over a pipe.

Part of the browser test (tests/browser/run_browser.py), which opens the
HTML reports in headless Chromium.  Python standard library only.

Chromium started with --remote-debugging-pipe reads protocol messages on
its fd 3 and writes them on its fd 4; each message is one JSON object
terminated by a NUL byte.  Browser starts the process with a fresh profile
directory, sends commands and collects the events that arrive; every read
has a deadline, so a wedged browser ends in CDPError, never a hang.
Browser.close() (also on `with` exit) kills the process group and
removes the profile; if this process dies first, Chromium sees the pipe
close and exits by itself.
"""
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time


class CDPError(Exception):
    """A protocol error, a timeout or a browser that went away."""


def find_chromium():
    """Path of the Chromium binary: $PROFAN_CHROMIUM, else the first of
    chromium, chromium-browser, google-chrome on PATH; None when none."""
    env = os.environ.get("PROFAN_CHROMIUM")
    if env:
        return env
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


# Flags for a quiet, reproducible, offline headless browser.  --no-sandbox
# because the tests may run as root (CI containers).
CHROMIUM_FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu",
    "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
    "--disable-extensions", "--disable-background-networking",
    "--disable-component-update", "--disable-default-apps", "--disable-sync",
    "--disable-features=Translate,MediaRouter,OptimizationHints",
    "--mute-audio", "--hide-scrollbars", "--force-color-profile=srgb",
]


def _child_fds(to_chrome_r, from_chrome_w):
    """preexec_fn: puts the command pipe on fd 3 and the reply pipe on fd 4
    in the child.  dup() first so that neither target clobbers the other."""
    a = os.dup(to_chrome_r)
    b = os.dup(from_chrome_w)
    os.dup2(a, 3)
    os.dup2(b, 4)


class Browser:
    """One headless Chromium process driven over the debugging pipe."""

    def __init__(self, binary, width=1280, height=900, log_path=None):
        self.profile = tempfile.mkdtemp(prefix="profan-chromium-")
        to_r, self._to_w = os.pipe()
        self._from_r, from_w = os.pipe()
        self._log = open(log_path or os.devnull, "wb")
        args = [binary] + CHROMIUM_FLAGS + [
            "--user-data-dir=" + self.profile,
            "--window-size=%d,%d" % (width, height), "about:blank"]
        try:
            self.proc = subprocess.Popen(
                args, stdin=subprocess.DEVNULL, stdout=self._log,
                stderr=self._log, close_fds=False, start_new_session=True,
                preexec_fn=lambda: _child_fds(to_r, from_w))
        except OSError as e:
            self.proc = None
            for fd in (self._to_w, self._from_r):
                os.close(fd)
            self._log.close()
            shutil.rmtree(self.profile, ignore_errors=True)
            raise CDPError("cannot start %s: %s" % (binary, e))
        finally:
            os.close(to_r)
            os.close(from_w)
        self._buf = b""
        self._next_id = 0
        self.events = []   # (sessionId or None, method, params), in order

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Kills the browser (its whole process group) and removes the
        profile directory.  Safe to call twice."""
        if self.proc is not None:
            for fd in (self._to_w, self._from_r):
                try:
                    os.close(fd)
                except OSError:
                    pass
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
            self.proc = None
            self._log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self, deadline, what="the browser"):
        """Next message from the browser as a dict; CDPError naming `what`
        when the deadline passes, or when the pipe closes."""
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError("timed out waiting for " + what)
            ready, _, _ = select.select([self._from_r], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._from_r, 1 << 20)
            if not chunk:
                raise CDPError("browser closed the pipe (exit status %s)"
                               % self.proc.poll())
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method, params=None, session=None, timeout=30.0):
        """Sends one command and returns its result dict; events that
        arrive meanwhile are appended to self.events.  CDPError on a
        protocol error or after timeout seconds."""
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self._to_w, data):]
        except OSError as e:
            raise CDPError("cannot write to the browser: %s" % e)
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline, "the reply to " + method)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise CDPError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            if "method" in reply:
                self.events.append((reply.get("sessionId"), reply["method"],
                                    reply.get("params", {})))

    def wait_event(self, method, session=None, timeout=30.0, start=0):
        """Waits for event `method` (on `session`) at index >= start of
        self.events and returns its params; CDPError after timeout."""
        deadline = time.monotonic() + timeout
        i = start
        while True:
            while i < len(self.events):
                s, m, p = self.events[i]
                if m == method and (session is None or s == session):
                    return p
                i += 1
            msg = self._read_message(deadline, method)
            if "method" in msg:
                self.events.append((msg.get("sessionId"), msg["method"],
                                    msg.get("params", {})))

    def drain(self, seconds):
        """Collects events for `seconds` (late console messages and
        requests after the load event)."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                msg = self._read_message(deadline)
                if "method" in msg:
                    self.events.append((msg.get("sessionId"), msg["method"],
                                        msg.get("params", {})))
        except CDPError:
            if self.proc.poll() is not None:
                raise

    def new_page(self, timeout=30.0):
        """Creates a blank page target and attaches to it (flat mode);
        returns (target id, session id)."""
        target = self.send("Target.createTarget", {"url": "about:blank"},
                           timeout=timeout)["targetId"]
        session = self.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True},
                            timeout=timeout)["sessionId"]
        return target, session
