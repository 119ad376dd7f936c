"""fbanalysis: what run/compare and run/report conclude from the results
folders of a campaign: the scoring records of each configuration, what is
missing and why, and per app the percent of 2x single-node with its 95%
interval and whether a configuration differs from the first beyond noise."""
import bisect
import json
import os
import sys

import fblib

# A difference between two configurations is "beyond noise" when Welch's
# t-test (unequal variances, scipy.stats.ttest_ind) rejects equal means at
# this level; with one run on either side there is no test ("n/a").
NOISE_LEVEL = 0.05


class Campaign:
    """The folders of a campaign, read strictly: labels (the first is the
    single-node baseline), data[label][app] = scoring records, missing[label][app]
    = why runs of that app did not score (from the suite's runs.jsonl),
    runs[label] = the runs.jsonl entries."""

    def __init__(self, folders, skip_invalid=False, tool="compare"):
        labels = [os.path.basename(os.path.normpath(f)) for f in folders]
        if len(set(labels)) != len(labels):
            labels = [os.path.normpath(f) for f in folders]
        self.labels, self.folders, self.tool = labels, dict(zip(labels, folders)), tool
        self.data, self.missing, self.runs, self.refused, self.whole = {}, {}, {}, {}, {}
        self.unlisted = {}
        for label, folder in zip(labels, folders):
            self.load(label, folder, skip_invalid)
        self.check_problems()

    def load(self, label, folder, skip_invalid):
        if not os.path.isdir(folder):
            raise fblib.RecordError("%s: no such folder" % folder)
        files = sorted(f for f in os.listdir(folder) if f.endswith(".jsonl") and f != "runs.jsonl")
        runs = read_runs(folder)
        if not files and not runs:
            raise fblib.RecordError("%s: no run records (*.jsonl)" % folder)
        apps, refused = {}, []
        for name in files:
            path = os.path.join(folder, name)
            for line, rec in fblib.read_records(path):
                rec["_where"] = "%s:%d" % (path, line)
                why = fblib.score_problem(rec)
                if why:
                    msg = "%s: %s: not a score" % (rec["_where"], why)
                    if not skip_invalid:
                        raise fblib.RecordError(msg + " (--skip-invalid leaves such records out)")
                    print("%s: warning: %s; left out" % (self.tool, msg), file=sys.stderr)
                    refused.append((rec, why))
                    continue
                apps.setdefault(rec["app"], []).append(rec)
        missing, whole, planned, unlisted = {}, [], [], []
        for entry in runs:
            app = entry.get("app")
            if entry.get("status") == "PASS":
                continue
            why = "%s (exit %s)" % (entry.get("status"), entry.get("exit_code"))
            if entry.get("status") == "not run":  # the suite stopped before this app
                why = "not run: %s" % entry.get("why", "the suite stopped before it")
            if entry.get("slurm_job"):
                why = "Slurm job %s %s (exit code %s)" % (entry["slurm_job"], entry.get("slurm_state"),
                                                         entry.get("exit_code"))
            if app:
                missing.setdefault(app, []).append(why)
            else:  # the whole configuration: a batch job that failed, was cancelled or timed out
                whole.append(why)
                planned += [(a, why) for a in entry.get("apps") or []]
                unlisted += [] if "apps" in entry else [why]
        # the apps such a job was to run and never scored (it may have ended
        # before the suite started, or been killed before it could say so)
        for a, why in planned:
            if a not in apps and a not in missing:
                missing[a] = [why]
        self.data[label], self.missing[label], self.runs[label] = apps, missing, runs
        self.whole[label] = whole
        # such failures with no list of the apps planned (records from before
        # finish.sh wrote one): every app the baseline did not score is missing
        self.unlisted[label] = unlisted
        self.refused[label] = refused

    def check_problems(self):
        """Every configuration must have solved the same problem per app."""
        for app in self.apps():
            first = None
            for label in self.labels:
                for rec in self.data[label].get(app, []):
                    prob = fblib.problem(rec)
                    if first is None:
                        first = (prob, rec["_where"])
                    elif prob != first[0]:
                        raise fblib.RecordError(
                            "%s: %s problem %s differs from %s at %s: compare the same problem"
                            % (rec["_where"], app, json.dumps(prob, sort_keys=True),
                               json.dumps(first[0], sort_keys=True), first[1]))

    def apps(self):
        return sorted({a for d in self.data.values() for a in d} |
                      {a for m in self.missing.values() for a in m})

    def records(self):
        """(label, record) of every scoring record, in folder order."""
        for label in self.labels:
            for app in sorted(self.data[label]):
                for rec in self.data[label][app]:
                    yield label, rec


def read_runs(folder):
    """The suite's runs.jsonl (what ran and how it ended), [] if absent."""
    path = os.path.join(folder, "runs.jsonl")
    if not os.path.exists(path):
        return []
    out = []
    with open(path, "rb") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                entry = fblib.strict_json(line.decode("utf-8"))
            except (ValueError, UnicodeDecodeError) as e:
                raise fblib.RecordError("%s:%d: not a JSON line (%s)" % (path, number, e))
            if not isinstance(entry, dict):
                raise fblib.RecordError("%s:%d: not a run entry" % (path, number))
            out.append(entry)
    return out


def differs(a, b):
    """Welch's t-test of two configurations' FOMs: (p value, beyond noise),
    or (None, None) when either has fewer than 2 runs or no spread."""
    if len(a) < 2 or len(b) < 2:
        return None, None
    from scipy import stats
    if max(a) == min(a) and max(b) == min(b):
        return (0.0, True) if a[0] != b[0] else (1.0, False)
    p = float(stats.ttest_ind(a, b, equal_var=False).pvalue)
    return p, p < NOISE_LEVEL


def analyse(c):
    """The verdict of a campaign as one JSON-able dict (run/compare --format
    json prints it; run/report draws it)."""
    base_label = c.labels[0]
    result = {"baseline": base_label, "labels": c.labels, "apps": {},
              "noise_test": "Welch t-test, p < %g" % NOISE_LEVEL, "missing": {}}
    for app in c.apps():
        recs0 = c.data[base_label].get(app, [])
        any_rec = next(r for _, r in c.records() if r["app"] == app) if any(
            r["app"] == app for _, r in c.records()) else None
        base_foms = [r["fom"]["value"] for r in recs0]
        base = fblib.summary(base_foms) if recs0 else None
        if base:
            base["ci95"] = fblib.median_interval(base_foms)
        entry = {"unit": any_rec["fom"]["unit"] if any_rec else "",
                 "fom_name": any_rec["fom"]["name"] if any_rec else "",
                 "baseline": base, "ideal_2x": 2 * base["median"] if base else None,
                 "control": fblib.CONTROLS.get(app), "labels": {}}
        first = None
        for label in c.labels[1:]:
            recs = c.data[label].get(app)
            if not recs:
                if c.missing[label].get(app) or recs0 or c.whole[label]:
                    why = c.missing[label].get(app) or c.whole[label] or ["no record"]
                    result["missing"].setdefault(label, {})[app] = why
                    entry["labels"][label] = {"missing": why}
                continue
            foms = [r["fom"]["value"] for r in recs]
            s = fblib.summary(foms)
            s["ci95"] = fblib.median_interval(foms)
            s["foms"] = foms
            s["split"] = {k: sum(fblib.split_phases(r)[k] for r in recs) / len(recs)
                          for k in ("compute", "comm", "io")}
            s["ranks"], s["nodes"] = recs[0]["ranks"], recs[0]["nodes"]
            s["percent_of_2x"] = 100.0 * s["median"] / (2 * base["median"]) if base else None
            s["percent_ci95"] = fblib.median_interval(foms, base_foms, 50.0) if base else None
            if first is None:
                first = s
                s["p_value"], s["differs_from_first"] = None, None
            else:
                s["p_value"], s["differs_from_first"] = differs(foms, first["foms"])
            entry["labels"][label] = s
        if recs0 and c.missing[base_label].get(app):
            result["missing"].setdefault(base_label, {})[app] = c.missing[base_label][app]
        # with no baseline score: the apps the baseline job was to run (a
        # one-rank-a-node baseline never runs pingpong: not missing)
        why0 = c.missing[base_label].get(app) or c.unlisted[base_label]
        if not recs0 and why0:
            result["missing"].setdefault(base_label, {})[app] = why0
        note = code_path_note(app, c)
        if note:
            entry["code_paths"], entry["code_path_note"] = note
        result["apps"][app] = entry
    return result


def code_path_note(app, c):
    """({label: [code paths]}, a sentence) when an app's records ran more
    than one code path (fblib.CODE_PATH_KEYS), else None."""
    keys, fix = fblib.CODE_PATH_KEYS.get(app, ([], ""))
    if not keys:
        return None
    paths = {}
    for label, rec in c.records():
        if rec["app"] == app:
            params = rec.get("params", {})
            path = ", ".join("%s=%s" % (k, params.get(k)) for k in keys)
            paths.setdefault(label, set()).add(path)
    if len(set().union(*paths.values())) < 2:
        return None
    paths = {label: sorted(v) for label, v in paths.items()}
    said = "; ".join("%s: %s" % (label, " | ".join(v)) for label, v in paths.items())
    return paths, ("%s ran more than one code path (%s). Its ratios include that difference, "
                   "not only the fabric's; %s." % (app, said, fix))


MODELS = ("curve", "fit")


def fabric_model(rec, kind="curve"):
    """A fabric as its pingpong record measured it, or None: alpha (s) and
    beta (B/s) of the record's fit T(n) = alpha + n / beta, and, for kind
    "curve" where the record has one, its latency curve as (bytes, one-way
    seconds) pairs, the mean of each size (the times the fit is made of).
    message_time reads a message's time off the curve; the fit is a
    straight line through it, which a real link's curve is not (protocol
    changes between sizes, a shaper's burst): on the namespace cluster's
    1 GbE, messages to 8 KiB pass in the bucket at the latency of 1 B, and
    the fit drawn through that (55 us, 161 MB/s) put 1 MiB at 6.6 ms
    against the 9.0 ms measured."""
    if rec["app"] != "pingpong" or kind not in MODELS:
        return None
    res = rec.get("results") or {}
    fit = res.get("fit")
    if not fit or not fit.get("alpha_us") or not fit.get("beta_mbs"):
        return None
    model = {"alpha": fit["alpha_us"] * 1e-6, "beta": fit["beta_mbs"] * 1e6, "curve": None}
    curve = sorted((p["size"], p["avg_us"] * 1e-6) for p in res.get("latency", [])
                   if p.get("size", 0) > 0 and (p.get("avg_us") or 0) > 0)
    if kind == "curve" and len(curve) >= 2:
        model["curve"] = curve
    return model


def message_time(model, size):
    """One message of `size` bytes on the model's fabric (s): on its curve,
    linear between the two measured sizes around it, the smallest size's
    time below the curve; above it, the largest size's time and each byte
    more at tail_seconds_per_byte. The fit without a curve."""
    curve = model["curve"]
    if not curve:
        return model["alpha"] + size / model["beta"]
    if size <= curve[0][0]:
        return curve[0][1]
    if size >= curve[-1][0]:
        return curve[-1][1] + (size - curve[-1][0]) * tail_seconds_per_byte(model)
    i = bisect.bisect_left(curve, (size,))  # curve[i - 1][0] < size <= curve[i][0]
    (x0, y0), (x1, y1) = curve[i - 1], curve[i]
    return y0 + (y1 - y0) * (size - x0) / (x1 - x0)


# A curve whose largest size took at least this many times its smallest
# size's time has left the latency floor: bandwidth is at least half of its
# last times, and its last segment is the link's own slope.
BANDWIDTH_BOUND_RATIO = 2.0


def tail_seconds_per_byte(model):
    """What a byte past the curve's largest size costs. A curve that reaches
    the bandwidth-bound sizes (BANDWIDTH_BOUND_RATIO) ends in the link's own
    slope: its last segment's, which the fit's beta overstates where a
    burst bends the curve (fabric_model). One that stops in the latency-
    bound sizes (the tiny profile's, at 1 KiB) ends almost flat, and the
    largest size's own bandwidth (1 KiB in 55 us, 19 MB/s on the
    injector's 1 GbE) put himeno XS's 8 KiB halo messages at 4x their
    measured time: its prediction was 61% too slow (CI run of 7 December
    2026). The fit's 1 / beta, made of every size, is the guess there."""
    (x0, y0), (x1, y1) = model["curve"][-2], model["curve"][-1]
    if y1 >= BANDWIDTH_BOUND_RATIO * model["curve"][0][1] and y1 > y0:
        return (y1 - y0) / (x1 - x0)
    return 1.0 / model["beta"]


def past_curve(model, size):
    """True where a message of `size` bytes lies past the model's curve."""
    return bool(model["curve"]) and size > model["curve"][-1][0]


def transfer_time(model, messages, nbytes):
    """`messages` messages of `nbytes` bytes in all, each of the mean size."""
    return messages * message_time(model, nbytes / messages) if messages > 0 else 0.0


def model_words(model):
    """How a fabric model costs a message, for the tools' output."""
    fit = "alpha %.3f us, beta %.1f MB/s" % (model["alpha"] * 1e6, model["beta"] / 1e6)
    if not model["curve"]:
        return "its fit T(n) = alpha + n / beta (%s)" % fit
    return "its latency curve (%d sizes, %d to %d bytes; fit: %s)" % (
        len(model["curve"]), model["curve"][0][0], model["curve"][-1][0], fit)


def predict(rec, model, source=None):
    """Predicted loop time (s) and FOM of a record's app on the fabric of
    `model` (fabric_model). Per rank, each communication phase moves its
    critical path (path_messages and path_bytes over ranks; messages and
    bytes in records written before those counters), each message at the
    phase's mean size (transfer_time). The time the recorded fabric spent on
    the same transfers comes out of the loop: the same model on that
    fabric when source gives it (its pingpong), capped at the phase's
    shortest time over ranks; without source, that shortest time itself,
    which also removes the phase's packing, so the prediction leans
    optimistic. The rest of the phase (packing, waiting for slower ranks)
    stays."""
    ranks = rec["ranks"]
    recorded = modeled = 0.0
    past = {}
    for name, st in rec["phases"].items():
        if name not in fblib.COMM_PHASES:
            continue
        c = rec.get("comm", {}).get(name, {"messages": 0, "bytes": 0})
        messages = c.get("path_messages", c["messages"]) / ranks
        nbytes = c.get("path_bytes", c["bytes"]) / ranks
        if messages > 0 and past_curve(model, nbytes / messages):
            past[name] = round(nbytes / messages)
        shortest = st.get("min", st["max"])
        recorded += min(shortest, transfer_time(source, messages, nbytes)) if source else shortest
        modeled += transfer_time(model, messages, nbytes)
    wall = rec["wall_s"]
    after = wall - recorded + modeled
    # FOM is a throughput on the same work: it scales with 1 / time.
    fom = rec["fom"]["value"] * wall / after if after > 0 else float("nan")
    return {"loop_s_recorded": wall, "transfer_s_recorded": recorded,
            "transfer_s_predicted": modeled, "loop_s_predicted": after, "fom": fom,
            "recorded_transfer_from": "source fabric model" if source else "phase minimum",
            "past_curve": past}


def past_curve_words(model, past):
    """A sentence on the phases whose messages lie past the model's curve
    (predict's past_curve), or "" where none do."""
    if not past:
        return ""
    return ("%s lie past the curve's largest size (%d bytes): each byte more costed at %.1f MB/s; "
            "a pingpong up to that size measures it" % (
                ", ".join("%s's messages (%d bytes)" % kv for kv in sorted(past.items())),
                model["curve"][-1][0], 1e-6 / tail_seconds_per_byte(model)))


def median_record(recs):
    """The record whose FOM is the median of a configuration's runs."""
    ordered = sorted(recs, key=lambda r: r["fom"]["value"])
    return ordered[(len(ordered) - 1) // 2]


def predictions(c, result):
    """run/predict over a campaign: every app of the first two-node
    configuration predicted on each later configuration from that
    configuration's pingpong (fabric_model), beside what was measured
    there."""
    if len(c.labels) < 3:
        return []
    source = c.labels[1]
    out = []
    for label in c.labels[2:]:
        pp = c.data[label].get("pingpong")
        model = fabric_model(median_record(pp)) if pp else None
        if not model:
            continue
        pp_source = c.data[source].get("pingpong")
        source_model = fabric_model(median_record(pp_source)) if pp_source else None
        for app, recs in sorted(c.data[source].items()):
            if app in ("pingpong",):
                continue
            pr = predict(median_record(recs), model, source=source_model)
            entry = result["apps"].get(app, {})
            meas = entry.get("labels", {}).get(label, {})
            base = entry.get("baseline")
            out.append({"app": app, "from": source, "to": label, "model": model_words(model),
                        "past_curve": past_curve_words(model, pr["past_curve"]),
                        "transfer_s_recorded": pr["transfer_s_recorded"],
                        "transfer_s_predicted": pr["transfer_s_predicted"],
                        "fom_predicted": pr["fom"], "fom_measured": meas.get("median"),
                        "percent_predicted": 100 * pr["fom"] / (2 * base["median"]) if base else None,
                        "percent_measured": meas.get("percent_of_2x"),
                        "error_percent": 100 * (pr["fom"] / meas["median"] - 1)
                        if meas.get("median") else None})
    return out


def amdahl(p, f):
    """Strong-scaling speedup on p ranks with serial fraction f."""
    return 1.0 / (f + (1.0 - f) / p)


def gustafson(p, f):
    """Weak-scaling (scaled) speedup on p ranks with serial fraction f."""
    return p - f * (p - 1.0)


def law_curve(kind, p, f):
    return gustafson(p, f) if kind == "weak" else amdahl(p, f)


def fit_law(points, weak):
    """The serial fraction f of Amdahl's law (strong) or Gustafson's (weak),
    fitted by scipy.optimize.curve_fit within [0, 1], with its 95% interval
    (None below three rank counts); (None, why) when the law does not apply
    (no speedup, or one point)."""
    ps = [p for p, _ in points]
    ss = [s for _, s in points]
    if len(set(ps)) < 2:
        return None, "one rank count: nothing to fit"
    if not weak and max(s for p, s in points if p > min(ps)) < 1.0:
        return None, "no speedup (below 1 at every rank count): Amdahl's law does not apply"
    frac = fblib.fit(gustafson if weak else amdahl, ps, ss, p0=[0.05], bounds=([0.0], [1.0]))[0]
    # The smallest rank count is the reference every speedup is measured
    # against (1 by construction at one rank), not a measurement: two rank
    # counts fit f exactly, with no spare point to give an interval.
    if len(set(ps)) < 3:
        frac["ci95"] = None
    return frac, None
