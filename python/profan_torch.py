"""profan_torch.py — ingest PyTorch profiler traces where they are written.

A drop-in for torch.profiler.tensorboard_trace_handler (standard library
only; torch itself is not imported):

    from profan_torch import profan_trace_handler
    with torch.profiler.profile(
            schedule=torch.profiler.schedule(wait=1, warmup=1, active=3),
            on_trace_ready=profan_trace_handler("traces/")) as prof:
        for batch in loader:
            train_step(batch)
            prof.step()

Each time the profiler has a trace ready, the handler writes it exactly as
tensorboard_trace_handler does (DIR/<worker>.<time_ns>.pt.trace.json[.gz],
<worker> = <hostname>_<pid> unless given), then loads it into this node's
shard database (DIR/<hostname>.profan.db unless given) by running the
profan binary: `profan ingest` into a private database, then `profan
merge --into SHARD --name RUN` into the node's run, so that every rank of
the node, and every later cycle of the profiler (another window of the
same ranks), adds its trace to the same run (merge waits for the database
lock while another rank writes).  After the job, one `profan merge --into
job.db NODE_SHARD...` combines the nodes' shards into one run.

A PyTorch built without Kineto (Debian's python3-torch, source builds,
every release before 1.8) writes the legacy Chrome trace: a bare JSON
array without the rank or the clock the events count from.  For such a
trace the handler passes the rank (torch.distributed's when it is
initialized, else $RANK) and the profiler's start time
(`--rank`, `--base-time`), so that ranks and cycles line up in time.

Nothing the handler does stops training: a directory it cannot write, a
missing profan binary or a failed ingest prints one line to stderr
(`profan_torch: ...`) and the training loop goes on; a trace that was
written is kept (ingest it later by hand).

Pipeline position: in the training job, before profan's ingest.
"""
import os
import socket
import subprocess
import sys
import time

__all__ = ["profan_trace_handler", "default_run_name"]


def default_run_name():
    """The job's name for its run: the launcher's job id when there is one
    (Slurm, torchrun/TorchElastic, Kubernetes), else "run"."""
    for key in ("PROFAN_RUN", "SLURM_JOB_ID", "TORCHELASTIC_RUN_ID",
                "JOB_ID", "HOSTNAME_JOB"):
        v = os.environ.get(key)
        if v and v != "none":
            return v if key == "PROFAN_RUN" else "job-" + v
    return "run"


def profan_trace_handler(dir_name, worker_name=None, use_gzip=False,
                         db=None, run_name=None, profan=None,
                         keep_trace=True, tags=()):
    """An on_trace_ready callable: write the trace as
    tensorboard_trace_handler(dir_name, worker_name, use_gzip) does and
    ingest it into the node's shard db (default DIR/<hostname>.profan.db)
    as run run_name (default: default_run_name(); a profiler that fires
    several times adds each later trace to the same run).  profan: the
    binary (default $PROFAN_BIN, else "profan" on PATH).  keep_trace=False
    removes the trace file once it is ingested.  tags: "KEY=VALUE"
    strings for `profan ingest --tag`.  Returns the trace's path, or None
    when it could not be written (one line on stderr says why)."""
    state = {"worker": worker_name}

    def handler_fn(prof):
        try:
            path = _write_trace(prof, dir_name, state, use_gzip)
        except Exception as e:        # never stop training over a trace
            _say("trace not written to %s: %s" % (dir_name, _reason(e)))
            return None
        name = run_name or default_run_name()
        shard = db or os.path.join(dir_name,
                                   socket.gethostname() + ".profan.db")
        extra = []
        if _is_legacy_trace(path):
            rank = _rank()
            if rank is not None:
                extra += ["--rank", str(rank)]
            base = _legacy_base_ns(prof)
            if base is not None:
                extra += ["--base-time", str(base)]
        try:
            done = ingest(path, shard, name, profan, tags, extra)
        except Exception as e:
            _say("%s not ingested into %s: %s" % (path, shard, _reason(e)))
            done = False
        if done and not keep_trace:
            try:
                os.remove(path)
            except OSError:
                pass
        return path

    return handler_fn


def _say(msg):
    """One line on stderr."""
    try:
        sys.stderr.write("profan_torch: %s\n" % msg.replace("\n", " "))
    except Exception:
        pass


def _reason(e):
    """An exception as a short reason: its message, else its type."""
    return str(e) or type(e).__name__


def _write_trace(prof, dir_name, state, use_gzip):
    """Export the profiler's trace under tensorboard_trace_handler's name;
    returns its path (exceptions: the directory or the file)."""
    os.makedirs(dir_name, exist_ok=True)
    if not state["worker"]:
        state["worker"] = "%s_%d" % (socket.gethostname(), os.getpid())
    file_name = "%s.%d.pt.trace.json" % (state["worker"], time.time_ns())
    if use_gzip:
        file_name += ".gz"
    path = os.path.join(dir_name, file_name)
    prof.export_chrome_trace(path)
    return path


def _is_legacy_trace(path):
    """True when the trace is the legacy exporter's bare JSON array."""
    import gzip
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rb") as f:
            head = f.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
        return head[:1] == b"["
    except Exception:
        return False


def _rank():
    """This process's rank: torch.distributed's when the training script
    initialized it (torch is not imported here), else $RANK, else None."""
    dist = sys.modules.get("torch.distributed")
    try:
        if dist is not None and dist.is_available() and dist.is_initialized():
            return int(dist.get_rank())
    except Exception:
        pass
    r = os.environ.get("RANK", "")
    return int(r) if r.isdigit() else None


def _legacy_base_ns(prof):
    """Epoch ns that a legacy trace's times count from: the profiler's
    start (trace_start_us() of its results, which PyTorch 1.13 keeps), or
    None (an older profiler: the trace stays of unknown origin)."""
    try:
        us = prof.profiler.kineto_results.trace_start_us()
        return int(us) * 1000 if us and int(us) > 0 else None
    except Exception:
        return None


def _run(cmd):
    """Run cmd; (exit code, stderr text)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        return p.returncode, p.stderr
    except Exception as e:             # no binary, not executable, ...
        return 127, _reason(e)


def ingest(path, shard, name, profan=None, tags=(), extra=()):
    """Load trace `path` into run `name` of database `shard` (created when
    missing, the run too).  extra: more `profan ingest` options.  Returns
    True on success; on failure prints one line to stderr and returns
    False."""
    exe = profan or os.environ.get("PROFAN_BIN") or "profan"
    private = "%s.%d.ingest.db" % (path, os.getpid())
    cmd = [exe, "--db", private, "ingest", "--quiet", "--name", name]
    for t in tags:
        cmd += ["--tag", t]
    cmd += list(extra)
    rc, err = _run(cmd + [path])
    if rc == 0:
        rc, err = _run([exe, "merge", "--quiet", "--into", shard, "--name",
                        name, private])
    for suffix in ("", "-wal", "-shm"):
        try:
            os.remove(private + suffix)
        except OSError:
            pass
    if rc != 0:
        lines = err.strip().splitlines()
        _say("%s not ingested into %s (exit %d): %s"
             % (path, shard, rc, lines[-1] if lines else "no message"))
        return False
    return True
