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
the node adds its trace to the same run (merge waits for the database
lock while another rank writes).  After the job, one `profan merge --into
job.db NODE_SHARD...` combines the nodes' shards into one run.

A failed ingest never stops training: the handler prints one line to
stderr and keeps the trace file (ingest it later by hand).

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
    several times adds "-2", "-3"... for its later traces).  profan: the
    binary (default $PROFAN_BIN, else "profan" on PATH).  keep_trace=False
    removes the trace file once it is ingested.  tags: "KEY=VALUE"
    strings for `profan ingest --tag`."""
    state = {"worker": worker_name, "calls": 0}

    def handler_fn(prof):
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) \
                    from e
        if not state["worker"]:
            state["worker"] = "%s_%d" % (socket.gethostname(), os.getpid())
        file_name = "%s.%d.pt.trace.json" % (state["worker"], time.time_ns())
        if use_gzip:
            file_name += ".gz"
        path = os.path.join(dir_name, file_name)
        prof.export_chrome_trace(path)
        state["calls"] += 1
        name = run_name or default_run_name()
        if state["calls"] > 1:
            name = "%s-%d" % (name, state["calls"])
        shard = db or os.path.join(dir_name,
                                   socket.gethostname() + ".profan.db")
        if ingest(path, shard, name, profan, tags) and not keep_trace:
            os.remove(path)
        return path

    return handler_fn


def _run(cmd):
    """Run cmd; (exit code, stderr text)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        return p.returncode, p.stderr
    except OSError as e:
        return 127, str(e)


def ingest(path, shard, name, profan=None, tags=()):
    """Load trace `path` into run `name` of database `shard` (created when
    missing, the run too).  Returns True on success; on failure prints
    one line to stderr and returns False."""
    exe = profan or os.environ.get("PROFAN_BIN") or "profan"
    private = "%s.%d.ingest.db" % (path, os.getpid())
    cmd = [exe, "--db", private, "ingest", "--quiet", "--name", name]
    for t in tags:
        cmd += ["--tag", t]
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
        sys.stderr.write("profan_torch: %s not ingested into %s (exit %d):"
                         " %s\n" % (path, shard, rc,
                                    lines[-1] if lines else "no message"))
        return False
    return True
