"""pgserver.py — a throwaway PostgreSQL server for the tests of a team's
history on PostgreSQL (test_history_server.py).

initdb in a temporary directory, pg_ctl start listening only on a Unix
socket in that directory (no TCP port unless tcp_port is given: then
also 127.0.0.1 at that port, for what libpq does over TCP only, such as
sslmode), trust authentication for the
local socket, stopped and removed by stop().  PostgreSQL refuses to run
as root: under root the server runs as user nobody (setpriv), the
directory given to it; the tests connect as the database superuser
"profan" over the socket.  The binaries come from PATH, else
/usr/lib/postgresql/*/bin (Debian's postgresql package).
"""
import glob
import os
import shutil
import subprocess
import tempfile

SUPERUSER = "profan"


def bindir():
    """The directory of initdb and pg_ctl, or None when not installed."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return os.path.dirname(os.path.realpath(found))
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.path.exists(os.path.join(d, "initdb")):
            return d
    return None


class PgServer:
    def __init__(self, tcp_port=None):
        """tcp_port: also listen on 127.0.0.1 at that port (the socket
        file then carries that number too)."""
        self.bin = bindir()
        self.tcp_port = tcp_port
        self.tmp = tempfile.mkdtemp(prefix="profan-pg-")
        self.data = os.path.join(self.tmp, "data")
        self.sock = self.tmp
        self.log = os.path.join(self.tmp, "server.log")
        self.running = False

    def _cmd(self, args):
        cmd = [os.path.join(self.bin, args[0])] + list(args[1:])
        if os.geteuid() == 0:
            cmd = ["setpriv", "--reuid=65534", "--regid=65534",
                   "--clear-groups"] + cmd
        return cmd

    def _run(self, *args, check=True):
        p = subprocess.run(self._cmd(args), capture_output=True, text=True,
                           timeout=120, stdin=subprocess.DEVNULL)
        if check and p.returncode != 0:
            raise AssertionError("%s failed: %s%s" % (args[0], p.stdout,
                                                      p.stderr))
        return p

    def start(self):
        if os.geteuid() == 0:
            os.chown(self.tmp, 65534, 65534)
        os.chmod(self.tmp, 0o755)
        self._run("initdb", "-D", self.data, "-U", SUPERUSER, "-A", "trust",
                  "-E", "UTF8", "--no-sync", "--locale=C")
        self.pg_ctl_start()
        return self

    def pg_ctl_start(self):
        opts = ("-c listen_addresses='%s' -c unix_socket_directories=%s"
                " -c fsync=off -c max_connections=60"
                % ("127.0.0.1" if self.tcp_port else "", self.sock))
        if self.tcp_port:
            opts += " -c port=%d" % self.tcp_port
        self._run("pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t",
                  "60", "-o", opts, "start")
        self.running = True

    def stop(self, mode="fast"):
        if self.running:
            self._run("pg_ctl", "-D", self.data, "-m", mode, "-w", "stop",
                      check=False)
            self.running = False

    def crash(self):
        """Every server process ended at once (pg_ctl stop -m immediate:
        SIGQUIT, no checkpoint, the crash recovery at the next start)."""
        self._run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        self.running = False

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def url(self, db="postgres", user=SUPERUSER):
        """A libpq connection string to the server."""
        if self.tcp_port:
            return "host=127.0.0.1 port=%d dbname=%s user=%s" % (
                self.tcp_port, db, user)
        return "host=%s dbname=%s user=%s" % (self.sock, db, user)

    def psql(self, sql, db="postgres"):
        """Rows of sql (psql, unaligned, '|' between columns)."""
        p = subprocess.run([os.path.join(self.bin, "psql"), "-X", "-A", "-t",
                            "-v", "ON_ERROR_STOP=1", "-h", self.sock, "-p",
                            str(self.tcp_port or 5432), "-U", SUPERUSER,
                            "-d", db, "-c", sql],
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            raise AssertionError("psql: " + p.stderr)
        return [ln.split("|") for ln in p.stdout.splitlines() if ln]
