"""fbcharts: the charts of run/compare --plot, run/scaling --plot and
run/report, drawn by matplotlib (Agg, no display). Each draw_* fills one
axes; each *_figure returns a whole figure."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# Okabe-Ito: distinguishable with the common colour-vision deficiencies, and in print
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
PHASE_COLOURS = {"compute": "#0072B2", "comm": "#E69F00", "io": "#009E73"}
PHASE_NAMES = {"compute": "compute", "comm": "communication", "io": "I/O"}


def colour(k):
    return PALETTE[k % len(PALETTE)]


def draw_verdict(ax, result):
    """Percent of 2x single-node per app and configuration, with the 95% interval."""
    apps = [app for app, e in result["apps"].items() if e["baseline"]]
    labels = result["labels"][1:]
    width = 0.8 / max(1, len(labels))
    for k, label in enumerate(labels):
        xs, ys, lo, hi = [], [], [], []
        for i, app in enumerate(apps):
            s = result["apps"][app]["labels"].get(label)
            if not s or "missing" in s:
                continue
            xs.append(i + k * width)
            ys.append(s["percent_of_2x"])
            ci = s["percent_ci95"] or [s["percent_of_2x"]] * 2
            lo.append(max(0.0, s["percent_of_2x"] - ci[0]))
            hi.append(max(0.0, ci[1] - s["percent_of_2x"]))
        ax.bar(xs, ys, width, yerr=[lo, hi], capsize=3, label=label, color=colour(k))
    ax.axhline(100, color="grey", linestyle="--", linewidth=1)
    ax.set_xticks([i + width * (len(labels) - 1) / 2 for i in range(len(apps))])
    ax.set_xticklabels(apps)
    ax.set_ylabel("percent of 2x single-node")
    ax.set_title("FOM / (2 x %s), 95%% interval" % result["baseline"])
    ax.legend(fontsize=8)


def draw_phases(ax, result):
    """Where the loop time went (max over ranks), stacked per app and configuration."""
    names, parts = [], {k: [] for k in PHASE_NAMES}
    for app, e in result["apps"].items():
        for label, s in e["labels"].items():
            if "missing" in s:
                continue
            names.append("%s\n%s" % (app, label))
            for k in PHASE_NAMES:
                parts[k].append(100 * s["split"][k])
    xs = list(range(len(names)))
    bottom = [0.0] * len(names)
    for k, name in PHASE_NAMES.items():
        ax.bar(xs, parts[k], bottom=bottom, label=name, color=PHASE_COLOURS[k])
        bottom = [b + v for b, v in zip(bottom, parts[k])]
    ax.set_xticks(xs)
    ax.set_xticklabels(names, fontsize=7)
    ax.set_ylabel("% of loop time (max over ranks)")
    ax.set_ylim(0, 105)
    ax.legend(fontsize=7)


def verdict_figure(result):
    fig, ax = plt.subplots(figsize=(8, 4))
    draw_verdict(ax, result)
    fig.tight_layout()
    return fig


def phases_figure(result):
    n = sum(1 for e in result["apps"].values() for s in e["labels"].values() if "missing" not in s)
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * n + 2), 4))
    draw_phases(ax, result)
    fig.tight_layout()
    return fig


def compare_figure(result):
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    draw_verdict(ax1, result)
    draw_phases(ax2, result)
    fig.tight_layout()
    return fig


def pingpong_figure(curves):
    """curves: [(label, [(bytes, latency us)], [(bytes, MB/s)], (alpha us, beta MB/s) or None)].
    Latency and bandwidth against message size, log-log, with the alpha-beta model."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for k, (label, lat, bw, model) in enumerate(curves):
        c = colour(k)
        if lat:
            ax1.loglog([x for x, _ in lat], [y for _, y in lat], "o-", color=c, markersize=3,
                       label=label)
            if model:
                xs = [x for x, _ in lat]
                ax1.loglog(xs, [model[0] + x / model[1] for x in xs], ":", color=c,
                           label="%s: %.2f us + n / %.0f MB/s" % (label, model[0], model[1]))
        if bw:
            ax2.loglog([x for x, _ in bw], [y for _, y in bw], "o-", color=c, markersize=3,
                       label=label)
    ax1.set_xlabel("message size (bytes)")
    ax1.set_ylabel("one-way latency (us)")
    ax1.set_title("latency (dotted: alpha + n / beta)")
    ax1.legend(fontsize=7)
    ax2.set_xlabel("message size (bytes)")
    ax2.set_ylabel("bandwidth (MB/s)")
    ax2.set_title("bandwidth")
    ax2.legend(fontsize=7)
    fig.tight_layout()
    return fig


def scaling_figure(summary):
    """Speedup and efficiency of a run/scaling summary, with the fitted law."""
    from fbanalysis import law_curve
    table = summary["points"]
    nps = [t["np"] for t in table]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.plot(nps, [t["speedup"] for t in table], "o-", color=colour(0), label="measured")
    ax1.plot(nps, nps, "--", color="grey", label="ideal")
    frac = summary.get("serial_fraction")
    if frac:
        dense = [min(nps) + (max(nps) - min(nps)) * i / 50 for i in range(51)]
        ax1.plot(dense, [law_curve(summary["kind"], p, frac["value"]) for p in dense], ":",
                 color=colour(1), label="%s, f = %.3f" % (summary["law"], frac["value"]))
    ax1.set_xlabel("ranks")
    ax1.set_ylabel("speedup" if summary["kind"] == "strong" else "scaled speedup")
    ax1.set_title("%s %s scaling" % (summary["app"], summary["kind"]))
    ax1.legend(fontsize=8)
    ax2.plot(nps, [100 * t["efficiency"] for t in table], "o-", color=colour(0))
    ax2.axhline(100, color="grey", linestyle="--")
    ax2.set_xlabel("ranks")
    ax2.set_ylabel("efficiency %")
    ax2.set_ylim(0, max(110, 10 + max(100 * t["efficiency"] for t in table)))
    fig.tight_layout()
    return fig
