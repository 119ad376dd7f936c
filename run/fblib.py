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


def built_apps():
    """The apps whose binary is built in this checkout, in BINARIES order
    (what the suite runs when --apps is not given)."""
    return [app for app, b in BINARIES.items() if os.access(os.path.join(ROOT, b), os.X_OK)]


PAIR_APPS = ("pingpong",)  # they measure a pair of ranks: skipped on one


def apps_for_ranks(apps, np):
    """The apps a run of np ranks runs: apps, less those that need a pair of
    ranks when np is 1 (the suite's rule; finish.sh lists a cancelled job's
    apps by it)."""
    return [a for a in apps if np >= 2 or a not in PAIR_APPS]

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
        "pingpong": "--test latency,bw -m 1:1M -i 100",
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

# Parameters an app chooses at run time that change its speed but not its
# answer (the code path), and how a user fixes them. Records compared across
# labels may differ in them, but a FOM ratio between two code paths is not
# the fabric's alone, so run/compare and run/report say so.
CODE_PATH_KEYS = {
    "himeno": (["coefficients", "stores"], "bmt's --layout, --vector-width, --prefetch and "
               "--nt-stores fix it (run/suite --app-args himeno='--layout split --vector-width 256 "
               "--prefetch off --nt-stores off')"),
    "hpl": (["blas_kernel"], "OPENBLAS_CORETYPE fixes it"),
    # The kernel's transparent huge pages (its mode is the record's thp):
    # over shared memory a 1 MiB message took half as long from huge pages
    # on a Zen 4 VM (docs/apps/pingpong.md). stream's vector width, which
    # --vector-width auto times (one core of a Zen 4 VM streamed 19% faster
    # in 128-bit vectors than in 512, docs/apps/stream.md).
    "stream": (["pages", "vector_width"],
               "--no-huge-pages and --vector-width on every label fix them (run/suite "
               "--app-args stream='--no-huge-pages --vector-width 128'), as do hosts whose "
               "transparent huge pages are alike (the record's thp)"),
    "pingpong": (["pages"], "--no-huge-pages on every label fixes it (run/suite --app-args "
                 "pingpong=--no-huge-pages), as do hosts whose transparent huge pages are alike "
                 "(the record's thp)"),
}

# Apps that send no messages in their timed loop: the controls of a fabric
# comparison. What they show on two "nodes" is the machine, not the link.
CONTROLS = {
    "stream": "stream sends no messages in its timed loop: it is the no-communication control. "
              "Emulated nodes on one machine share its memory system, so stream's percent of 2x "
              "shows what that memory system allows, not the link; on real nodes it is about 100%.",
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


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived: the tool stops and exits 128 + signal."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


# How long a tool waits, after its child failed (died of SIGTERM or SIGINT,
# or mpirun exited non-zero after forwarding one), for the same stop to
# reach it (run_logged). A Slurm job cancelled during himeno: the suite's
# own SIGTERM came after its child's, and it recorded himeno as "no record
# (exit -15)", not "interrupted" (tests/e2e/run-slurm.sh failed so in one
# CI run of 7 December 2026 and passed in the run before); the signals of
# one scancel arrive within milliseconds.
STOP_SIGNAL_GRACE_S = 0.5


def run_logged(command, log_path, timeout=None):
    """Runs a shell command in its own process group, appending its output to
    log_path; returns the exit code (124 after the timeout). On SIGINT or
    SIGTERM the whole group (mpirun and its ranks) is stopped before the
    tool goes on to clean up: nothing is left running."""
    import signal
    with open(log_path, "a") as log:
        log.write("$ %s\n" % command)
        log.flush()
        child = subprocess.Popen(command, shell=True, stdout=log, stderr=subprocess.STDOUT,
                                 env=mpi_env(), start_new_session=True)
        try:
            code = child.wait(timeout=timeout)
            if code != 0:
                # a stop that reached the child may be on its way to this
                # tool too (scancel signals every process of the job, the
                # app's often first): waited for here, it is this tool's
                # Interrupted, not an app that ended with no record. Any
                # failure waits, not only death by SIGTERM: a shell that
                # exec'd mpirun ends with mpirun's status (1 or 143 when the
                # signal reached mpirun before or after its ranks).
                time.sleep(STOP_SIGNAL_GRACE_S)
            return code
        except subprocess.TimeoutExpired:
            stop_group(child, signal.SIGTERM)
            return 124
        except BaseException:
            stop_group(child, signal.SIGTERM)
            raise


def descendants(pid):
    """Every process below pid (from /proc), children first found first, and
    every other process of the session pid leads (start_new_session): mpirun
    and its ranks stay in it after the shell above them died of a signal and
    init adopted them, and they are still this child's to stop."""
    parent, session = {}, {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as f:
                    stat = f.read()
                fields = stat[stat.rindex(")") + 2:].split()
                parent[int(entry)] = int(fields[1])
                session[int(entry)] = int(fields[3])
            except (OSError, ValueError, IndexError):
                continue
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out += kids
        todo += kids
    return out + [p for p, sid in session.items() if sid == pid and p != pid and p not in out]


def stop_group(child, signum, grace=5.0):
    """Stops a child started with start_new_session, and everything it
    started, even what left its process group (Open MPI's daemons): signum
    to all, SIGKILL to what is left after grace s; returns when all are gone."""
    import signal
    procs = [child.pid] + descendants(child.pid)

    def send(sig):
        try:
            os.killpg(child.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        for p in procs:
            try:
                os.kill(p, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def alive():
        child.poll()
        out = []
        for p in procs[1:]:
            try:
                with open("/proc/%d/stat" % p) as f:
                    if f.read().split(") ")[-1][:1] != "Z":
                        out.append(p)
            except OSError:
                pass
        return child.returncode is None or out

    send(signum)
    for sig in (None, signal.SIGKILL):
        if sig:
            send(sig)
        deadline = time.monotonic() + (grace if sig is None else 5.0)
        while time.monotonic() < deadline:
            if not alive():
                return
            time.sleep(0.05)


def check_timeout(tool, seconds, what="--timeout"):
    if seconds is None:
        return
    if not math.isfinite(seconds) or seconds <= 0:
        die(tool, "%s %g: give a positive number of seconds" % (what, seconds))


def cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def fit_slots(tool, launcher, np, hosts=""):
    """Open MPI refuses more ranks than cores on one machine with a page of
    text and exit 1. A plain local mpirun asked for more ranks than this
    machine has cores oversubscribes instead, with a warning that the
    timings then measure time-sharing (MPICH oversubscribes by itself).
    Launchers with a hostfile, srun and the emulated cluster keep their own
    slot counts."""
    words = launcher.split()
    if not words or os.path.basename(words[0]) not in ("mpirun", "mpiexec") or hosts or \
            "--hostfile" in words or "-hostfile" in words or "--oversubscribe" in words or \
            "--host" in words or "-H" in words:
        return launcher
    n = cores()
    if np <= n:
        return launcher
    print("%s: warning: %d ranks on %d core%s: oversubscribed, so the timings measure "
          "time-sharing, not the machine" % (tool, np, n, "" if n == 1 else "s"), file=sys.stderr)
    if mpi_flavour(launcher) == "openmpi":
        return words[0] + " --oversubscribe " + " ".join(words[1:])
    return launcher


SCHEMA_FILE = os.path.join(ROOT, "docs", "fabricbench.run-1.schema.json")
_validator = None


def _no_constant(name):
    raise ValueError("%s is not JSON (the apps write null for a non-finite number)" % name)


def _no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError("the key '%s' appears twice in one object" % key)
        seen[key] = value
    return seen


def strict_json(text):
    """json.loads without Python's extensions: NaN, Infinity and repeated keys
    are errors, as they are for every other JSON reader."""
    return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_duplicates)


def schema_errors(rec):
    """The ways a record breaks docs/fabricbench.run-1.schema.json, each as
    'field: reason' (JSON Schema draft 2020-12, python3-jsonschema)."""
    global _validator
    if _validator is None:
        need_modules(os.path.basename(sys.argv[0]), ["jsonschema"])
        import jsonschema
        with open(SCHEMA_FILE) as f:
            _validator = jsonschema.Draft202012Validator(json.load(f))
    out = []
    for e in sorted(_validator.iter_errors(rec), key=lambda e: list(map(str, e.absolute_path))):
        field = ".".join(str(x) for x in e.absolute_path) or "(the record)"
        out.append("field '%s': %s" % (field, e.message))
    return out


def read_records(path, app=None):
    """Every record of a JSON Lines file, as (line number, record). Strict:
    an empty file, a line that is not UTF-8 or not JSON (NaN and repeated keys
    included), a record that does not validate against the schema, and a
    record of another app than the file's (APP.jsonl) are errors naming the
    file, the line and the field."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise RecordError("%s: cannot read: %s" % (path, e.strerror))
    if app is None:
        stem = os.path.splitext(os.path.basename(path))[0]
        app = stem if stem in BINARIES else None
    out = []
    for number, line in enumerate(raw.split(b"\n"), 1):
        if not line.strip():
            continue
        where = "%s:%d" % (path, number)
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            raise RecordError("%s: not UTF-8 text (a binary file?)" % where)
        try:
            rec = strict_json(text)
        except ValueError as e:
            raise RecordError("%s: not a JSON record (%s)" % (where, e))
        if not isinstance(rec, dict) or rec.get("schema") != SCHEMA:
            raise RecordError("%s: not a %s record" % (where, SCHEMA))
        errors = schema_errors(rec)
        if errors:
            raise RecordError("%s: does not validate against %s: %s%s"
                              % (where, os.path.relpath(SCHEMA_FILE, ROOT), errors[0],
                                 " (and %d more)" % (len(errors) - 1) if len(errors) > 1 else ""))
        if app and rec["app"] != app:
            raise RecordError("%s: a %s record in %s.jsonl (each app has its own file)"
                              % (where, rec["app"], app))
        out.append((number, rec))
    if not out:
        raise RecordError("%s: no records (empty file)" % path)
    return out


def score_problem(rec):
    """None when a record is a score (validated PASS, measured, a positive
    finite FOM), else why it is not one."""
    status = rec["validation"]["status"]
    if status != "PASS":
        return "validation %s" % status
    value = rec["fom"]["value"]
    if not rec["fom"]["measured"] or value is None:
        return "FOM not measured"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value <= 0:
        return "FOM %r is not a positive number" % (value,)
    return None


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


CONFIDENCE = 0.95  # the intervals of every tool: 95%, two-sided


# A 2-core VM's host can run its two vCPUs on one L3 or on two, switching
# within seconds (a Zen 4 VM: cache-line handoff 31-68 ns with two ranks'
# Triad at 32-39 GB/s, or 165-227 ns with 46-62). Our records carry the
# handoff as each run's loop starts and ends (params.handoff_ns_before,
# handoff_ns_after; docs/record.md); probes that agree within STATE_FACTOR
# (the two states lay 3-5x apart) say one state throughout.
STATE_FACTOR = 1.5


def one_state(probes):
    """True where every probe was taken (no NaN) and they agree within
    STATE_FACTOR."""
    probes = list(probes)
    return bool(probes) and all(x == x for x in probes) and max(probes) < STATE_FACTOR * min(probes)


def t_quantile(dof):
    """Student's t quantile for a two-sided 95% interval (scipy.stats.t)."""
    from scipy import stats
    return float(stats.t.ppf(0.5 + CONFIDENCE / 2, dof))


def summary(values):
    """median, mean and the 95% confidence interval of the mean from
    Student's t with n-1 degrees of freedom (None for n < 2)."""
    n = len(values)
    med = statistics.median(values)
    mean = statistics.fmean(values)
    if n < 2:
        return {"n": n, "median": med, "mean": mean, "ci95": None}
    half = t_quantile(n - 1) * statistics.stdev(values) / math.sqrt(n)
    return {"n": n, "median": med, "mean": mean, "ci95": [mean - half, mean + half]}


# run/compare's intervals are those of the medians it reports: a percentile
# bootstrap (Efron and Tibshirani, An Introduction to the Bootstrap, 1993,
# ch. 13; criterion.rs does the same for its medians) of BOOTSTRAP_RESAMPLES
# resamples of each side's runs, from a fixed seed so that the same records
# give the same interval. Fewer than BOOTSTRAP_MIN_RUNS runs on a side: no
# interval (two runs' bootstrap is their range, which holds the median only
# half the time). The t interval of the mean it replaced (7 December 2026)
# could leave the median out: ten runs a side, two of each slow, gave 100%
# of 2x with an interval of 52-98%.
BOOTSTRAP_RESAMPLES = 10000
BOOTSTRAP_SEED = 20261207
BOOTSTRAP_MIN_RUNS = 3
FEW_RUNS = "n/a (< %d runs)" % BOOTSTRAP_MIN_RUNS  # the tables' word for no interval


def median_interval(values, over=None, scale=1.0):
    """95% percentile-bootstrap interval of scale x median(values), or of
    scale x median(values) / median(over) when over is given (each side
    resampled on its own); None when a side has too few runs."""
    import numpy
    sides = [values] + ([over] if over is not None else [])
    if min(len(v) for v in sides) < BOOTSTRAP_MIN_RUNS:
        return None
    rng = numpy.random.default_rng(BOOTSTRAP_SEED)
    meds = [numpy.median(rng.choice(numpy.asarray(v, float), (BOOTSTRAP_RESAMPLES, len(v))), axis=1)
            for v in sides]
    stat = scale * (meds[0] / meds[1] if over is not None else meds[0])
    tail = 100 * (1 - CONFIDENCE) / 2
    return [float(numpy.percentile(stat, tail)), float(numpy.percentile(stat, 100 - tail))]


def fit(model, xs, ys, p0, bounds=(-math.inf, math.inf)):
    """Least-squares fit (scipy.optimize.curve_fit): the parameters and their
    95% intervals from the fit's covariance and Student's t with n - k
    degrees of freedom (None where there are no spare points)."""
    import numpy
    from scipy.optimize import curve_fit
    params, cov = curve_fit(model, numpy.asarray(xs, float), numpy.asarray(ys, float), p0=p0,
                            bounds=bounds, maxfev=20000)
    dof = len(xs) - len(p0)
    out = []
    for i, v in enumerate(params):
        var = cov[i][i] if cov is not None else float("inf")
        if dof > 0 and math.isfinite(var):
            half = t_quantile(dof) * math.sqrt(max(var, 0.0))
            out.append({"value": float(v), "ci95": [float(v) - half, float(v) + half]})
        else:
            out.append({"value": float(v), "ci95": None})
    return out


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
    (2 for bad input, 3 for I/O, 128 + N on signal N: 130 for SIGINT, 143
    for SIGTERM). Cleanup (the emulated cluster, a child's process group)
    runs as the exception unwinds."""
    import signal
    stopping = []

    def stop(signum, frame):
        # Only the first stop interrupts: a second, while the first's
        # cleanup runs, would cut it short (scancel signals every process
        # of a job and `timeout` signals its child, then its whole group,
        # so one stop often arrives twice within milliseconds), leaving
        # ranks running or runs.jsonl without the apps never started.
        # The cleanup is bounded (stop_group: its grace, then SIGKILL).
        if stopping:
            return
        stopping.append(signum)
        raise Interrupted(signum)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        code = main()
    except Interrupted as e:
        print("%s: interrupted by %s" % (tool, signal.Signals(e.signum).name), file=sys.stderr)
        sys.exit(128 + e.signum)
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
    except (ValueError, KeyError, TypeError, ZeroDivisionError, IndexError) as e:
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
        env = {}
        if self.netns and self.delay and not self.netem:
            env = {"FB_INJECT_ALPHA_US": self.delay, "FB_INJECT_BETA_MBS": 0}
        elif not self.netns and self.rate:
            env = {"FB_INJECT_ALPHA_US": self.delay, "FB_INJECT_BETA_MBS": "%.1f" % (self.rate / 8 * PAYLOAD)}
        if env:
            env["FB_INJECT_RANKS_PER_NODE"] = self.rpn
            # by name through the library path: ld.so splits LD_PRELOAD at
            # spaces, and the checkout's path may hold one
            env["LD_PRELOAD"] = "libfbinject.so"
            env["LD_LIBRARY_PATH"] = os.pathsep.join(
                [os.path.join(ROOT, "build")] + [p for p in [os.environ.get("LD_LIBRARY_PATH")] if p])
        openmpi = mpi_flavour(template) == "openmpi"
        flags = " ".join(("-x %s=%s" if openmpi else "-genv %s %s")
                         % (k, shlex.quote(str(v))) for k, v in env.items())
        extra = ""
        if self.netns:
            extra = subprocess.run([self.emu, "mpirun-args"], capture_output=True,
                                   text=True).stdout.strip()
        return " ".join(x for x in (template, extra, flags) if x)
