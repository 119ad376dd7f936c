"""fblib: shared pieces of fabricbench's run/ tools: the apps and profiles,
launching a run, reading run records strictly, and small statistics."""
import json
import math
import os
import shlex
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = "fabricbench.run/1"

# app -> binary, relative to the checkout
BINARIES = {
    "himeno": "himeno/bmt",
    "stream": "stream/stream",
    "pingpong": "pingpong/pingpong",
    "hpl": "hpl_lite/hpl",
    "weather": "halo_weather/weather",
    "md": "md_shear/md",
}

# pingpong needs a pair of ranks and is skipped on one.
# Every profile solves the SAME global problem on one node and on two (strong
# scaling), so "percent of 2x single-node" is fom(2 nodes) / (2 fom(1 node)):
# himeno keeps its grid, hpl its N and NB; stream keeps its global array length, split over the
# ranks ({np} is substituted); pingpong always measures one pair.
PROFILES = {
    "tiny": {  # for the tests: seconds per run
        "himeno": "-s XS -n 50",
        "stream": "-n {stream_n} -r 3",
        "pingpong": "-m 1:1K -i 20 -x 2",
        "hpl": "-N 300 -b 32",
        "md": "-i inputs/md/lj_bench.ini -n 20",
        "weather": "-i inputs/weather/tiny.ini --no-output",
        "_stream_total": 1 << 18,
    },
    "quick": {  # a few minutes on a laptop
        "himeno": "-s S -t 3",
        "stream": "-n {stream_n} -r 10",
        "pingpong": "-m 1:4M -i 200",
        "hpl": "-N 4000 -b 96",
        "md": "-i inputs/md/shear.ini",
        "weather": "-i inputs/weather/wrf30.ini -n 72 --no-output",
        "_stream_total": 1 << 24,
    },
    "standard": {  # what a report uses
        "himeno": "-s M -t 20",
        "stream": "-n {stream_n} -r 20",
        "pingpong": "-m 1:8M -i 1000",
        "hpl": "-N 12000 -b 128",
        "md": "-i inputs/md/shear_big.ini",
        "weather": "-i inputs/weather/wrf30.ini --no-output",
        "_stream_total": 1 << 26,
    },
    "full": {  # cluster-sized
        "himeno": "-s L -t 60",
        "stream": "-n {stream_n} -r 50",
        "pingpong": "-m 1:8M -i 5000",
        "hpl": "-N 40000 -b 192",
        "md": "-i inputs/md/shear_big.ini --replicate 8x1x16 -n 3000",
        "weather": "-i inputs/weather/conus12.ini --no-output",
        "_stream_total": 1 << 28,
    },
}

# Parameters that define the problem: records compared across labels must
# agree on them. (Iteration counts of time-based runs may differ.)
PROBLEM_KEYS = {
    "himeno": ["size"],
    "stream": ["global_elements", "nt", "no-sync"],
    "pingpong": ["test", "message-sizes", "pairs"],
    "hpl": ["N", "NB", "seed"],
    "md": ["input", "atoms", "steps"],
    "weather": ["input", "grid_points", "steps"],
}

# Phases counted as communication or I/O; everything else is compute.
COMM_PHASES = {"halo", "allreduce", "sync", "comm", "bcast", "broadcast", "swap",
               "exchange", "reductions", "latency", "bw", "bibw", "ghost", "migrate"}
IO_PHASES = {"io", "output", "restart"}


class RecordError(Exception):
    """A record file that cannot be used; the message names file and line."""


def die(tool, message, code=2):
    print("%s: error: %s" % (tool, message), file=sys.stderr)
    sys.exit(code)


def app_args(profile, app, np):
    p = PROFILES[profile]
    stream_n = max(1, p["_stream_total"] // max(1, np))
    return p[app].format(stream_n=stream_n)


def launcher_command(template, np, hostfile, binary, args, json_path):
    cmd = template.format(np=np, hostfile=hostfile or "")
    return "%s %s %s --json %s" % (cmd, shlex.quote(os.path.join(ROOT, binary)), args,
                                   shlex.quote(json_path))


def mpi_env():
    env = dict(os.environ)
    if os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    env.setdefault("OMP_NUM_THREADS", "1")       # pure MPI unless the user says otherwise
    env.setdefault("OPENBLAS_NUM_THREADS", "1")  # one BLAS thread per rank (hpl)
    return env


def run_logged(command, log_path, timeout=None):
    """Runs a shell command, appending its output to log_path; returns the exit code."""
    with open(log_path, "a") as log:
        log.write("$ %s\n" % command)
        log.flush()
        try:
            return subprocess.call(command, shell=True, stdout=log, stderr=subprocess.STDOUT,
                                   env=mpi_env(), timeout=timeout)
        except subprocess.TimeoutExpired:
            return 124


def read_records(path):
    """Every record of a JSON Lines file, as (line number, record). Strict:
    empty files, unparsable lines and records without the schema are errors."""
    try:
        with open(path) as f:
            lines = f.readlines()
    except OSError as e:
        raise RecordError("%s: cannot read: %s" % (path, e.strerror))
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError as e:
            raise RecordError("%s:%d: not a JSON record (%s)" % (path, number, e))
        if not isinstance(rec, dict) or rec.get("schema") != SCHEMA:
            raise RecordError("%s:%d: not a %s record" % (path, number, SCHEMA))
        for key in ("app", "fom", "validation", "phases", "params", "ranks"):
            if key not in rec:
                raise RecordError("%s:%d: record lacks '%s'" % (path, number, key))
        out.append((number, rec))
    if not out:
        raise RecordError("%s: no records (empty file)" % path)
    return out


def problem(rec):
    """The parameters that define an app's problem, for cross-label checks."""
    params = dict(rec.get("params", {}))
    if rec["app"] == "stream":
        params["global_elements"] = params.get("elements_per_rank", 0) * rec["ranks"]
    return {k: params.get(k) for k in PROBLEM_KEYS.get(rec["app"], [])}


def split_phases(rec):
    """Fractions of the loop in compute, communication and I/O (max over ranks)."""
    total = {"compute": 0.0, "comm": 0.0, "io": 0.0}
    for name, st in rec.get("phases", {}).items():
        kind = "comm" if name in COMM_PHASES else "io" if name in IO_PHASES else "compute"
        total[kind] += st.get("max", 0.0)
    s = sum(total.values())
    return {k: (v / s if s > 0 else 0.0) for k, v in total.items()}


# Two-sided 97.5% quantiles of Student's t for n-1 degrees of freedom.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086]


def summary(values):
    """median, mean and 95% confidence interval of the mean (None for n < 2)."""
    n = len(values)
    med = statistics.median(values)
    mean = statistics.fmean(values)
    if n < 2:
        return {"n": n, "median": med, "mean": mean, "ci95": None}
    t = T975[n - 2] if n - 2 < len(T975) else 1.96
    half = t * statistics.stdev(values) / math.sqrt(n)
    return {"n": n, "median": med, "mean": mean, "ci95": [mean - half, mean + half]}


def fmt_duration(seconds):
    seconds = int(round(seconds))
    return "%dm%02ds" % (seconds // 60, seconds % 60) if seconds >= 60 else "%ds" % seconds


def now():
    return time.monotonic()


SYSTEM_PYTHON = "/usr/bin/python3"
DEBIAN_PACKAGE = {"matplotlib": "python3-matplotlib", "scipy": "python3-scipy", "numpy": "python3-numpy",
                  "netCDF4": "python3-netcdf4", "xarray": "python3-xarray", "jsonschema": "python3-jsonschema"}


def need_modules(tool, names):
    """Imports the modules a tool needs. When this interpreter lacks one
    (a pyenv or venv python3 first on PATH) and Debian's /usr/bin/python3
    has them, the tool re-runs itself there; otherwise one line, exit 3."""
    missing = []
    for name in names:
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    if not missing:
        return
    here = os.path.realpath(sys.executable)
    if here != os.path.realpath(SYSTEM_PYTHON) and os.access(SYSTEM_PYTHON, os.X_OK) and \
            subprocess.call([SYSTEM_PYTHON, "-c", "import " + ", ".join(names)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0:
        sys.stdout.flush()
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, os.path.abspath(sys.argv[0])] + sys.argv[1:])
    die(tool, "needs the Python module%s %s (Debian: apt-get install %s; run/install-deps installs it)"
        % ("s" if len(missing) > 1 else "", ", ".join(missing),
           " ".join(DEBIAN_PACKAGE.get(m, "python3-" + m.lower()) for m in missing)), 3)


def output_problem(path):
    """None when path can be written as a whole file (the apps' rule: a
    regular file or a symlink to one, in a folder that exists and can be
    written), else the reason."""
    if not path:
        return "empty file name"
    target = os.path.realpath(path) if os.path.islink(path) else path
    if os.path.islink(path) and not os.path.exists(target):
        return "'%s' is a symlink to nothing" % path
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        return "no folder '%s' for '%s'" % (folder, path)
    if not os.access(folder, os.W_OK | os.X_OK):
        return "cannot write in '%s'" % folder
    if os.path.exists(target):
        if os.path.isdir(target):
            return "'%s' is a directory, not a regular file" % path
        if not os.path.isfile(target):
            return "'%s' is not a regular file (a device, FIFO or socket)" % path
        if not os.access(target, os.W_OK):
            return "cannot write '%s'" % path
    if len(os.path.basename(target)) > 230:
        return "'%s': the file name is too long" % path
    return None


def check_output(tool, what, path):
    why = output_problem(path)
    if why:
        die(tool, "%s: %s" % (what, why))


def check_launcher(tool, template, allowed=("np", "hostfile")):
    """A launch template: {np} (and {hostfile}) and nothing else in braces."""
    import string
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as e:
        die(tool, "--launcher '%s': %s" % (template, e))
    for f in fields:
        if f not in allowed:
            die(tool, "--launcher: unknown placeholder {%s} (known: %s)"
                % (f, ", ".join("{%s}" % x for x in allowed)))
    if "np" not in fields:
        die(tool, "--launcher must contain {np}")


def check_folder(tool, what, path):
    """A results folder: made if missing; refused when it cannot be."""
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        die(tool, "%s %s: cannot make the folder: %s" % (what, path, e.strerror or e))
    if not os.access(path, os.W_OK | os.X_OK):
        die(tool, "%s %s: cannot write in it" % (what, path))


def write_atomic(path, data, mode="w"):
    """Writes a whole file through a temporary name beside it (symlinks kept)."""
    target = os.path.realpath(path) if os.path.islink(path) else path
    folder = os.path.dirname(os.path.abspath(target))
    tmp = os.path.join(folder, ".%s.tmp.%d" % (os.path.basename(target), os.getpid()))
    try:
        with open(tmp, mode) as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def save_figure(tool, fig, path):
    """Saves a matplotlib figure through a temporary name (format from the
    extension: png, svg or pdf)."""
    ext = os.path.splitext(path)[1].lower().lstrip(".") or "png"
    if ext not in ("png", "svg", "pdf"):
        die(tool, "%s: the figure's extension must be .png, .svg or .pdf" % path)
    target = os.path.realpath(path) if os.path.islink(path) else path
    folder = os.path.dirname(os.path.abspath(target))
    tmp = os.path.join(folder, ".%s.tmp.%d.%s" % (os.path.basename(target), os.getpid(), ext))
    try:
        fig.savefig(tmp, format=ext, dpi=110)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def main_guard(tool, main):
    """Runs a tool's main: every failure ends in one line, never a traceback
    (2 for bad input, 3 for I/O, 130 / 143 when interrupted)."""
    import signal

    def terminated(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, terminated)
    try:
        code = main()
    except KeyboardInterrupt:
        print("%s: interrupted" % tool, file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except RecordError as e:
        die(tool, str(e))
    except UnicodeDecodeError as e:
        die(tool, "a file is not UTF-8 text (%s)" % e.reason)
    except OSError as e:
        die(tool, "%s%s" % (e.strerror or e, ": %s" % e.filename if e.filename else ""), 3)
    except (ValueError, KeyError, TypeError, ZeroDivisionError) as e:
        die(tool, "bad input: %s: %s" % (type(e).__name__, e))
    sys.exit(code or 0)


# Emulated links: rate (Mbit/s) and one-way latency (us); the injector's beta
# is the payload rate, 93.6% of the line rate (headers of 1500-byte frames).
EMULATION = {"loopback": (0, 0), "1gbe": (1000, 50), "10gbe": (10000, 10), "25gbe": (25000, 5)}
PAYLOAD = 0.936


def mpi_flavour(launcher="mpirun"):
    try:
        out = subprocess.run([launcher.split()[0], "--version"], capture_output=True,
                             text=True).stdout
    except OSError:
        return "unknown"
    return "openmpi" if "Open MPI" in out or "OpenRTE" in out else "mpich"


class Emulation:
    """run/fabric-emu for the suite: namespaces with tc shaping where root is
    available (the injector adds the latency where the kernel has no netem),
    else the MPI-level injector alone. Always brought down on exit."""

    def __init__(self, spec, nodes, ranks_per_node):
        mode, _, self.profile = spec.rpartition(":")
        self.rate, self.delay = EMULATION[self.profile]
        self.nodes, self.rpn = nodes, ranks_per_node
        self.emu = os.path.join(ROOT, "run", "fabric-emu")
        self.netns = mode != "inject" and os.geteuid() == 0 and subprocess.call(
            ["ip", "netns", "list"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0
        self.netem = False
        self.why = "" if self.netns else ("inject: was asked" if mode == "inject" else
                                          "no root for network namespaces")

    def __enter__(self):
        if self.netns:
            up = subprocess.run([self.emu, "up", "--hosts", str(self.nodes), "--slots",
                                 str(self.rpn), "--profile", self.profile],
                                capture_output=True, text=True)
            sys.stdout.write(up.stdout)
            if up.returncode != 0:
                # fabric-emu checked the namespaces and said why they cannot be used
                # (a chroot, a container, no bridge or tc): fall back to the injector.
                self.netns = False
                lines = [x for x in up.stderr.splitlines() if x.strip()]
                reason = lines[-1] if lines else "fabric-emu up failed (exit %d)" % up.returncode
                self.why = reason.replace("fabric-emu: error: ", "")
            else:
                with open("/run/fabricbench-emu/config") as f:
                    self.netem = "netem=1" in f.read()
        return self

    def __exit__(self, *exc):
        if self.netns:
            subprocess.call([self.emu, "down"])
        return False

    def describe(self):
        if self.netns:
            return ("%d emulated nodes in network namespaces, %s (rate %d Mbit/s by tc%s)"
                    % (self.nodes, self.profile, self.rate,
                       ", latency %d us by netem" % self.delay if self.netem else
                       ", latency %d us by the MPI-level injector (no netem)" % self.delay))
        return ("%d virtual nodes by the MPI-level injector, %s (alpha %d us, beta %.1f MB/s; %s)"
                % (self.nodes, self.profile, self.delay, self.rate / 8 * PAYLOAD, self.why))

    def launcher(self, template):
        lib = os.path.join(ROOT, "build", "libfbinject.so")
        env = {}
        if self.netns and self.delay and not self.netem:
            env = {"FB_INJECT_ALPHA_US": self.delay, "FB_INJECT_BETA_MBS": 0}
        elif not self.netns and self.rate:
            env = {"FB_INJECT_ALPHA_US": self.delay, "FB_INJECT_BETA_MBS": "%.1f" % (self.rate / 8 * PAYLOAD)}
        if env:
            env["FB_INJECT_RANKS_PER_NODE"] = self.rpn
            env["LD_PRELOAD"] = lib
        openmpi = mpi_flavour(template) == "openmpi"
        flags = " ".join(("-x %s=%s" if openmpi else "-genv %s %s") % (k, v) for k, v in env.items())
        extra = ""
        if self.netns:
            extra = subprocess.run([self.emu, "mpirun-args"], capture_output=True,
                                   text=True).stdout.strip()
        return " ".join(x for x in (template, extra, flags) if x)
