"""fbwaves: the exact answer of halo_weather's gravity_wave case (Skamarock
and Klemp 1994's nonhydrostatic inertia-gravity wave, no rotation), computed
independently of halo_weather, for run/weather-cases and the tests.

With an amplitude of 0.01 K the waves are linear: halo_weather's answer per
unit amplitude changes by 3e-4 of the wave when the amplitude is 0.001 K
instead (at 1 km). So the answer is, to that, that of the compressible
Euler equations linearised about the hydrostatic base state at rest (the
mean wind U only carries the pattern: x - U t), with a rigid floor and lid
and periodic in x:

    rho0 u_t  = -p'_x
    rho0 w_t  = -p'_z - g rho'
    rho'_t    = -(rho0 u)_x - (rho0 w)_z
    p'_t      = -w dp0/dz - gamma p0 (u_x + w_z)
    theta'/theta0 = p' / (gamma p0) - rho' / rho0

about theta0 = theta_s exp(N^2 z / g), its Exner function and rho0, p0 in
closed form. Each Fourier mode exp(i k x) of the initial anomaly evolves by
itself: for each k the system is solved in z on a fine staggered grid
(second order, 50 m by default; 100 m differs from it by 8e-4 of the wave,
so 50 m is within about 3e-4 of the converged answer) and advanced to time
t exactly through its eigenmodes. Not Boussinesq: Skamarock and Klemp's
own analytic answer is the Boussinesq one, which a compressible model does
not converge to (Skamarock's test page at NCAR shows WRF-ARW's compressible
answer beside it, with "some qualitative differences"); `boussinesq` gives
it for comparison.

Run as a script, it prints the reference's extremes at 3000 s."""
import math

import numpy as np

G = 9.81  # the constants of halo_weather/weather.h
RD = 287.0
CP = 1004.5
P00 = 1.0e5
GAMMA = CP / (CP - RD)

# The published case (Skamarock and Klemp 1994, nonhydrostatic waves).
CASE = {"length": 300e3, "depth": 10e3, "n": 0.01, "theta_s": 300.0, "u0": 20.0,
        "dtheta": 0.01, "a": 5e3, "xc": 100e3}
# Fourier modes kept: the anomaly's spectrum falls as exp(-a k); modes up to
# a k = 17 leave out 4e-8 of the first's amplitude (163 modes for the
# published 300 km channel and a = 5 km).
SPECTRUM_DECADES = 17.0
# Vertical cells of the reference's own grid (10 km / 200 = 50 m).
LEVELS = 200


def modes(c):
    """The highest Fourier mode kept for case c."""
    return int(math.ceil(SPECTRUM_DECADES * c["length"] / (2 * math.pi * c["a"])))


def case_of(ds, nx):
    """The case's parameters from a halo_weather history (netCDF4.Dataset)
    of nx cells along x."""
    return {"length": nx * float(ds.DX), "depth": float(ds.ZTOP), "n": float(ds.brunt_vaisala),
            "theta_s": float(ds.theta_surface), "u0": float(ds.u0), "dtheta": float(ds.bubble_dtheta),
            "a": float(ds.bubble_radius_x), "xc": float(ds.bubble_x)}


def base_state(z, c=CASE):
    """theta0, rho0, p0 of the constant-N atmosphere at heights z (exact)."""
    n2, ths = c["n"] ** 2, c["theta_s"]
    theta = ths * np.exp(n2 * z / G)
    if n2 > 0:
        exner = 1.0 - G * G / (CP * ths * n2) * (1.0 - np.exp(-n2 * z / G))
    else:
        exner = 1.0 - G * z / (CP * ths)
    p = P00 * exner ** (CP / RD)
    rho = p / (RD * exner * theta)
    return theta, rho, p


def mode_operator(k, levels, c=CASE):
    """The linear system y' = A y of mode k in z; y = (u, rho', p') at the
    centres (u scaled by -i, so A is real), then w at the inner faces."""
    m, h = levels, c["depth"] / levels
    zc = (np.arange(m) + 0.5) * h
    zf = np.arange(1, m) * h
    _, rc, pc = base_state(zc, c)
    _, rf, _ = base_state(zf, c)
    U, R, P, W = 0, m, 2 * m, 3 * m
    a = np.zeros((4 * m - 1, 4 * m - 1))
    for j in range(m):
        a[U + j, P + j] = -k / rc[j]
        a[R + j, U + j] = k * rc[j]
        a[P + j, U + j] = GAMMA * pc[j] * k
        for f, sign in ((j, -1.0), (j + 1, 1.0)):  # the faces below and above
            if 1 <= f <= m - 1:
                wi = W + f - 1
                a[R + j, wi] += -sign * rf[f - 1] / h
                a[P + j, wi] += -sign * GAMMA * pc[j] / h + 0.5 * G * rc[j]  # -w dp0/dz = +g rho0 w
    for f in range(1, m):
        wi = W + f - 1
        a[wi, P + f] += -1.0 / (rf[f - 1] * h)
        a[wi, P + f - 1] += 1.0 / (rf[f - 1] * h)
        a[wi, R + f] += -0.5 * G / rf[f - 1]
        a[wi, R + f - 1] += -0.5 * G / rf[f - 1]
    return a


def anomaly_spectrum(c=CASE):
    """Complex Fourier coefficients of the anomaly's x profile (the
    Lorentzian sampled every 50 m of the periodic channel), modes 0..modes(c)."""
    samples = max(4 * modes(c), int(round(c["length"] / 50.0)))
    x = (np.arange(samples) + 0.5) * c["length"] / samples
    f = c["dtheta"] / (1.0 + ((x - c["xc"]) / c["a"]) ** 2)
    coef = np.fft.rfft(f) / samples
    # rfft's phase is that of x = 0 at the first sample: shift to cell centres
    k = 2 * math.pi * np.arange(coef.size) / c["length"]
    coef = coef * np.exp(-1j * k * 0.5 * c["length"] / samples)
    return coef[:modes(c) + 1]


class Linear:
    """The linear compressible answer at time t: the vertical response of
    every mode (computed once), then theta' on any grid by `theta(x, z)`."""

    def __init__(self, t, c=CASE, levels=LEVELS):
        self.t, self.c = t, c
        m, h = levels, c["depth"] / levels
        self.z = (np.arange(m) + 0.5) * h
        th0, rc, pc = base_state(self.z, c)
        s = np.sin(math.pi * self.z / c["depth"])
        self.resp = np.zeros((modes(c) + 1, m))  # theta'(z, t) per unit initial amplitude
        for n in range(modes(c) + 1):
            y = np.zeros(4 * m - 1)
            y[m:2 * m] = -rc * s / th0  # rho' for theta' = s at unchanged pressure
            lam, vec = np.linalg.eig(mode_operator(2 * math.pi * n / c["length"], m, c))  # neutral
            y = np.real(vec @ (np.exp(lam * t) * np.linalg.solve(vec, y)))
            self.resp[n] = th0 * (y[2 * m:3 * m] / (GAMMA * pc) - y[m:2 * m] / rc)

    def theta(self, x, z):
        """theta' (K) on the grid x by z (cell centres in m): [len(z), len(x)]."""
        # 50 m apart: linear interpolation is exact to 3e-5
        return synthesis(self.c, self.t, x, lambda n: np.interp(z, self.z, self.resp[n]), len(z))


def synthesis(c, t, x, profile, nz):
    """Sum over the modes of profile(n) (theta' per unit amplitude at the
    heights wanted) times the anomaly's coefficient, carried by the wind."""
    n_modes, coef = modes(c) + 1, anomaly_spectrum(c)
    k = 2 * math.pi * np.arange(n_modes) / c["length"]
    phase = np.exp(1j * np.outer(k, np.asarray(x, dtype=float) - c["u0"] * t))
    out = np.zeros((nz, len(x)))
    for n in range(n_modes):
        out += (1.0 if n == 0 else 2.0) * np.outer(profile(n), np.real(coef[n] * phase[n]))
    return out


def boussinesq(x, z, t, c=CASE):
    """Skamarock and Klemp (1994)'s analytic Boussinesq answer on the same
    grid: each mode's sin(pi z / H) oscillates at N k / sqrt(k^2 + (pi/H)^2)."""
    mz = math.pi / c["depth"]
    column = np.sin(mz * np.asarray(z, dtype=float))

    def profile(n):
        k = 2 * math.pi * n / c["length"]
        return math.cos(c["n"] * k / math.sqrt(k * k + mz * mz) * t) * column
    return synthesis(c, t, x, profile, len(z))


def compare(theta, x, z, ref):
    """A model's theta' [z, x] against the reference (a Linear): the
    relative L2 and max errors, and both fields' extremes."""
    exact = ref.theta(x, z)
    err = theta - exact
    return {"l2_error": float(np.sqrt(np.sum(err ** 2) / np.sum(exact ** 2))),
            "max_error": float(np.max(np.abs(err)) / np.max(np.abs(exact))),
            "max": float(theta.max()), "min": float(theta.min()),
            "ref_max": float(exact.max()), "ref_min": float(exact.min())}


if __name__ == "__main__":
    xs = (np.arange(300) + 0.5) * 1000.0
    zs = (np.arange(10) + 0.5) * 1000.0
    ref = Linear(3000.0).theta(xs, zs)
    bq = boussinesq(xs, zs, 3000.0)
    print("linear compressible at 3000 s: max %.6f K, min %.6f K" % (ref.max(), ref.min()))
    print("Boussinesq (Skamarock and Klemp): max %.6f K, min %.6f K" % (bq.max(), bq.min()))
